package am

import (
	"fmt"
	"sync"
	"time"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// workerConn is one worker's stream. gRPC streams are not safe for
// concurrent sends, so one goroutine per connection sends from a queue.
type workerConn struct {
	id     string
	out    chan *ebbpb.AMMessage
	closed chan struct{}
	once   sync.Once
}

func newWorkerConn(id string) *workerConn {
	return &workerConn{id: id, out: make(chan *ebbpb.AMMessage, 256), closed: make(chan struct{})}
}

func (c *workerConn) close() { c.once.Do(func() { close(c.closed) }) }

// send queues a message; false when the connection is gone or hopelessly
// behind (then the worker is treated as lost by its own stream ending).
func (c *workerConn) send(m *ebbpb.AMMessage) bool {
	select {
	case <-c.closed:
		return false
	default:
	}
	select {
	case c.out <- m:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

func (l *Loop) addConn(c *workerConn) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return fmt.Errorf("the AM is shutting down")
	}
	if _, dup := l.conns[c.id]; dup {
		return fmt.Errorf("worker %s is already connected", c.id)
	}
	l.conns[c.id] = c
	if l.creds != nil {
		// Queued now, under the lock, so a refresh racing with this
		// connection cannot be overtaken by older tokens; the stream
		// sends it after Registered. The queue of a new conn has room.
		c.out <- credentialsMessage(l.creds)
	}
	return nil
}

func (l *Loop) send(worker string, m *ebbpb.AMMessage) bool {
	l.mu.Lock()
	c := l.conns[worker]
	l.mu.Unlock()
	return c != nil && c.send(m)
}

// closeConn ends a worker's stream after its queued messages are sent.
func (l *Loop) closeConn(worker string) {
	l.mu.Lock()
	c := l.conns[worker]
	delete(l.conns, worker)
	l.mu.Unlock()
	if c != nil {
		// A nil message tells the sender to finish after what is queued.
		select {
		case c.out <- nil:
		case <-c.closed:
		}
	}
}

func (l *Loop) dropConn(c *workerConn) {
	l.mu.Lock()
	if l.conns[c.id] == c {
		delete(l.conns, c.id)
	}
	l.mu.Unlock()
	c.close()
}

func runMessage(a core.AttemptSpec) *ebbpb.AMMessage {
	r := &ebbpb.RunAttempt{
		AttemptId: a.ID, DagId: a.DAGID, DagName: a.DAGName, Vertex: a.Vertex,
		TaskIndex: int32(a.Task), Attempt: int32(a.Number), Parallelism: int32(a.Parallelism),
		Command: a.Command, Env: a.Env, MemoryMb: a.MemoryMB, Vcores: int32(a.VCores), CommitDir: a.CommitDir,
		Incomplete: a.Incomplete, SplitsAsFiles: a.SplitsAsFiles, AskCommit: a.AskCommit, Speculative: a.Speculative,
	}
	for _, o := range a.Outputs {
		r.Outputs = append(r.Outputs, &ebbpb.OutputSpec{Consumer: o.Consumer, Partitions: int32(o.Partitions)})
	}
	r.Inputs = inputFetches(a.Inputs)
	for _, s := range a.Splits {
		r.Splits = append(r.Splits, &ebbpb.InputSplit{Path: s.Path, Offset: s.Offset, Length: s.Length, RecordLength: s.RecordLength})
	}
	return &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Run{Run: r}}
}

func inputFetches(ins []core.InputFetch) []*ebbpb.InputFetch {
	var out []*ebbpb.InputFetch
	for _, in := range ins {
		out = append(out, &ebbpb.InputFetch{ProducerVertex: in.ProducerVertex, ProducerTask: int32(in.ProducerTask),
			ProducerAttempt: in.ProducerAttempt, Address: in.Address, Consumer: in.Consumer, Partition: int32(in.Partition)})
	}
	return out
}

func inputsMessage(a core.AttemptInputs) *ebbpb.AMMessage {
	return &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Inputs{Inputs: &ebbpb.AttemptInputs{
		AttemptId: a.AttemptID, Inputs: inputFetches(a.Inputs), Complete: a.Complete}}}
}

func killMessage(id, reason string) *ebbpb.AMMessage {
	return &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Kill{Kill: &ebbpb.KillAttempt{AttemptId: id, Reason: reason}}}
}

func commitMessage(id string) *ebbpb.AMMessage {
	return &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Commit{Commit: &ebbpb.CommitGranted{AttemptId: id}}}
}

func stopMessage(graceful bool, reason string) *ebbpb.AMMessage {
	return &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Stop{Stop: &ebbpb.Stop{Graceful: graceful, Reason: reason}}}
}

func reinitMessage(g core.GroupInfo) *ebbpb.AMMessage {
	return &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Reinit{Reinit: &ebbpb.Reinit{Group: g.Name, Env: g.Env, MemoryMb: g.MemoryMB}}}
}

func dagDoneMessage(id string) *ebbpb.AMMessage {
	return &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_DagDone{DagDone: &ebbpb.DAGDone{DagId: id}}}
}

func attemptUpdate(u *ebbpb.AttemptUpdate) core.AttemptUpdate {
	r := core.AttemptRunning
	switch u.State {
	case ebbpb.AttemptState_ATTEMPT_SUCCEEDED:
		r = core.AttemptSucceeded
	case ebbpb.AttemptState_ATTEMPT_FAILED:
		r = core.AttemptFailed
	case ebbpb.AttemptState_ATTEMPT_KILLED:
		r = core.AttemptKilled
	case ebbpb.AttemptState_ATTEMPT_FETCH_FAILED:
		r = core.AttemptFetchFailed
	case ebbpb.AttemptState_ATTEMPT_COMMIT_PENDING:
		r = core.AttemptCommitPending
	}
	return core.AttemptUpdate{AttemptID: u.AttemptId, Result: r, Progress: float64(u.Progress), ExitCode: int(u.ExitCode),
		Diagnostics: u.Diagnostics, OutputBytes: u.OutputBytes, FetchFailedAttempt: u.FetchFailedAttempt, MemoryUsedMB: u.MemoryUsedMb,
		Counters: CountersFromPB(u.Counters), Status: u.Status}
}

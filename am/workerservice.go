package am

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/proto/ebbpb"
)

// workerService serves Worker.Connect: one stream per worker for its whole
// life. The stream ending means the worker is gone.
type workerService struct {
	ebbpb.UnimplementedWorkerServer
	loop      *Loop
	heartbeat time.Duration
	// lostAfter is the Core's worker timeout, told to each worker so that
	// one cut off for as long fences itself (it commits nothing more).
	lostAfter time.Duration
}

func (s *workerService) Connect(stream ebbpb.Worker_ConnectServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	reg := first.GetRegister()
	if reg == nil || reg.WorkerId == "" {
		return status.Error(codes.InvalidArgument, "the first message must be a Register with a worker id")
	}
	c := newWorkerConn(reg.WorkerId)
	if err := s.loop.addConn(c); err != nil {
		return status.Error(codes.AlreadyExists, err.Error())
	}
	defer s.loop.dropConn(c)
	// The loop fills in the node's memory as its world knows it, and
	// tells the world of a worker of an earlier attempt that joined.
	info := core.WorkerInfo{ID: reg.WorkerId, Group: reg.Group, Node: reg.Node, MemoryMB: reg.MemoryMb,
		VCores: int(reg.Vcores), Address: reg.DataAddress, ContainerID: reg.ContainerId,
		Reconnected: reg.Reconnect, Outputs: reg.Outputs}
	for _, h := range reg.Attempts {
		info.Attempts = append(info.Attempts, core.AdoptedAttempt{ID: h.AttemptId, DAG: h.DagId, Vertex: h.Vertex, Task: int(h.TaskIndex),
			Started: unixMilliOrZero(h.StartedUnixMs)})
	}
	rep, err := s.loop.Ask(stream.Context(), core.WorkerRegistered{Info: info})
	if err == nil {
		err = rep.Err
	}
	if err != nil {
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	if err := stream.Send(&ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Registered{Registered: &ebbpb.Registered{
		WorkerId: reg.WorkerId, HeartbeatIntervalMs: s.heartbeat.Milliseconds(), LostAfterMs: s.lostAfter.Milliseconds()}}}); err != nil {
		return err
	}
	recvErr := make(chan error, 1)
	go func() { recvErr <- s.receive(stream, reg.WorkerId) }()
	for {
		select {
		case m := <-c.out:
			if m == nil { // closeConn: done after the queued messages
				return nil
			}
			if err := stream.Send(m); err != nil {
				s.lost(reg.WorkerId, fmt.Sprintf("send failed: %v", err))
				return err
			}
		case err := <-recvErr:
			s.lost(reg.WorkerId, fmt.Sprintf("connection closed: %v", err))
			return nil
		case <-c.closed:
			return nil
		}
	}
}

func (s *workerService) receive(stream ebbpb.Worker_ConnectServer, id string) error {
	for {
		m, err := stream.Recv()
		if err != nil {
			return err
		}
		switch x := m.Msg.(type) {
		case *ebbpb.WorkerMessage_Heartbeat:
			running := x.Heartbeat.GetRunningAttempts()
			s.loop.Send(core.WorkerBeat{Worker: id, Running: running, Unhealthy: x.Heartbeat.GetUnhealthy()})
		case *ebbpb.WorkerMessage_Attempt:
			s.loop.Send(core.AttemptUpdated{Worker: id, Update: attemptUpdate(x.Attempt)})
		default:
			return errors.New("unexpected message after Register")
		}
	}
}

func (s *workerService) lost(id, reason string) {
	s.loop.Send(core.WorkerGone{Worker: id, Reason: reason})
}

// unixMilliOrZero reads a protocol time in Unix milliseconds; 0 (not said)
// is the zero time.
func unixMilliOrZero(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

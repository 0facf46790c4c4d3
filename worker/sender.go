package worker

import (
	"sync"
	"time"

	"github.com/ebb-am/ebb/proto/ebbpb"
)

// sender owns the sending side of the stream: gRPC streams allow one
// sender at a time, while attempts, heartbeats and the receive loop all
// have something to say. Messages keep the order in which they were queued.
type sender struct {
	stream ebbpb.Worker_ConnectClient
	queue  chan outgoing
	// dead is closed when a Send failed; later messages are dropped, since
	// the receive loop sees the broken stream and ends the session.
	dead     chan struct{}
	deadOnce sync.Once
	// done is closed when loop has returned, after which the stream may be
	// closed for sending.
	done chan struct{}
}

type outgoing struct {
	msg *ebbpb.WorkerMessage
	// ack, when set, is closed once every earlier message has been sent.
	ack chan struct{}
}

func newSender(stream ebbpb.Worker_ConnectClient) *sender {
	return &sender{stream: stream, queue: make(chan outgoing, 256), dead: make(chan struct{}), done: make(chan struct{})}
}

func (s *sender) loop() {
	defer close(s.done)
	for {
		var o outgoing
		select {
		case o = <-s.queue:
		case <-s.dead:
			return
		}
		if o.ack != nil {
			close(o.ack)
			continue
		}
		if err := s.stream.Send(o.msg); err != nil {
			s.stop()
			return
		}
	}
}

// stop ends the loop; messages queued or sent later are dropped.
func (s *sender) stop() { s.deadOnce.Do(func() { close(s.dead) }) }

func (s *sender) send(m *ebbpb.WorkerMessage) {
	select {
	case s.queue <- outgoing{msg: m}:
	case <-s.dead:
	}
}

// flush waits up to timeout for queued messages to be sent.
func (s *sender) flush(timeout time.Duration) {
	ack := make(chan struct{})
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case s.queue <- outgoing{ack: ack}:
	case <-s.dead:
		return
	case <-t.C:
		return
	}
	select {
	case <-ack:
	case <-s.dead:
	case <-t.C:
	}
}

func attemptUpdate(u *ebbpb.AttemptUpdate) *ebbpb.WorkerMessage {
	return &ebbpb.WorkerMessage{Msg: &ebbpb.WorkerMessage_Attempt{Attempt: u}}
}

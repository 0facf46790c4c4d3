package am

import "github.com/ebb-am/ebb/proto/ebbpb"

// SetWorkerCredentials makes tokens (a Credentials blob of delegation
// tokens, for workers on a secure cluster) the workers' current ones: every
// connected worker gets them now in a Credentials message, and every
// worker that connects later right after its Registered (one launched
// with older tokens, or one of an earlier AM attempt coming back). It
// returns how many connected workers they were queued for. The tokens are
// secrets: nothing here logs them.
func (a *AM) SetWorkerCredentials(tokens []byte) int {
	l := a.loop
	l.mu.Lock()
	l.creds = append([]byte(nil), tokens...)
	conns := make([]*workerConn, 0, len(l.conns))
	for _, c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	// Outside the lock: a worker far behind may hold a send up to its
	// timeout. One that connects meanwhile saw the new tokens in addConn.
	sent := 0
	for _, c := range conns {
		if c.send(credentialsMessage(tokens)) {
			sent++
		}
	}
	return sent
}

func credentialsMessage(tokens []byte) *ebbpb.AMMessage {
	return &ebbpb.AMMessage{Msg: &ebbpb.AMMessage_Credentials{Credentials: &ebbpb.Credentials{Tokens: tokens}}}
}

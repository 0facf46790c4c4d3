package yarnrpc

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinels, grouped by what the caller should do next. A *RemoteError
// matches the sentinel of its Java class through errors.Is, also when
// wrapped.
var (
	// ErrNotRegistered: the RM does not know this AM attempt (typically
	// after an RM restart). Re-register and re-send every outstanding ask.
	ErrNotRegistered = errors.New("application master not registered")
	// ErrInvalidToken: the token was rejected (SASL failure or
	// InvalidToken). Retrying with the same token will not help.
	ErrInvalidToken = errors.New("invalid token")
	// ErrInvalidRequest: the RM refused the request itself (a wrong
	// response_id, an ask above the maximum allocation). Fix the request.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrAttemptNotFound: the application attempt is gone; the AM should stop.
	ErrAttemptNotFound = errors.New("application attempt not found")
	// ErrProtocol: the peer sent bytes we cannot make sense of.
	ErrProtocol = errors.New("hadoop rpc protocol error")
	// ErrSASL: the SASL negotiation failed or asked for something we do
	// not support (e.g. qop auth-int/auth-conf).
	ErrSASL = errors.New("sasl negotiation failed")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("yarnrpc client closed")
)

// Java exception classes mapped to sentinels. Subclasses Hadoop throws in
// place of these are listed explicitly: a RemoteError knows only the name.
var remoteSentinels = map[string]error{
	"org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException":  ErrNotRegistered,
	"org.apache.hadoop.security.token.SecretManager$InvalidToken":                ErrInvalidToken,
	"org.apache.hadoop.yarn.exceptions.InvalidApplicationMasterRequestException": ErrInvalidRequest,
	"org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException":          ErrInvalidRequest,
	"org.apache.hadoop.yarn.exceptions.InvalidContainerReleaseException":         ErrInvalidRequest,
	"org.apache.hadoop.yarn.exceptions.InvalidResourceBlacklistRequestException": ErrInvalidRequest,
	"org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException":      ErrAttemptNotFound,
}

// retriableClasses are server answers that mean "try again later, nothing
// happened": the server did not run the call.
var retriableClasses = map[string]bool{
	"org.apache.hadoop.ipc.RetriableException":                true,
	"org.apache.hadoop.ipc.Server$CallQueueOverflowException": true,
}

// RemoteError is an exception the server reported for one call (status
// ERROR) or for the whole connection (status FATAL, Fatal set).
type RemoteError struct {
	Class   string // Java class name, e.g. org.apache.hadoop.yarn.exceptions.YarnException
	Message string // the server's message; often carries a stack trace
	Method  string // the method called, when known
	Fatal   bool   // the server closed the connection
}

func (e *RemoteError) Error() string {
	msg := e.Message
	// Hadoop often appends the whole stack trace; the first line is the news.
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	where := ""
	if e.Method != "" {
		where = e.Method + ": "
	}
	return fmt.Sprintf("%sremote %s: %s", where, e.Class, msg)
}

// Is lets errors.Is(err, ErrNotRegistered) and friends see through a
// RemoteError of the matching Java class.
func (e *RemoteError) Is(target error) bool {
	s, ok := remoteSentinels[e.Class]
	if ok && s == target {
		return true
	}
	// A SASL failure reported by the server is a token problem.
	return target == ErrInvalidToken && e.Fatal && strings.Contains(e.Class, "SaslException")
}

// Retriable reports whether the server asked us to try again later.
func (e *RemoteError) Retriable() bool { return retriableClasses[e.Class] }

// TimeoutError is a server that did not answer in time: the connection (or
// its handshake) or one try of a call took longer than its timeout. It
// names the address and the key that sets the limit.
type TimeoutError struct {
	Addr  string
	Op    string // "connect" or "call <method>"
	After time.Duration
	Key   string // the Hadoop key for the limit
	Err   error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: no answer from %s within %s (raise %s if the server is just slow): %v", e.Op, e.Addr, e.After, e.Key, e.Err)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

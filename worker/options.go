package worker

import (
	"fmt"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/hdfsfs"
)

// Options configure one worker process.
type Options struct {
	// AMAddress is the host:port of the AM's gRPC server.
	AMAddress string
	// Secret is the per-application secret, sent as a bearer token to the AM
	// and required from anyone who fetches this worker's outputs.
	Secret string

	WorkerID    string
	Group       string
	Node        string
	ContainerID string
	// MemoryMB is what the worker offers to attempts; an attempt that would
	// take the sum of running attempts beyond it is refused.
	MemoryMB int64
	VCores   int

	// WorkDir holds attempts/<attempt_id>/{input,output}.
	WorkDir string
	// LogDir receives worker.log and <attempt_id>.stdout|.stderr.
	LogDir string

	// Executable is what an argv[0] of "ebb" means; default os.Executable().
	Executable string
	// AdvertiseHost is the host put in data_address; default 127.0.0.1.
	AdvertiseHost string

	// MemoryCheckInterval is how often attempts' RSS is sampled; default 1s.
	MemoryCheckInterval time.Duration
	// RegisterTimeout bounds the wait for Registered; default 30s.
	RegisterTimeout time.Duration

	// AMFile, when set, is a file (local or hdfs://) holding the address
	// of the application's current AM attempt: a worker whose AM went
	// away reads it and rejoins the next attempt, within RejoinWithin
	// (default 2 minutes), instead of exiting.
	AMFile       string
	RejoinWithin time.Duration
	// RejoinInPlace: the AM comes back at AMAddress itself after its
	// process dies (on Kubernetes its container restarts in its pod, which
	// keeps its IP, and listens on the same port), so a worker whose AM
	// went away registers there again, retrying until RejoinWithin has
	// passed, instead of exiting. An AM that answers and refuses it (it
	// is the same AM, which declared it lost) ends it.
	RejoinInPlace bool

	// HDFSRetrySpec is dfs.client.retry.policy.spec: how long a sink
	// attempt's commit to HDFS waits out a NameNode that does not answer
	// (hdfsfs.Retry); "" is Hadoop's default.
	HDFSRetrySpec string
	hdfsRetry     hdfsfs.Retry

	// Log is used as given when set (the caller decides where it writes);
	// when nil, Run logs to stderr and <LogDir>/worker.log.
	Log *logrus.Logger
}

// withDefaults fills the optional fields and checks the required ones.
func (o Options) withDefaults() (Options, error) {
	missing := func(field string) error {
		return &ConfigError{Field: field, Reason: "is required"}
	}
	switch {
	case o.AMAddress == "":
		return o, missing("AMAddress")
	case o.Secret == "":
		return o, missing("Secret")
	case o.WorkerID == "":
		return o, missing("WorkerID")
	case o.WorkDir == "":
		return o, missing("WorkDir")
	case o.LogDir == "":
		return o, missing("LogDir")
	}
	if o.MemoryMB <= 0 {
		return o, &ConfigError{Field: "MemoryMB", Reason: fmt.Sprintf("must be positive, got %d", o.MemoryMB)}
	}
	if o.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return o, &ConfigError{Field: "Executable", Reason: fmt.Sprintf("cannot find own executable: %v", err)}
		}
		o.Executable = exe
	}
	if o.AdvertiseHost == "" {
		o.AdvertiseHost = "127.0.0.1"
	}
	if o.RejoinWithin <= 0 {
		o.RejoinWithin = 2 * time.Minute
	}
	if o.MemoryCheckInterval <= 0 {
		o.MemoryCheckInterval = time.Second
	}
	if o.RegisterTimeout <= 0 {
		o.RegisterTimeout = 30 * time.Second
	}
	if o.HDFSRetrySpec == "" {
		o.HDFSRetrySpec = hdfsfs.DefaultRetrySpec
	}
	r, err := hdfsfs.ParseRetry(o.HDFSRetrySpec)
	if err != nil {
		return o, &ConfigError{Field: "HDFSRetrySpec", Reason: err.Error()}
	}
	o.hdfsRetry = r
	return o, nil
}

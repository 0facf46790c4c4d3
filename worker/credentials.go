package worker

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/ebb-am/ebb/yarnrpc"
)

// errNoTokenFile: the container has no token file to replace (an insecure
// cluster, or a worker run by hand).
var errNoTokenFile = errors.New("HADOOP_TOKEN_FILE_LOCATION is unset: no token file to replace")

// updateCredentials puts fresh delegation tokens from the AM in place of
// the container's token file (the NodeManager's copy of the launch
// context's tokens; tasks inherit its path) and makes new HDFS connections
// use them. Clients already open keep their authenticated connections for
// the attempts reading through them; they are retired and closed with the
// worker. The tokens are secrets: nothing here logs them.
func (f *filesystems) updateCredentials(tokens []byte) error {
	if _, err := yarnrpc.ReadCredentials(bytes.NewReader(tokens)); err != nil {
		return fmt.Errorf("fresh credentials: %w", err)
	}
	path := os.Getenv("HADOOP_TOKEN_FILE_LOCATION")
	if path == "" {
		return fmt.Errorf("fresh credentials: %w", errNoTokenFile)
	}
	// Readers (a task starting now) see the old file or the new one,
	// never half of one.
	tmp := path + ".new"
	if err := os.WriteFile(tmp, tokens, 0o600); err != nil {
		return fmt.Errorf("fresh credentials: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp) // the rename's error is the one to report
		return fmt.Errorf("fresh credentials: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for nn, c := range f.hdfs {
		f.retired = append(f.retired, c)
		delete(f.hdfs, nn)
	}
	return nil
}

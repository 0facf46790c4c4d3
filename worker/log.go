package worker

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sirupsen/logrus"
)

// newLogger returns a logger that writes to stderr and to
// <logDir>/worker.log, so the worker's log is kept with the attempts' logs
// in the container's log directory. The returned closer closes the file.
func newLogger(logDir string) (*logrus.Logger, io.Closer, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("creating log dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(logDir, "worker.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("opening worker log: %w", err)
	}
	l := logrus.New()
	l.SetOutput(io.MultiWriter(os.Stderr, f))
	return l, f, nil
}

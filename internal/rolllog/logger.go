package rolllog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sirupsen/logrus"
)

// Attach points log at dir/name, rolled as roll says, and sends its
// warnings and errors to stderr as well: YARN puts the tail of a failed
// container's stderr into the application's diagnostics, and a Go panic
// lands there anyway, so stderr keeps what explains a failure while
// staying small. Close the returned closer when the process ends.
func Attach(log *logrus.Logger, dir, name string, roll Roll, stderr io.Writer) (io.Closer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("rolllog: creating log dir: %w", err)
	}
	w, err := Open(filepath.Join(dir, name), roll)
	if err != nil {
		return nil, err
	}
	log.SetOutput(w)
	log.AddHook(&stderrHook{out: stderr, formatter: log.Formatter})
	return w, nil
}

// stderrHook copies warnings and worse to another writer.
type stderrHook struct {
	out       io.Writer
	formatter logrus.Formatter
}

func (h *stderrHook) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (h *stderrHook) Fire(e *logrus.Entry) error {
	line, err := h.formatter.Format(e)
	if err != nil {
		return err
	}
	_, err = h.out.Write(line)
	return err
}

// RolledPattern is a regular expression (the same in Go and Java) that
// matches the rolled pieces of the named files and nothing else: not the
// files being written, which a NodeManager would delete after uploading.
func RolledPattern(names ...string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return `^(` + strings.Join(q, "|") + `)\.[0-9]{4,}$`
}

// The logs of ebb's own processes in a container's log directory.
const (
	AMFile     = "am.log"
	WorkerFile = "worker.log"
)

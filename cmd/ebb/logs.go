package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/internal/rolllog"
)

// newLogger logs human text to stderr and, when dir is set, to dir/file
// too (YARN's container log directory, or the local world's).
func newLogger(level, dir, file string) *logrus.Logger {
	log := logrus.New()
	log.SetFormatter(&logrus.TextFormatter{FullTimestamp: true, TimestampFormat: "15:04:05.000"})
	log.SetOutput(os.Stderr)
	if l, err := logrus.ParseLevel(level); err == nil {
		log.SetLevel(l)
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err == nil {
			if f, err := os.OpenFile(filepath.Join(dir, file), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
				log.SetOutput(io.MultiWriter(os.Stderr, f))
			}
		}
	}
	return log
}

// newQuietLogger writes info and above to dir/file and only warnings and
// errors to stderr (so a progress bar stays readable), or everything to
// both when verbose.
func newQuietLogger(dir, file string, roll rolllog.Roll, verbose bool) *logrus.Logger {
	log := logrus.New()
	log.SetFormatter(&logrus.TextFormatter{FullTimestamp: true, TimestampFormat: "15:04:05.000"})
	out := io.Discard
	if err := os.MkdirAll(dir, 0o755); err == nil {
		// Not closed: writes are unbuffered and the process's exit
		// closes it.
		if w, err := rolllog.Open(filepath.Join(dir, file), roll); err == nil {
			out = w
		}
	}
	if verbose {
		log.SetOutput(io.MultiWriter(os.Stderr, out))
		return log
	}
	log.SetOutput(out)
	log.AddHook(stderrHook{})
	return log
}

type stderrHook struct{}

func (stderrHook) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (stderrHook) Fire(e *logrus.Entry) error {
	line, err := e.String()
	if err != nil {
		return err
	}
	_, err = os.Stderr.WriteString(line)
	return err
}

// logRoll is how the AM's and the workers' logs roll (ebb.log.roll.*).
func logRoll(c *conf.Config) rolllog.Roll {
	return rolllog.Roll{MaxBytes: c.Int64("ebb.log.roll.size.kb") * 1024, Keep: c.Int("ebb.log.roll.count")}
}

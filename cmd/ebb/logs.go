package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/sirupsen/logrus"
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
func newQuietLogger(dir, file string, verbose bool) *logrus.Logger {
	if verbose {
		return newLogger("info", dir, file)
	}
	log := logrus.New()
	log.SetFormatter(&logrus.TextFormatter{FullTimestamp: true, TimestampFormat: "15:04:05.000"})
	log.SetOutput(io.Discard)
	if err := os.MkdirAll(dir, 0o755); err == nil {
		if f, err := os.OpenFile(filepath.Join(dir, file), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			log.SetOutput(f)
		}
	}
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

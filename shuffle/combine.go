package shuffle

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
)

// CommandCombiner runs a combiner program, as Streaming's PipeCombiner
// does, once per call: the records go to its stdin as "key SEP value"
// lines and its stdout lines, cut by Out, are the combined records.
type CommandCombiner struct {
	Argv []string
	Dir  string
	Env  []string
	// InSeparator goes between key and value on stdin (TAB).
	InSeparator []byte
	Out         Splitter
	// Stderr receives the program's stderr (nil: discarded).
	Stderr io.Writer
}

// Combine runs the program over in and emits its output records.
func (cc CommandCombiner) Combine(in Source, emit func(key, value []byte) error) error {
	if len(cc.Argv) == 0 {
		return errors.New("combiner: empty command")
	}
	cmd := exec.Command(cc.Argv[0], cc.Argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = cc.Dir, cc.Env, cc.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting combiner %q: %w", cc.Argv[0], err)
	}
	fed := make(chan error, 1)
	go func() {
		lw := NewLineWriter(stdin, cc.InSeparator)
		var err error
		for {
			k, v, nerr := in.Next()
			if nerr == io.EOF {
				break
			}
			if nerr != nil {
				err = nerr
				break
			}
			if err = lw.Write(k, v); err != nil {
				break
			}
		}
		if ferr := lw.Flush(); err == nil {
			err = ferr
		}
		if cerr := stdin.Close(); err == nil {
			err = cerr
		}
		fed <- err
	}()
	lr := NewLineReader(stdout)
	var emitErr error
	for {
		line, err := lr.Next()
		if err != nil {
			if err != io.EOF {
				emitErr = err
			}
			break
		}
		if emitErr = emit(cc.Out.Split(line)); emitErr != nil {
			break
		}
	}
	if emitErr != nil {
		_ = cmd.Process.Kill() // its output cannot be used any more
		_, _ = io.Copy(io.Discard, stdout)
	}
	feedErr := <-fed
	waitErr := cmd.Wait()
	switch {
	case emitErr != nil:
		return emitErr
	case waitErr != nil:
		return fmt.Errorf("combiner %q: %w", cc.Argv[0], waitErr)
	case feedErr != nil:
		return fmt.Errorf("feeding combiner %q: %w", cc.Argv[0], feedErr)
	}
	return nil
}

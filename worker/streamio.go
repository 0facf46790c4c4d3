package worker

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/fsys"
	"github.com/ebb-am/ebb/proto/ebbpb"
	"github.com/ebb-am/ebb/shuffle"
)

// Stream vertices (dag.StreamSpec): the worker, not the program, reads the
// vertex's splits into its stdin (or the merged, sorted records of its
// partition from every producer), and reads its stdout as key/value
// records into the keyed shuffle of its outgoing edge (package shuffle),
// or, for a sink, into output/part as TextOutputFormat's lines.
//
// The sort buffer lives in the worker's own memory, not the attempt's
// process group, so the worker holds it to the attempt's budget:
// sortBufferMB, or a quarter of the attempt's memoryMB.

// streamIOOf is the attempt's stream settings, nil for other vertices.
func streamIOOf(req *ebbpb.RunAttempt) (*dag.StreamIO, error) {
	s, ok := req.GetEnv()[dag.EnvStream]
	if !ok {
		return nil, nil
	}
	return dag.DecodeStreamIO(s)
}

// streamRun is one attempt's stdin feeder and stdout reader.
type streamRun struct {
	w   *worker
	a   *attempt
	sio *dag.StreamIO

	stdinR, stdinW   *os.File
	stdoutR, stdoutW *os.File

	fed      chan error // the feeder's end
	read     chan error // the reader's end
	inputN   int64      // records (or lines) fed; read after fed
	sinkPath string
	// combinerStderr is the combiners' log, open while the shuffle runs.
	combinerStderr *os.File

	// rep reads the reporter lines of the program's (and its combiners')
	// stderr, which comes through stderrR; errs ends when it is read.
	rep              *reporter
	stderrR, stderrW *os.File
	stderrLog        io.Writer
	errs             chan error
}

// sep is s's bytes, TAB when empty.
func sep(s string) []byte {
	if s == "" {
		return []byte{'\t'}
	}
	return []byte(s)
}

// setupStream prepares a stream vertex's attempt (nil for other
// vertices): Streaming's variables in cmd's environment, the vertex's
// files in its directory, pipes for its stdin and stdout.
func (w *worker) setupStream(a *attempt, cmd *exec.Cmd) (*streamRun, error) {
	sio, err := streamIOOf(a.req)
	if err != nil || sio == nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, streamEnv(a.req, sio)...)
	if err := w.placeFiles(a, sio.Stream.Files); err != nil {
		return nil, err
	}
	return w.setupStreamIO(a, cmd, sio)
}

// end is finish for any attempt (r may be nil): the stream's error, and
// the program's exit as the attempt counts it (none under ignoreExitCode).
func (r *streamRun) end(waitErr error) (ioErr, exitErr error) {
	if r == nil {
		return nil, waitErr
	}
	ioErr = r.finish(waitErr)
	if waitErr != nil && r.sio.Stream.IgnoreExitCode {
		r.a.log.WithError(waitErr).Info("the program's exit is not a failure (ignoreExitCode)")
		waitErr = nil
	}
	return ioErr, waitErr
}

// setupStreamIO wires cmd's stdin and stdout; start begins the goroutines
// once the command runs.
func (w *worker) setupStreamIO(a *attempt, cmd *exec.Cmd, sio *dag.StreamIO) (*streamRun, error) {
	r := &streamRun{w: w, a: a, sio: sio, fed: make(chan error, 1), read: make(chan error, 1), errs: make(chan error, 1),
		rep: newReporter(sio.Stream.ReporterPrefix, a.log), stderrLog: cmd.Stderr}
	var err error
	if r.stdinR, r.stdinW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("making the stdin pipe: %w", err)
	}
	if r.stdoutR, r.stdoutW, err = os.Pipe(); err != nil {
		r.closeAll()
		return nil, fmt.Errorf("making the stdout pipe: %w", err)
	}
	// A pipe of its own, not an io.Writer: exec would wait for a writer's
	// copy, which a child the program left running could hold open.
	if r.stderrR, r.stderrW, err = os.Pipe(); err != nil {
		r.closeAll()
		return nil, fmt.Errorf("making the stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r.stdinR, r.stdoutW, r.stderrW
	a.mu.Lock()
	a.rep = r.rep
	a.mu.Unlock()
	return r, nil
}

func (r *streamRun) closeAll() {
	for _, f := range []*os.File{r.stdinR, r.stdinW, r.stdoutR, r.stdoutW, r.stderrR, r.stderrW} {
		if f != nil {
			_ = f.Close() // pipes: nothing to lose
		}
	}
}

// start closes the child's ends in the worker and starts feeding and
// reading.
func (r *streamRun) start() {
	if r == nil {
		return
	}
	_ = r.stdinR.Close() // the child holds its own copies
	_ = r.stdoutW.Close()
	_ = r.stderrW.Close()
	go func() { r.errs <- r.readStderr() }()
	go func() { r.fed <- r.feed() }()
	go func() { r.read <- r.readOutput() }()
}

// abort releases the pipes when the command did not start.
func (r *streamRun) abort() {
	if r != nil {
		r.closeAll()
	}
}

// finish waits for the feeder and the reader once the command (and its
// process group) is gone, and says what went wrong, if anything. A reduce
// whose partition held no record has its output dropped, as on Hadoop.
func (r *streamRun) finish(waitErr error) error {
	feedErr := <-r.fed
	readErr := <-r.read
	if err := <-r.errs; err != nil {
		// The log is lost, not the output: the attempt goes on.
		r.a.log.WithError(err).Warn("writing the program's stderr log")
	}
	switch {
	case feedErr != nil && waitErr == nil:
		return fmt.Errorf("feeding the program's stdin: %w", feedErr)
	case readErr != nil:
		return fmt.Errorf("reading the program's stdout: %w", readErr)
	case r.sio.In != nil && r.inputN == 0:
		return r.discardOutput()
	}
	return nil
}

// feed writes the program's stdin and closes it.
func (r *streamRun) feed() error {
	bw := bufio.NewWriterSize(r.stdinW, 64<<10)
	var err error
	switch {
	case r.sio.In != nil:
		err = r.feedMerged(bw)
	case len(r.a.req.GetSplits()) > 0:
		err = r.feedSplits(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := r.stdinW.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("the program closed its stdin before reading all its input (as on Hadoop, a failure): %w", err)
	}
	return err
}

// feedSplits writes the lines of every split in the input format.
func (r *streamRun) feedSplits(bw *bufio.Writer) error {
	st := r.sio.Stream
	f := shuffle.InputFormat{KeyValue: st.InputFormat == dag.FormatKeyValue, KVSeparator: '\t', Separator: sep(st.InputSeparator)}
	if st.KeyValueSeparator != "" {
		f.KVSeparator = st.KeyValueSeparator[0]
	}
	for _, sp := range r.a.req.GetSplits() {
		if c, ok := fsys.CodecOf(sp.GetPath()); ok {
			n, err := r.feedCompressed(bw, f, c, sp)
			r.inputN += n
			if err != nil {
				return err
			}
			continue
		}
		in, err := r.w.openSplit(r.a, sp.GetPath())
		if err != nil {
			return err
		}
		pr, pw := io.Pipe()
		go func() {
			_, err := copyInputSplit(pw, in, sp)
			_ = pw.CloseWithError(err)
		}()
		n, err := f.FeedSplit(bw, pr, sp.GetOffset() == 0)
		_ = pr.CloseWithError(errors.New("stopped reading")) // releases the copier if FeedSplit stopped early
		_ = in.Close()                                       // read-only
		r.inputN += n
		if err != nil {
			return fmt.Errorf("%s [%d+%d]: %w", sp.GetPath(), sp.GetOffset(), sp.GetLength(), err)
		}
	}
	return nil
}

// feedCompressed writes the lines of a compressed file, read whole and
// decompressed by its suffix's codec, as Hadoop's LineRecordReader reads
// a file it cannot split.
func (r *streamRun) feedCompressed(bw *bufio.Writer, f shuffle.InputFormat, c fsys.Codec, sp *ebbpb.InputSplit) (int64, error) {
	if sp.GetOffset() != 0 {
		return 0, fmt.Errorf("%s [%d+%d]: a compressed file is read whole, from its start (give the vertex a splitSize)", sp.GetPath(), sp.GetOffset(), sp.GetLength())
	}
	in, err := r.w.openSplit(r.a, sp.GetPath())
	if err != nil {
		return 0, err
	}
	defer func() { _ = in.Close() }() // read-only
	dec, err := c.Open(sp.GetPath(), in)
	if err != nil {
		return 0, err
	}
	defer func() { _ = dec.Close() }() // a decompressor: nothing to lose
	n, err := f.FeedSplit(bw, dec, true)
	if err != nil {
		return n, fmt.Errorf("%s: %w", sp.GetPath(), err)
	}
	return n, nil
}

// feedMerged writes the merge of every producer's sorted partition as
// "key SEP value" lines.
func (r *streamRun) feedMerged(bw *bufio.Writer) error {
	cmp, err := comparator(r.sio.In)
	if err != nil {
		return err
	}
	paths, err := inputFiles(r.a.inputDir())
	if err != nil {
		return err
	}
	lw := shuffle.NewLineWriter(bw, sep(r.sio.Stream.InputSeparator))
	err = shuffle.MergeFiles(paths, cmp, filepath.Join(r.a.dir, "merge"), lw.Write)
	r.inputN = lw.Records
	if err == nil {
		err = lw.Flush()
	}
	return err
}

// inputFiles lists input/<producer>/<task> in producer task order, so
// records with equal keys reach the program in that order.
func inputFiles(dir string) ([]string, error) {
	var paths []string
	producers, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range producers {
		if !p.IsDir() || p.Name() == "_splits" {
			continue
		}
		tasks, err := os.ReadDir(filepath.Join(dir, p.Name()))
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(tasks))
		for _, t := range tasks {
			names = append(names, t.Name())
		}
		slices.SortFunc(names, func(a, b string) int {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		})
		for _, n := range names {
			paths = append(paths, filepath.Join(dir, p.Name(), n))
		}
	}
	return paths, nil
}

// comparator is the order of a shuffle's keys.
func comparator(sh *dag.ShuffleSpec) (shuffle.Compare, error) {
	kf, err := shuffle.ParseKeyFields(sh.SortOptions, sep(sh.KeyFieldSeparator))
	if err != nil {
		return nil, fmt.Errorf("sortOptions: %w", err)
	}
	return kf.Compare, nil
}

func partitioner(sh *dag.ShuffleSpec) (shuffle.Partitioner, error) {
	if sh.Partitioner != dag.PartitionKeyField {
		return shuffle.HashPartitioner{}, nil
	}
	kf, err := shuffle.ParseKeyFields(sh.PartitionerOptions, sep(sh.KeyFieldSeparator))
	if err != nil {
		return nil, fmt.Errorf("partitionerOptions: %w", err)
	}
	return shuffle.KeyFieldPartitioner{Fields: kf}, nil
}

// readStderr passes the program's stderr to its log, less the reporter's
// lines, to its end.
func (r *streamRun) readStderr() error {
	defer func() { _ = r.stderrR.Close() }() // read end: nothing to lose
	rw := &reporterWriter{r: r.rep, out: r.stderrLog}
	_, err := io.Copy(rw, r.stderrR)
	if ferr := rw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		_, _ = io.Copy(io.Discard, r.stderrR) // the program must not block on a full pipe
	}
	return err
}

// counters and status are what the attempt reported (none for a nil r).
func (r *streamRun) counters() []*ebbpb.Counter {
	if r == nil {
		return nil
	}
	return r.rep.counters()
}

func (r *streamRun) status() string {
	if r == nil {
		return ""
	}
	return r.rep.currentStatus()
}

// readOutput reads the program's stdout to its end.
func (r *streamRun) readOutput() error {
	defer func() { _ = r.stdoutR.Close() }() // read end: nothing to lose
	lr := shuffle.NewLineReader(r.stdoutR)
	st := r.sio.Stream
	split := shuffle.Splitter{Separator: sep(st.OutputSeparator), KeyFields: st.KeyFields}
	var add func(k, v []byte) error
	var done func() error
	var err error
	if r.sio.Out != nil {
		add, done, err = r.collect()
	} else {
		add, done, err = r.sink()
	}
	if err != nil {
		_, _ = io.Copy(io.Discard, r.stdoutR) // the program must not block on a full pipe
		return err
	}
	for {
		line, rerr := lr.Next()
		if rerr == io.EOF {
			break
		}
		if rerr == nil {
			rerr = add(split.Split(line))
		}
		if rerr != nil {
			_, _ = io.Copy(io.Discard, r.stdoutR)
			return rerr
		}
	}
	return done()
}

// sink writes records to output/part as TextOutputFormat does, creating
// it at the first record under lazyOutput.
func (r *streamRun) sink() (add func(k, v []byte) error, done func() error, err error) {
	st := r.sio.Stream
	r.sinkPath = filepath.Join(r.a.outputDir(), "part")
	var f *os.File
	var lw *shuffle.LineWriter
	open := func() error {
		var err error
		if f, err = os.Create(r.sinkPath); err != nil {
			return fmt.Errorf("creating output: %w", err)
		}
		lw = shuffle.NewLineWriter(f, sep(st.SinkSeparator))
		return nil
	}
	if !st.LazyOutput {
		if err := open(); err != nil {
			return nil, nil, err
		}
	}
	add = func(k, v []byte) error {
		if f == nil {
			if err := open(); err != nil {
				return err
			}
		}
		return lw.Write(k, v)
	}
	done = func() error {
		if f == nil {
			return nil
		}
		err := lw.Flush()
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
	return add, done, nil
}

// collect feeds records into the keyed shuffle of the outgoing edge.
func (r *streamRun) collect() (add func(k, v []byte) error, done func() error, err error) {
	outs := r.a.req.GetOutputs()
	if len(outs) != 1 {
		return nil, nil, fmt.Errorf("a stream vertex with a shuffle has one outgoing edge, this attempt has %d", len(outs))
	}
	out := outs[0]
	sh := r.sio.Out
	cmp, err := comparator(sh)
	if err != nil {
		return nil, nil, err
	}
	part, err := partitioner(sh)
	if err != nil {
		return nil, nil, err
	}
	budget := r.sio.Stream.SortBufferMB << 20
	if budget == 0 {
		budget = r.a.req.GetMemoryMb() << 20 / 4
	}
	cfg := shuffle.Config{
		Partitions: int(out.GetPartitions()), Partitioner: part, Compare: cmp,
		BufferBytes: budget, Dir: filepath.Join(r.a.dir, "spills"),
	}
	if c := sh.Combiner; c != nil {
		cc := shuffle.CommandCombiner{
			Argv: r.w.resolveArgv(c.Command), Dir: r.a.dir, Env: r.w.taskEnv(r.a, nil),
			InSeparator: sep(c.InputSeparator),
			Out:         shuffle.Splitter{Separator: sep(c.OutputSeparator), KeyFields: c.KeyFields},
		}
		// The combiners' stderr goes to the attempt's log directory, beside
		// the program's; it is closed once the shuffle is written.
		stderr, err := os.OpenFile(filepath.Join(r.w.o.LogDir, r.a.req.GetAttemptId()+".combiner.stderr"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("creating the combiner's stderr log: %w", err)
		}
		r.combinerStderr = stderr
		cc.Stderr = &reporterWriter{r: r.rep, out: stderr}
		cfg.Combine, cfg.CombineMinSpills = cc.Combine, c.MinSpills
	}
	col := shuffle.NewCollector(cfg)
	dir := filepath.Join(r.a.outputDir(), out.GetConsumer())
	done = func() error {
		defer col.Cleanup()
		if r.combinerStderr != nil {
			defer func() { _ = r.combinerStderr.Close() }() // a log: losing its tail fails nothing
		}
		if err := col.Finish(func(p int) (io.WriteCloser, error) {
			return os.Create(filepath.Join(dir, strconv.Itoa(p)))
		}); err != nil {
			return err
		}
		r.a.log.WithField("records", col.Stats.Records).WithField("spills", col.Stats.Spills).
			WithField("combines", col.Stats.CombineRuns).Info("shuffle output written")
		return nil
	}
	return col.Add, done, nil
}

// discardOutput empties what the program wrote: Hadoop drops a reducer's
// output when its partition held no records.
func (r *streamRun) discardOutput() error {
	if r.sinkPath == "" {
		return nil
	}
	if r.sio.Stream.LazyOutput {
		if err := os.Remove(r.sinkPath); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	return os.Truncate(r.sinkPath, 0)
}

// resolveArgv maps an argv[0] of "ebb" to the worker's own executable.
func (w *worker) resolveArgv(argv []string) []string {
	if len(argv) > 0 && argv[0] == "ebb" {
		return append([]string{w.o.Executable}, argv[1:]...)
	}
	return argv
}

// streamEnv is what Streaming gives a task beside the job's keys: its
// partition and whether it is a map, as job keys with dots as underscores.
func streamEnv(req *ebbpb.RunAttempt, sio *dag.StreamIO) []string {
	isMap := strconv.FormatBool(sio.In == nil)
	idx := strconv.Itoa(int(req.GetTaskIndex()))
	env := []string{
		"mapreduce_task_partition=" + idx, "mapred_task_partition=" + idx,
		"mapreduce_task_ismap=" + isMap, "mapred_task_is_map=" + isMap,
	}
	if sp := req.GetSplits(); len(sp) > 0 {
		file := sp[0].GetPath()
		if !strings.Contains(file, "://") {
			file = "file:" + file
		}
		env = append(env, "mapreduce_map_input_file="+file, "map_input_file="+file,
			"mapreduce_map_input_start="+strconv.FormatInt(sp[0].GetOffset(), 10),
			"mapreduce_map_input_length="+strconv.FormatInt(sp[0].GetLength(), 10))
	}
	return env
}

// placeFiles puts the vertex's files into the attempt's directory: a
// symbolic link to a local file, a copy (made executable, as Streaming
// makes a shipped program) of a remote one.
func (w *worker) placeFiles(a *attempt, files []string) error {
	for _, f := range files {
		src, name, _ := strings.Cut(f, "#")
		if name == "" {
			name = filepath.Base(src)
		}
		if !safeSegment(name) {
			return fmt.Errorf("file %q: %q is not a usable file name", f, name)
		}
		dst := filepath.Join(a.dir, name)
		if !strings.Contains(src, "://") {
			if err := os.Symlink(src, dst); err != nil {
				return fmt.Errorf("linking file %s: %w", src, err)
			}
			continue
		}
		if err := w.copyFile(a, src, dst); err != nil {
			return err
		}
	}
	return nil
}

func (w *worker) copyFile(a *attempt, src, dst string) error {
	in, err := w.openSplit(a, src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read-only
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copying file %s: %w", src, err)
	}
	return nil
}

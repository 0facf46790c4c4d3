package scheduler

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Scenario scripts for the autoscaler, in etcd raft's manner: each file in
// testdata/autoscale is a sequence of blocks
//
//	# comments
//	command key=value ...
//	----
//	expected output (no blank line)
//
// separated by blank lines. `go test ./scheduler -run Scenario -update`
// rewrites the expected outputs from what the code does now; review the
// diff before committing it.
//
// Commands (times t in seconds from the script's epoch, durations in
// seconds):
//
//	config  key=value ...  a fresh autoscaler on the defaults with these
//	                       changes: interval window scheme out in out-grace
//	                       in-delay in-grace min-hosts wait-dag initial
//	                       increment decrement predictive billing boot
//	                       headroom; target (the p95 slowdown: 2 gives a
//	                       horizon of 120 s until a DAG is observed);
//	                       the group figures and nodes stay
//	clear                  forget the group figures and the nodes
//	group   key=value ...  the snapshot's group figures, kept until changed:
//	                       workers pending queued queuedmb workermb
//	                       dags (a,b or -) mean running ramp (- for none)
//	                       qwork rwork wwork (MB·s) unknown room
//	node    ID key=value   add or replace a node: workers attempts mb
//	                       outputs paid (t) left (s); `node ID gone`
//	                       removes it
//	sample  t running offered workers attempts
//	step    t [group keys] Step at t; prints the decision
//	usage                  the usage as of the last step
//	history                the transitions so far
//	thresholds out in min-hosts   SetThresholds
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the expected output of scenario scripts")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func TestAutoscaleScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "autoscale", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario scripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			runScenario(t, file)
		})
	}
}

type block struct {
	comments []string
	cmd      string
	line     int // of cmd, for messages
	want     []string
}

func readBlocks(t *testing.T, file string) []block {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []block
	var b block
	inOutput := false
	flush := func() {
		if b.cmd != "" {
			blocks = append(blocks, b)
		} else if len(b.comments) > 0 {
			t.Fatalf("%s: comments with no command before them", file)
		}
		b, inOutput = block{}, false
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case inOutput:
			b.want = append(b.want, line)
		case strings.HasPrefix(line, "#"):
			b.comments = append(b.comments, line)
		case line == "----":
			if b.cmd == "" {
				t.Fatalf("%s:%d: ---- with no command", file, n)
			}
			inOutput = true
		case b.cmd != "":
			t.Fatalf("%s:%d: a second command in one block (missing ----?)", file, n)
		default:
			b.cmd, b.line = line, n
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

func runScenario(t *testing.T, file string) {
	blocks := readBlocks(t, file)
	h := &harness{}
	h.clear()
	h.configure(nil)
	var out strings.Builder
	for i, b := range blocks {
		// One output line per line, even when a message spans several.
		var got []string
		if out := h.run(t, file, b); len(out) > 0 {
			got = strings.Split(strings.Join(out, "\n"), "\n")
		}
		if updating() {
			if i > 0 {
				out.WriteString("\n")
			}
			for _, c := range b.comments {
				out.WriteString(c + "\n")
			}
			out.WriteString(b.cmd + "\n----\n")
			for _, l := range got {
				out.WriteString(l + "\n")
			}
			continue
		}
		if !slices.Equal(got, b.want) {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", file, b.line, b.cmd,
				strings.Join(got, "\n"), strings.Join(b.want, "\n"))
		}
	}
	if updating() {
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// harness holds one script's autoscaler and the snapshot it is shown.
type harness struct {
	a     *Autoscaler
	snap  GroupSnapshot
	nodes map[string]NodeLoad
}

func (h *harness) configure(kv map[string]string) []string {
	c := DefaultAutoscaleConfig()
	for k, v := range kv {
		if err := setConfigKey(&c, k, v); err != nil {
			return []string{"error: " + err.Error()}
		}
	}
	a, err := NewAutoscaler("etl", c)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	h.a = a
	return []string{"ok"}
}

// clear forgets the group figures and the nodes.
func (h *harness) clear() {
	h.snap, h.nodes = GroupSnapshot{WorkerMB: 1000}, map[string]NodeLoad{}
}

func (h *harness) run(t *testing.T, file string, b block) []string {
	t.Helper()
	fields := strings.Fields(b.cmd)
	name, args := fields[0], fields[1:]
	fail := func(err error) []string {
		t.Fatalf("%s:%d: %s: %v", file, b.line, b.cmd, err)
		return nil
	}
	switch name {
	case "config":
		kv, err := keyValues(args)
		if err != nil {
			return fail(err)
		}
		return h.configure(kv)
	case "clear":
		h.clear()
		return nil
	case "group":
		kv, err := keyValues(args)
		if err == nil {
			err = h.setGroup(kv)
		}
		if err != nil {
			return fail(err)
		}
		return nil
	case "node":
		if err := h.setNode(args); err != nil {
			return fail(err)
		}
		return nil
	case "sample":
		kv, err := keyValues(args)
		if err != nil {
			return fail(err)
		}
		s, err := parseSample(kv)
		if err != nil {
			return fail(err)
		}
		h.a.Sample(s)
		return nil
	case "step":
		kv, err := keyValues(args)
		if err != nil {
			return fail(err)
		}
		now, err := takeTime(kv, "t")
		if err == nil {
			err = h.setGroup(kv)
		}
		if err != nil {
			return fail(err)
		}
		return formatDecision(h.a.Step(now, h.snapshot()))
	case "usage":
		p, ok := h.a.Usage()
		if !ok {
			return []string{"usage unknown"}
		}
		return []string{"usage " + percentText(p) + "%"}
	case "history":
		var lines []string
		for _, tr := range h.a.History() {
			lines = append(lines, fmt.Sprintf("t=%s %s → %s: %s", secs(tr.At.Sub(at(0))), tr.From, tr.To, tr.Reason))
		}
		return lines
	case "thresholds":
		kv, err := keyValues(args)
		if err != nil {
			return fail(err)
		}
		n := map[string]int{}
		for _, k := range []string{"out", "in", "min-hosts"} {
			if n[k], err = strconv.Atoi(kv[k]); err != nil {
				return fail(fmt.Errorf("%s: %w", k, err))
			}
		}
		if err := h.a.SetThresholds(n["out"], n["in"], n["min-hosts"]); err != nil {
			return []string{"error: " + err.Error()}
		}
		return []string{"ok"}
	}
	return fail(fmt.Errorf("unknown command %q", name))
}

// snapshot is the group figures with the nodes in ID order.
func (h *harness) snapshot() GroupSnapshot {
	s := h.snap
	s.Nodes = nil
	ids := make([]string, 0, len(h.nodes))
	for id := range h.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s.Nodes = append(s.Nodes, h.nodes[id])
	}
	return s
}

func formatDecision(d Decision) []string {
	var lines []string
	if d.From != d.To {
		lines = append(lines, fmt.Sprintf("%s → %s: %s", d.From, d.To, d.Reason))
	} else {
		lines = append(lines, fmt.Sprintf("%s: %s", d.From, d.Reason))
	}
	if d.RequestWorkers > 0 {
		lines = append(lines, fmt.Sprintf("request %d", d.RequestWorkers))
	}
	if d.CancelPending {
		lines = append(lines, "cancel pending")
	}
	if len(d.DrainNodes) > 0 {
		lines = append(lines, "drain "+strings.Join(d.DrainNodes, ", "))
	}
	if len(d.WaitForDAGs) > 0 {
		lines = append(lines, "wait for "+strings.Join(d.WaitForDAGs, ", "))
	}
	return lines
}

func keyValues(args []string) (map[string]string, error) {
	kv := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not key=value", a)
		}
		kv[k] = v
	}
	return kv, nil
}

func seconds(v string) (time.Duration, error) {
	f, err := strconv.ParseFloat(v, 64)
	return time.Duration(f * float64(time.Second)), err
}

func takeTime(kv map[string]string, k string) (time.Time, error) {
	v, ok := kv[k]
	if !ok {
		return time.Time{}, fmt.Errorf("%s= missing", k)
	}
	delete(kv, k)
	d, err := seconds(v)
	return at(0).Add(d), err
}

func setConfigKey(c *AutoscaleConfig, k, v string) error {
	durations := map[string]*time.Duration{
		"interval": &c.Interval, "window": &c.Window, "out-grace": &c.OutGracePeriod,
		"in-delay": &c.InDelayAfterScaleOut, "in-grace": &c.InGracePeriod,
		"billing": &c.BillingPeriod, "boot": &c.BootTime,
		"headroom": &c.HeadroomWindow,
	}
	ints := map[string]*int{
		"out": &c.OutThresholdPercent, "in": &c.InThresholdPercent, "min-hosts": &c.MinHosts,
		"initial": &c.InitialWorkers, "increment": &c.IncrementWorkers, "decrement": &c.DecrementHosts,
	}
	bools := map[string]*bool{"wait-dag": &c.WaitDAGFinished, "predictive": &c.Predictive}
	var err error
	switch {
	case durations[k] != nil:
		*durations[k], err = seconds(v)
	case ints[k] != nil:
		*ints[k], err = strconv.Atoi(v)
	case bools[k] != nil:
		*bools[k], err = strconv.ParseBool(v)
	case k == "target":
		c.TargetSlowdown, err = strconv.ParseFloat(v, 64)
	case k == "scheme":
		c.Scheme, err = ParseUsageScheme(v)
	default:
		err = fmt.Errorf("unknown config key %q", k)
	}
	return err
}

func (h *harness) setGroup(kv map[string]string) error {
	ints := map[string]*int{
		"workers": &h.snap.Workers, "pending": &h.snap.PendingWorkers,
		"queued": &h.snap.QueuedAttempts, "running": &h.snap.RunningAttempts,
		"unknown": &h.snap.UnknownQueued, "room": &h.snap.RoomWorkers,
	}
	works := map[string]*float64{"qwork": &h.snap.QueuedWork, "rwork": &h.snap.RunningWork, "wwork": &h.snap.WaitingWork}
	mbs := map[string]*int64{"queuedmb": &h.snap.QueuedMB, "workermb": &h.snap.WorkerMB}
	for k, v := range kv {
		var err error
		switch {
		case ints[k] != nil:
			*ints[k], err = strconv.Atoi(v)
		case mbs[k] != nil:
			*mbs[k], err = strconv.ParseInt(v, 10, 64)
		case works[k] != nil:
			*works[k], err = strconv.ParseFloat(v, 64)
		case k == "mean":
			h.snap.MeanAttemptDuration, err = seconds(v)
		case k == "ramp":
			h.snap.Ramp = strings.TrimPrefix(v, "-")
		case k == "dags":
			h.snap.ActiveDAGs = nil
			if v != "-" {
				h.snap.ActiveDAGs = strings.Split(v, ",")
			}
		default:
			err = fmt.Errorf("unknown group key %q", k)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

func (h *harness) setNode(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("node needs an ID")
	}
	id := args[0]
	if len(args) == 2 && args[1] == "gone" {
		delete(h.nodes, id)
		return nil
	}
	kv, err := keyValues(args[1:])
	if err != nil {
		return err
	}
	n := NodeLoad{ID: id}
	for k, v := range kv {
		switch k {
		case "workers":
			n.Workers, err = strconv.Atoi(v)
		case "attempts":
			n.RunningAttempts, err = strconv.Atoi(v)
		case "mb":
			n.RunningMB, err = strconv.ParseInt(v, 10, 64)
		case "outputs":
			n.NeededOutputs, err = strconv.Atoi(v)
		case "paid":
			n.PaidUntil, err = takeTime(map[string]string{"t": v}, "t")
		case "left":
			n.Remaining, err = seconds(v)
		default:
			err = fmt.Errorf("unknown node key %q", k)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	h.nodes[id] = n
	return nil
}

func parseSample(kv map[string]string) (Sample, error) {
	now, err := takeTime(kv, "t")
	if err != nil {
		return Sample{}, err
	}
	s := Sample{At: now}
	for k, v := range kv {
		switch k {
		case "running":
			s.RunningMB, err = strconv.ParseInt(v, 10, 64)
		case "offered":
			s.OfferedMB, err = strconv.ParseInt(v, 10, 64)
		case "workers":
			s.Workers, err = strconv.Atoi(v)
		case "attempts":
			s.RunningAttempts, err = strconv.Atoi(v)
		default:
			err = fmt.Errorf("unknown sample key %q", k)
		}
		if err != nil {
			return Sample{}, fmt.Errorf("%s: %w", k, err)
		}
	}
	return s, nil
}

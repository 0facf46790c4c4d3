package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// The cluster autoscaler's scale-down rules (ca.go), one scripted scan at a
// time. t0 is the start; times are seconds after it.
func TestCAScaleDownRules(t *testing.T) {
	t0 := time.Unix(0, 0).UTC()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	empty := func(id string) caNode { return caNode{id: id, ready: true} }
	busy := func(id string) caNode { return caNode{id: id, ready: true, memFrac: 0.25, cpuFrac: 0.125, pods: 1} }
	noScaleUp := at(-3600)
	type scan struct {
		at      int
		scaleUp time.Time
		nodes   []caNode
		want    []string
		why     string
	}
	for _, tc := range []struct {
		name  string
		scans []scan
	}{
		{"an empty node goes after 10 min unneeded", []scan{
			// Found unneeded at 0; 590 s is short of 600: kept; at 600
			// it has been unneeded 10 min: deleted.
			{0, noScaleUp, []caNode{empty("a")}, nil, "first seen"},
			{590, noScaleUp, []caNode{empty("a")}, nil, "590 s < 600 s"},
			{600, noScaleUp, []caNode{empty("a")}, []string{"a"}, "600 s"},
		}},
		{"a pod resets the timer", []scan{
			// Unneeded at 0, a worker pod lands before 300: the node
			// is not unneeded at 300 and loses its timestamp
			// (Nodes.Update); empty again at 310, so due at 910, not 600.
			{0, noScaleUp, []caNode{empty("a")}, nil, ""},
			{300, noScaleUp, []caNode{busy("a")}, nil, "holds an ebb pod"},
			{310, noScaleUp, []caNode{empty("a")}, nil, "unneeded again from 310"},
			{600, noScaleUp, []caNode{empty("a")}, nil, "only 290 s"},
			{900, noScaleUp, []caNode{empty("a")}, nil, "590 s"},
			{910, noScaleUp, []caNode{empty("a")}, []string{"a"}, "600 s"},
		}},
		{"a node holding a pod is never unneeded, even far below 50%", []scan{
			{0, noScaleUp, []caNode{busy("a")}, nil, ""},
			{3600, noScaleUp, []caNode{busy("a")}, nil, "an ebb pod cannot be moved"},
		}},
		{"requests at or above the threshold keep a node", []scan{
			// 0.5 is not below 0.5 (memory); nor is cpu 0.5; 0.49
			// both ways is.
			{0, noScaleUp, []caNode{{id: "m", ready: true, memFrac: 0.5}, {id: "c", ready: true, cpuFrac: 0.5}, {id: "u", ready: true, memFrac: 0.49, cpuFrac: 0.49}}, nil, ""},
			{600, noScaleUp, []caNode{{id: "m", ready: true, memFrac: 0.5}, {id: "c", ready: true, cpuFrac: 0.5}, {id: "u", ready: true, memFrac: 0.49, cpuFrac: 0.49}}, []string{"u"}, ""},
		}},
		{"a node not ready is not unneeded", []scan{
			{0, noScaleUp, []caNode{{id: "a"}}, nil, ""},
			{600, noScaleUp, []caNode{{id: "a"}}, nil, ""},
		}},
		{"the delay after a scale-up holds deletion, not the timers", []scan{
			// Unneeded from 0; a node is requested at 300, so nothing
			// is deleted before 300 + 600 = 900; the timer kept
			// running, so at 900 the node (unneeded 900 s) goes at once.
			{0, noScaleUp, []caNode{empty("a")}, nil, ""},
			{300, at(300), []caNode{empty("a")}, nil, ""},
			{600, at(300), []caNode{empty("a")}, nil, "unneeded 600 s, but 300 s after a scale-up"},
			{890, at(300), []caNode{empty("a")}, nil, "590 s after it"},
			{900, at(300), []caNode{empty("a")}, []string{"a"}, "600 s after it"},
		}},
		{"a node found unneeded during the delay after a scale-up keeps that time", []scan{
			// A node requested at 0 comes up empty by the scan at 10,
			// inside the delay (which ends at 600): unneeded since 10,
			// so due at 610, not 600 + 600.
			{10, at(0), []caNode{empty("a")}, nil, "in the delay"},
			{600, at(0), []caNode{empty("a")}, nil, "590 s unneeded"},
			{610, at(0), []caNode{empty("a")}, []string{"a"}, "600 s unneeded"},
		}},
		{"at most 10 empty nodes per loop, longest unneeded first", []scan{
			// n0..n11 found unneeded at 0, n11 at 10 (it came up
			// later). At 600 n0..n10 are due; ten of them go (n0..n9,
			// all unneeded since 0, kept in listing order); at 610
			// n10 (since 0) and n11 (since 10) both are: both go.
			{0, noScaleUp, emptyNodes(11), nil, ""},
			{10, noScaleUp, emptyNodes(12), nil, ""},
			{600, noScaleUp, emptyNodes(12), nodeIDs(0, 10), ""},
			{610, noScaleUp, emptyNodes(12)[10:], []string{"n10", "n11"}, ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newCAState()
			for _, sc := range tc.scans {
				got := s.loop(at(sc.at), sc.scaleUp, sc.nodes)
				if !slices.Equal(got, sc.want) {
					t.Fatalf("scan at %d s (%s): deleted %v, want %v", sc.at, sc.why, got, sc.want)
				}
			}
		})
	}
}

// The scan interval: a loop every 10 s of the sim's finer tick.
func TestCAScanInterval(t *testing.T) {
	t0 := time.Unix(0, 0).UTC()
	s := newCAState()
	var scans []int
	for sec := 0; sec <= 25; sec += 5 {
		now := t0.Add(time.Duration(sec) * time.Second)
		if s.due(now) {
			s.loop(now, t0.Add(-time.Hour), nil)
			scans = append(scans, sec)
		}
	}
	if !slices.Equal(scans, []int{0, 10, 20}) {
		t.Errorf("scans at %v s, want [0 10 20]", scans)
	}
}

func emptyNodes(n int) []caNode {
	out := make([]caNode, n)
	for i := range out {
		out[i] = caNode{id: fmt.Sprintf("n%d", i), ready: true}
	}
	return out
}

func nodeIDs(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("n%d", i))
	}
	return out
}

// ebb under the cluster autoscaler, end to end (testConfig: 10,000 MB
// nodes, 100 s boot, 10 s reclaim delay, 1 s tick). Job a (one 8000 MB
// task of 50 s) arrives at 0: the node is requested at the first tick (1 s),
// up at 101, the task runs 101..151. ebb's warm headroom keeps the idle
// worker for its 900 s window: it stops at 151 + 900 = 1051.
//
//   - ebb gives the empty node back after the reclaim delay: at 1061, so
//     1060 node-seconds. Job b at 1500 needs a new node (requested at 1500,
//     up at 1600, task 1600..1650): 150 more, 1210 in all; b ends at 1650.
//   - ebb-k8s-ca: the CA scans at 1, 11, ..., 1051; at 1051 the worker is
//     still there (it leaves after the tick, at the same instant), so the
//     node is first unneeded at the scan at 1061 and deleted at 1661. b at
//     1500 finds it and runs 1500..1550 at once; the node holds b's worker
//     until the run ends with b at 1550: 1549 node-seconds, b ends at 1550.
//     With b at 2400 instead the node is gone at 1661 (1660 node-seconds,
//     600 more than ebb's 1060: the unneeded time less the reclaim delay,
//     plus the scan the leaving worker hid), and b's own node adds 150:
//     1810.
func TestEbbUnderTheClusterAutoscaler(t *testing.T) {
	for _, tc := range []struct {
		policy     string
		bAt        time.Duration
		nodeSecs   float64
		bFinishSec int
	}{
		{"ebb", 1500 * time.Second, 1210, 1650},
		{"ebb-k8s-ca", 1500 * time.Second, 1549, 1550},
		{"ebb", 2400 * time.Second, 1210, 2550},
		{"ebb-k8s-ca", 2400 * time.Second, 1810, 2550},
	} {
		t.Run(fmt.Sprintf("%s/b-at-%s", tc.policy, tc.bAt), func(t *testing.T) {
			jobs := []Job{job("a", 0, 1, 8000, 50*time.Second, 8000), job("b", tc.bAt, 1, 8000, 50*time.Second, 8000)}
			r := runOne(t, jobs, tc.policy)
			if r.NodeSeconds != tc.nodeSecs {
				t.Errorf("node-seconds %.1f, want %.0f", r.NodeSeconds, tc.nodeSecs)
			}
			for _, j := range r.Jobs {
				if j.ID == "b" && j.Finish != time.Duration(tc.bFinishSec)*time.Second {
					t.Errorf("b ended at %s, want %ds", j.Finish, tc.bFinishSec)
				}
			}
		})
	}
}

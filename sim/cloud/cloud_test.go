package cloud

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

var t0 = time.Unix(0, 0).UTC()

func at(secs float64) time.Time { return t0.Add(time.Duration(secs * float64(time.Second))) }

// Two types: 0.36 per hour is 0.0001 per second; 0.72 is 0.0002.
var types = []NodeType{
	{Name: "small", MemoryMB: 8192, VCores: 4, PricePerHour: 0.36},
	{Name: "big", MemoryMB: 32768, VCores: 16, PricePerHour: 0.72},
}

type life struct {
	typ      string
	from, to float64 // seconds; to < 0 = still running
}

func TestBilling(t *testing.T) {
	cases := []struct {
		name        string
		period, min time.Duration
		nodes       []life
		now         float64
		cost        float64
		nodeSeconds float64
		paid        float64 // seconds billed
	}{
		{
			// small 0..100 s = 100 s x 0.0001 = 0.01; small 50..250 (live)
			// = 200 s x 0.0001 = 0.02; big 10..20.5 = 11 started s x 0.0002 = 0.0022.
			name:  "per second",
			nodes: []life{{"small", 0, 100}, {"small", 50, -1}, {"big", 10, 20.5}},
			now:   250, cost: 0.01 + 0.02 + 0.0022, nodeSeconds: 100 + 200 + 10.5, paid: 100 + 200 + 11,
		},
		{
			// The same lives with a 60 s minimum: 100 + 200 + 60 s.
			name: "per second, 60 s minimum", min: time.Minute,
			nodes: []life{{"small", 0, 100}, {"small", 50, -1}, {"big", 10, 20.5}},
			now:   250, cost: 0.01 + 0.02 + 60*0.0002, nodeSeconds: 310.5, paid: 100 + 200 + 60,
		},
		{
			// Hourly: 100 s pays one hour (0.36); 50..3700 = 3650 s pays two
			// (0.72); big 10 s pays one hour (0.72).
			name: "per hour", period: time.Hour,
			nodes: []life{{"small", 0, 100}, {"small", 50, -1}, {"big", 10, 20.5}},
			now:   3700, cost: 0.36 + 0.72 + 0.72, nodeSeconds: 100 + 3650 + 10.5, paid: 3600 + 7200 + 3600,
		},
		{
			// Exactly one hour is one period; one hour and a second is two.
			name: "period boundary", period: time.Hour,
			nodes: []life{{"small", 0, 3600}, {"small", 0, 3601}},
			now:   5000, cost: 0.36 + 0.72, nodeSeconds: 7201, paid: 3600 + 7200,
		},
		{
			// Released the instant it was requested: nothing per second, a
			// whole period hourly (the launch is paid).
			name:  "zero life, per second",
			nodes: []life{{"big", 30, 30}}, now: 40, cost: 0, nodeSeconds: 0, paid: 0,
		},
		{
			name: "zero life, per hour", period: time.Hour,
			nodes: []life{{"big", 30, 30}}, now: 40, cost: 0.72, nodeSeconds: 0, paid: 3600,
		},
		{
			// 15-minute periods: 0..1000 s = 2 periods of 900 s x 0.0001.
			name: "15 min periods", period: 15 * time.Minute,
			nodes: []life{{"small", 0, -1}}, now: 1000, cost: 1800 * 0.0001, nodeSeconds: 1000, paid: 1800,
		},
	}
	for _, c := range cases {
		cl, err := New(Config{Types: types, BillingPeriod: c.period, MinBilled: c.min})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range c.nodes {
			id, _, err := cl.Provision(at(l.from), l.typ)
			if err != nil {
				t.Fatal(err)
			}
			if l.to >= 0 {
				if err := cl.Release(at(l.to), id); err != nil {
					t.Fatal(err)
				}
			}
		}
		now := at(c.now)
		if got := cl.Cost(now); math.Abs(got-c.cost) > 1e-12 {
			t.Errorf("%s: cost %.6f, want %.6f", c.name, got, c.cost)
		}
		if got := cl.NodeSeconds(now); math.Abs(got-c.nodeSeconds) > 1e-9 {
			t.Errorf("%s: node-seconds %.3f, want %.3f", c.name, got, c.nodeSeconds)
		}
		if got := cl.PaidSeconds(now); got != c.paid {
			t.Errorf("%s: paid seconds %.3f, want %.0f", c.name, got, c.paid)
		}
	}
}

func TestPaidUntil(t *testing.T) {
	cl, _ := New(Config{Types: types, BillingPeriod: time.Hour})
	a, _, _ := cl.Provision(at(100), "")
	for _, c := range []struct{ now, want float64 }{
		{100, 3700},  // just launched: the first hour is paid
		{3000, 3700}, // still in it
		{3700, 3700}, // exactly at its end
		{3701, 7300}, // the second hour has started
	} {
		got, err := cl.PaidUntil(a, at(c.now))
		if err != nil || !got.Equal(at(c.want)) {
			t.Errorf("PaidUntil at %gs = %s, %v; want %gs", c.now, got.Sub(t0), err, c.want)
		}
	}
	// Once released, the paid time stops moving.
	_ = cl.Release(at(4000), a)
	if got, _ := cl.PaidUntil(a, at(99999)); !got.Equal(at(7300)) {
		t.Errorf("after release: paid until %s, want 7300s", got.Sub(t0))
	}
	// Per second: paid up to now, rounded up to a whole second.
	ps, _ := New(Config{Types: types})
	b, _, _ := ps.Provision(at(0), "")
	if got, _ := ps.PaidUntil(b, at(10.2)); !got.Equal(at(11)) {
		t.Errorf("per second: paid until %s, want 11s", got.Sub(t0))
	}
	if _, err := ps.PaidUntil("nope", at(1)); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("unknown node: err %v", err)
	}
}

func TestProvisionAndCap(t *testing.T) {
	cl, err := New(Config{Types: types, ProvisionDelay: 3 * time.Minute, MaxNodes: 2, ReclaimDelay: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a, ready, err := cl.Provision(at(10), "")
	if err != nil || a != "node00001" || !ready.Equal(at(190)) {
		t.Fatalf("Provision = %s, %s, %v; want node00001 ready at 190s", a, ready.Sub(t0), err)
	}
	b, _, _ := cl.Provision(at(20), "big")
	if _, _, err := cl.Provision(at(30), ""); !errors.Is(err, ErrAtCap) {
		t.Errorf("third node: err %v, want ErrAtCap", err)
	}
	n, _ := cl.Node(b)
	if n.Type.Name != "big" || n.Ready(at(199)) || !n.Ready(at(200)) || !n.Live(at(20)) {
		t.Errorf("node b %+v: want big, ready from 200s", n)
	}
	// Releasing one frees a slot; the released node is no longer live.
	if err := cl.Release(at(40), a); err != nil {
		t.Fatal(err)
	}
	if cl.Live() != 1 {
		t.Errorf("live %d, want 1", cl.Live())
	}
	if n, _ := cl.Node(a); n.Live(at(40)) || !n.Live(at(39)) {
		t.Errorf("node a %+v: live until 40s", n)
	}
	if _, _, err := cl.Provision(at(50), "small"); err != nil {
		t.Errorf("after a release: %v", err)
	}
	if got := len(cl.Nodes()); got != 3 {
		t.Errorf("%d nodes recorded, want 3", got)
	}
	if err := cl.Release(at(60), a); !errors.Is(err, ErrReleased) {
		t.Errorf("second release: err %v, want ErrReleased", err)
	}
	if err := cl.Release(at(60), "node09999"); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("unknown release: err %v, want ErrUnknownNode", err)
	}
	if err := cl.Release(at(5), b); !errors.Is(err, ErrBeforeStart) {
		t.Errorf("release before request: err %v, want ErrBeforeStart", err)
	}
	if _, _, err := cl.Provision(at(70), "huge"); !errors.Is(err, ErrUnknownType) || !contains(err.Error(), "small, big") {
		t.Errorf("unknown type: err %v, want ErrUnknownType listing small, big", err)
	}
	if got := cl.ReclaimAt(at(100)); !got.Equal(at(130)) {
		t.Errorf("ReclaimAt = %s, want 130s", got.Sub(t0))
	}
	// MBSeconds: a 8192 MB x 30 s + b 32768 MB x 80 s + c 8192 MB x 50 s at 100 s.
	if got, want := cl.MBSeconds(at(100)), 8192.0*30+32768*80+8192*50; got != want {
		t.Errorf("MBSeconds %g, want %g", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	ok := NodeType{Name: "n", MemoryMB: 1, VCores: 1}
	cases := map[string]struct {
		cfg  Config
		want string
	}{
		"no types":  {Config{}, "Types = []"},
		"memory":    {Config{Types: []NodeType{{Name: "n", VCores: 1}}}, "Types[0].MemoryMB = 0: want a positive"},
		"vcores":    {Config{Types: []NodeType{{Name: "n", MemoryMB: 1}}}, "Types[0].VCores = 0"},
		"price":     {Config{Types: []NodeType{{Name: "n", MemoryMB: 1, VCores: 1, PricePerHour: -1}}}, "PricePerHour = -1"},
		"dup":       {Config{Types: []NodeType{ok, ok}}, `Types[1].Name = "n": want a name not already used by Types[0]`},
		"delay":     {Config{Types: []NodeType{ok}, ProvisionDelay: -time.Second}, "ProvisionDelay = -1s"},
		"period":    {Config{Types: []NodeType{ok}, BillingPeriod: 1500 * time.Millisecond}, "BillingPeriod = 1.5s: want whole seconds"},
		"max nodes": {Config{Types: []NodeType{ok}, MaxNodes: -1}, "MaxNodes = -1"},
	}
	for name, c := range cases {
		_, err := New(c.cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConfig) || !contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want a ConfigError containing %q", name, err, c.want)
		}
	}
	if _, err := New(DefaultConfig()); err != nil {
		t.Errorf("DefaultConfig: %v", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

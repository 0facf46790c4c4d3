package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ebb-am/ebb/sim"
	"github.com/ebb-am/ebb/sim/report"
	"github.com/ebb-am/ebb/sim/trace"
)

// setting is one [POLICY:]KEY=VALUE; where says where it came from.
type setting struct {
	policy, key, value, where string
}

func parseSetting(s, where string) (setting, error) {
	kv, val, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(kv) == "" {
		return setting{}, fmt.Errorf("%s: %q: want [POLICY:]KEY=VALUE", where, s)
	}
	st := setting{key: strings.TrimSpace(kv), value: strings.TrimSpace(val), where: where}
	if pol, key, ok := strings.Cut(st.key, ":"); ok {
		st.policy, st.key = strings.TrimSpace(pol), strings.TrimSpace(key)
	}
	return st, nil
}

// settings reads the policy file, then the --set flags, in order: a later
// setting of a key wins.
func (f simFlags) settings() ([]setting, error) {
	var out []setting
	if f.policyFile != "" {
		file, err := os.Open(f.policyFile)
		if err != nil {
			return nil, fmt.Errorf("--policy-file: %w", err)
		}
		defer func() { _ = file.Close() }() // read only
		sc := bufio.NewScanner(file)
		for n := 1; sc.Scan(); n++ {
			line, _, _ := strings.Cut(sc.Text(), "#")
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			st, err := parseSetting(line, fmt.Sprintf("%s:%d", f.policyFile, n))
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("--policy-file: %w", err)
		}
	}
	if f.billingAware {
		out = append(out, setting{key: sim.KeyBillingAware, value: "true", where: "--billing-aware"})
	}
	for _, s := range f.sets {
		st, err := parseSetting(s, "--set")
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// buildPolicies parses --policies and applies every setting. A setting
// naming a policy that is not run, or a key that applies to none of the
// policies it targets, is an error: a knob that silently does nothing
// would make a comparison lie.
func (f simFlags) buildPolicies(staticNodes int) ([]sim.Policy, error) {
	sets, err := f.settings()
	if err != nil {
		return nil, err
	}
	var ps []sim.Policy
	for _, name := range strings.Split(f.policies, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		p, err := sim.ParsePolicy(name)
		if err != nil {
			return nil, fmt.Errorf("--policies: %w", err)
		}
		if staticNodes > 0 && p.Static == 0 && p.FixedCluster {
			p.Static = staticNodes
		}
		ps = append(ps, p)
	}
	for _, st := range sets {
		applied := false
		for i := range ps {
			if st.policy != "" && ps[i].Name != st.policy {
				continue
			}
			ok, err := ps[i].Set(st.key, st.value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", st.where, err)
			}
			applied = applied || ok
		}
		if !applied && st.where != "--billing-aware" {
			target := "the policies run"
			if st.policy != "" {
				target = "policy " + st.policy
			}
			return nil, fmt.Errorf("%s: %s applies to none of %s", st.where, st.key, target)
		}
	}
	return ps, nil
}

// runPolicies replays the jobs under each policy, parallel at a time
// (sim.RunAll; 0: one per core), and returns the runs in the policies' order,
// saying as each ends how long since the replays began.
func runPolicies(progress *printer, jobs []trace.Job, cfg sim.Config, policies []sim.Policy, parallel int) ([]report.Run, error) {
	start := time.Now()
	var mu sync.Mutex // progress is written from the replays' goroutines
	results := sim.RunAll(jobs, cfg, policies, parallel, func(r sim.Result) {
		if r.Err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		progress.printf("sim: %s: %d jobs, done %s after the replays began\n", r.Policy.Name, len(jobs), time.Since(start).Round(time.Millisecond))
	})
	runs := make([]report.Run, 0, len(results))
	for _, r := range results {
		if r.Err != nil {
			return nil, r.Err
		}
		runs = append(runs, r.Rec.Run())
	}
	return runs, nil
}

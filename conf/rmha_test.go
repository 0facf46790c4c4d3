package conf

import (
	"reflect"
	"testing"
)

func TestRMAddressesUnderHA(t *testing.T) {
	load := func(kv map[string]string) *Config {
		c, _, err := Load(LoadOptions{Getenv: func(string) string { return "" }, Sets: kv})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name      string
		kv        map[string]string
		rm, sched []string
	}{
		{"no HA: the one address", map[string]string{"yarn.resourcemanager.address": "rm:8032"},
			[]string{"rm:8032"}, []string{"0.0.0.0:8030"}},
		{"HA: per-id addresses, then per-id host names with the default ports", map[string]string{
			"yarn.resourcemanager.ha.enabled": "true", "yarn.resourcemanager.ha.rm-ids": "rm1, rm2",
			"yarn.resourcemanager.address.rm1": "a:1", "yarn.resourcemanager.scheduler.address.rm1": "a:2",
			"yarn.resourcemanager.hostname.rm2": "b"},
			[]string{"a:1", "b:8032"}, []string{"a:2", "b:8030"}},
		{"HA named but off", map[string]string{"yarn.resourcemanager.ha.rm-ids": "rm1,rm2",
			"yarn.resourcemanager.address.rm1": "a:1", "yarn.resourcemanager.address": "rm:8032"},
			[]string{"rm:8032"}, []string{"0.0.0.0:8030"}},
	} {
		c := load(tc.kv)
		if got := c.RMAddresses(); !reflect.DeepEqual(got, tc.rm) {
			t.Errorf("%s: RMAddresses = %v, want %v", tc.name, got, tc.rm)
		}
		if got := c.RMSchedulerAddresses(); !reflect.DeepEqual(got, tc.sched) {
			t.Errorf("%s: RMSchedulerAddresses = %v, want %v", tc.name, got, tc.sched)
		}
	}
}

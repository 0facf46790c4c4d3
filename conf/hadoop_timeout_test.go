package conf

import (
	"strings"
	"testing"
	"time"
)

func TestRPCTimeouts(t *testing.T) {
	cases := []struct {
		name          string
		set           map[string]string
		connect, call time.Duration
		err           string
	}{
		{name: "defaults", connect: 20 * time.Second, call: 60 * time.Second},
		{name: "set", set: map[string]string{"ipc.client.connect.timeout": "5000", "ipc.client.rpc-timeout.ms": "1500"},
			connect: 5 * time.Second, call: 1500 * time.Millisecond},
		// Hadoop's 0 means "ping for ever"; ebb never waits for ever.
		{name: "zero", set: map[string]string{"ipc.client.rpc-timeout.ms": "0"}, connect: 20 * time.Second, call: 60 * time.Second},
		{name: "bad", set: map[string]string{"ipc.client.rpc-timeout.ms": "soon"}, err: `ipc.client.rpc-timeout.ms = "soon": want milliseconds`},
		{name: "too big", set: map[string]string{"ipc.client.connect.timeout": "86400001"}, err: `ipc.client.connect.timeout = "86400001"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := Load(LoadOptions{Getenv: envOf(nil), Sets: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			connect, call, err := c.RPCTimeouts()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || connect != tc.connect || call != tc.call {
				t.Fatalf("RPCTimeouts = %s, %s, %v; want %s, %s", connect, call, err, tc.connect, tc.call)
			}
		})
	}
}

func TestAMLiveness(t *testing.T) {
	for _, tc := range []struct {
		set  map[string]string
		want time.Duration
		err  string
	}{
		{want: 10 * time.Minute},
		{set: map[string]string{AMLivenessKey: "8000"}, want: 8 * time.Second},
		{set: map[string]string{AMLivenessKey: "soon"}, err: `yarn.am.liveness-monitor.expiry-interval-ms = "soon": want milliseconds`},
	} {
		c, _, err := Load(LoadOptions{Getenv: envOf(nil), Sets: tc.set})
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.AMLiveness()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err = %v, want %q", tc.set, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v: AMLiveness = %s, %v; want %s", tc.set, got, err, tc.want)
		}
	}
}

package conf

import (
	"strings"
	"testing"
	"time"
)

func TestRMConnect(t *testing.T) {
	load := func(kv map[string]string) *Config {
		c, _, err := Load(LoadOptions{Getenv: func(string) string { return "" }, Sets: kv})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	got, err := load(nil).RMConnect()
	want := RMConnect{MaxWait: 15 * time.Minute, Interval: 30 * time.Second, FailoverAttempts: -1,
		FailoverBase: 30 * time.Second, FailoverMax: 30 * time.Second}
	if err != nil || got != want {
		t.Errorf("Hadoop's defaults: %+v, %v; want %+v", got, err, want)
	}
	got, err = load(map[string]string{RMConnectMaxWaitKey: "-1", RMConnectIntervalKey: "1000",
		FailoverMaxAttemptsKey: "5", FailoverSleepMaxKey: "8000", FailoverRetriesKey: "2"}).RMConnect()
	want = RMConnect{MaxWait: -time.Millisecond, Interval: time.Second, FailoverAttempts: 5,
		FailoverBase: time.Second, FailoverMax: 8 * time.Second, FailoverRetries: 2}
	if err != nil || got != want {
		t.Errorf("set: %+v, %v; want %+v (the failover base from the retry interval)", got, err, want)
	}
	for key, bad := range map[string]string{RMConnectMaxWaitKey: "-2", RMConnectIntervalKey: "0",
		FailoverMaxAttemptsKey: "many", FailoverSleepBaseKey: "-5", FailoverRetriesKey: "-1"} {
		_, err := load(map[string]string{key: bad}).RMConnect()
		if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "want") {
			t.Errorf("%s=%s: %v, want an error naming the key, the value and what is allowed", key, bad, err)
		}
	}
}

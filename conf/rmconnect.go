package conf

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Hadoop's keys for how a client outlasts a ResourceManager restart or
// failover (RMProxy), read from the cluster's yarn-site.xml or --set.
const (
	RMConnectMaxWaitKey       = "yarn.resourcemanager.connect.max-wait.ms"
	RMConnectIntervalKey      = "yarn.resourcemanager.connect.retry-interval.ms"
	FailoverMaxAttemptsKey    = "yarn.client.failover-max-attempts"
	FailoverSleepBaseKey      = "yarn.client.failover-sleep-base-ms"
	FailoverSleepMaxKey       = "yarn.client.failover-sleep-max-ms"
	FailoverRetriesKey        = "yarn.client.failover-retries"
	defaultRMConnectMaxWaitMS = 900000
	defaultRMConnectRetryMS   = 30000
)

// RMConnect is what those keys say, with Hadoop's defaults for unset ones.
type RMConnect struct {
	// MaxWait: how long a client keeps trying an RM that does not answer
	// (negative: for ever, Hadoop's -1).
	MaxWait time.Duration
	// Interval: the wait between two tries of the one RM (no HA).
	Interval time.Duration
	// FailoverAttempts: failovers per call under RM HA; -1 (unset):
	// MaxWait / FailoverBase.
	FailoverAttempts int
	// FailoverBase, FailoverMax: the exponential wait between failovers
	// (both default to Interval).
	FailoverBase, FailoverMax time.Duration
	// FailoverRetries: tries of one RM's connection per failover, after
	// the first (Hadoop's default 0: a dead RM costs one refused dial).
	FailoverRetries int
}

// RMConnect reads the RM retry keys. A value outside what Hadoop accepts
// is an error naming the key, where it was set, the value and what is
// allowed.
func (c *Config) RMConnect() (RMConnect, error) {
	var r RMConnect
	maxWait, err := c.hadoopInt(RMConnectMaxWaitKey, defaultRMConnectMaxWaitMS, -1, "-1 (for ever) or milliseconds from 0")
	if err != nil {
		return r, err
	}
	interval, err := c.hadoopInt(RMConnectIntervalKey, defaultRMConnectRetryMS, 1, "a positive number of milliseconds")
	if err != nil {
		return r, err
	}
	r.MaxWait, r.Interval = time.Duration(maxWait)*time.Millisecond, time.Duration(interval)*time.Millisecond
	attempts, err := c.hadoopInt(FailoverMaxAttemptsKey, -1, -1, "-1 (from "+RMConnectMaxWaitKey+") or a number of failovers from 0")
	if err != nil {
		return r, err
	}
	r.FailoverAttempts = int(attempts)
	base, err := c.hadoopInt(FailoverSleepBaseKey, interval, 0, "milliseconds from 0 (unset: "+RMConnectIntervalKey+")")
	if err != nil {
		return r, err
	}
	most, err := c.hadoopInt(FailoverSleepMaxKey, interval, 0, "milliseconds from 0 (unset: "+RMConnectIntervalKey+")")
	if err != nil {
		return r, err
	}
	r.FailoverBase, r.FailoverMax = time.Duration(base)*time.Millisecond, time.Duration(most)*time.Millisecond
	retries, err := c.hadoopInt(FailoverRetriesKey, 0, 0, "a number of retries from 0")
	if err != nil {
		return r, err
	}
	r.FailoverRetries = int(retries)
	return r, nil
}

// hadoopInt reads a Hadoop integer key: def when unset, an error when not
// an integer of at least least.
func (c *Config) hadoopInt(key string, def, least int64, allowed string) (int64, error) {
	v, ok := c.Raw(key)
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < least {
		return 0, fmt.Errorf("%s: %s = %q: want %s", c.Origin(key), key, v, allowed)
	}
	return n, nil
}

package conf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Hadoop's own defaults for the addresses every client needs. yarn-default
// derives both RM addresses from yarn.resourcemanager.hostname, so that
// key is honoured when the address itself is not set.
const (
	defaultRMHostname    = "0.0.0.0"
	defaultRMPort        = "8032"
	defaultSchedulerPort = "8030"
	defaultFS            = "file:///"
)

// RMAddress is the ResourceManager's client address (submit, reports).
func (c *Config) RMAddress() string {
	return c.rmAddress("yarn.resourcemanager.address", defaultRMPort)
}

// RMSchedulerAddress is the ResourceManager's scheduler address, where an
// AM registers and heartbeats.
func (c *Config) RMSchedulerAddress() string {
	return c.rmAddress("yarn.resourcemanager.scheduler.address", defaultSchedulerPort)
}

func (c *Config) rmAddress(key, port string) string {
	if v, ok := c.Raw(key); ok && v != "" {
		return v
	}
	host, ok := c.Raw("yarn.resourcemanager.hostname")
	if !ok || host == "" {
		host = defaultRMHostname
	}
	return host + ":" + port
}

// DefaultFS is the default file system URI (fs.defaultFS, or its
// deprecated name fs.default.name), file:/// when neither is set.
func (c *Config) DefaultFS() string {
	for _, k := range []string{"fs.defaultFS", "fs.default.name"} {
		if v, ok := c.Raw(k); ok && v != "" {
			return v
		}
	}
	return defaultFS
}

// Hadoop's RPC timeout keys, and the values ebb uses when they are unset.
// Hadoop's ipc.client.rpc-timeout.ms=0 means "no timeout, ping instead";
// ebb sends no pings and never waits for ever, so 0 takes the default too.
const (
	ConnectTimeoutKey     = "ipc.client.connect.timeout"
	RPCTimeoutKey         = "ipc.client.rpc-timeout.ms"
	defaultConnectTimeout = 20 * time.Second
	defaultRPCTimeout     = 60 * time.Second
)

// RPCTimeouts are the connect and call timeouts for Hadoop RPC, from
// ipc.client.connect.timeout and ipc.client.rpc-timeout.ms (milliseconds).
// A value that is not a non-negative number of milliseconds up to a day is
// an error naming the key, where it was set and the value.
func (c *Config) RPCTimeouts() (connect, call time.Duration, err error) {
	connect, err = c.hadoopMillis(ConnectTimeoutKey, defaultConnectTimeout)
	if err != nil {
		return 0, 0, err
	}
	call, err = c.hadoopMillis(RPCTimeoutKey, defaultRPCTimeout)
	return connect, call, err
}

// hadoopMillis reads a Hadoop millisecond key; unset or 0 is def.
func (c *Config) hadoopMillis(key string, def time.Duration) (time.Duration, error) {
	v, ok := c.Raw(key)
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	const maxMS = 24 * 3600 * 1000
	if err != nil || ms < 0 || ms > maxMS {
		return 0, fmt.Errorf("%s: %s = %q: want milliseconds from 0 to %d (0: ebb's default of %s)", c.Origin(key), key, v, maxMS, def)
	}
	if ms == 0 {
		return def, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// HadoopConfDir is $HADOOP_CONF_DIR as Load saw it ("" when unset).
func (c *Config) HadoopConfDir() string { return c.getenv("HADOOP_CONF_DIR") }

// CheckYARNSite says whether the configuration can name a ResourceManager:
// yarn.resourcemanager.address is set somewhere, or HADOOP_CONF_DIR holds a
// yarn-site.xml. Without either a client would silently dial 0.0.0.0:8032.
func (c *Config) CheckYARNSite() error {
	if v, ok := c.Raw("yarn.resourcemanager.address"); ok && v != "" {
		return nil
	}
	dir := c.HadoopConfDir()
	if dir == "" {
		return ErrNoYARNSite
	}
	if _, err := os.Stat(filepath.Join(dir, "yarn-site.xml")); err != nil {
		return fmt.Errorf("HADOOP_CONF_DIR=%s has no yarn-site.xml: %w", dir, ErrNoYARNSite)
	}
	return nil
}

// ErrNoYARNSite: no ResourceManager is configured.
var ErrNoYARNSite = errors.New("no ResourceManager configured: set HADOOP_CONF_DIR to the cluster's configuration directory (yarn-site.xml, core-site.xml) or set yarn.resourcemanager.address")

// MinAllocationKey is the smallest container the ResourceManager grants;
// it rounds every ask up to a multiple of it.
const MinAllocationKey = "yarn.scheduler.minimum-allocation-mb"

// MinAllocationMB is yarn.scheduler.minimum-allocation-mb (Hadoop's
// default 1024 when unset). A value that is not a positive number of MB
// is an error naming the key, where it was set and the value.
func (c *Config) MinAllocationMB() (int64, error) {
	v, ok := c.Raw(MinAllocationKey)
	if !ok || strings.TrimSpace(v) == "" {
		return 1024, nil
	}
	mb, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || mb <= 0 {
		return 0, fmt.Errorf("%s: %s = %q: want a positive number of MB", c.Origin(MinAllocationKey), MinAllocationKey, v)
	}
	return mb, nil
}

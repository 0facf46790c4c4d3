package main

import (
	"time"

	"ebb/am"
	"ebb/conf"
	"ebb/packing"
)

func ms(c *conf.Config, key string) time.Duration {
	return time.Duration(c.Int64(key)) * time.Millisecond
}

func secs(c *conf.Config, key string) time.Duration {
	return time.Duration(c.Int64(key)) * time.Second
}

// packingOptions builds the allocator options from the ebb.packing.* keys.
func packingOptions(c *conf.Config) packing.Options {
	return packing.Options{
		HighThresholdPercent: c.Int("ebb.packing.high.threshold.percent"),
		MinNodes:             c.Int("ebb.packing.min.nodes"),
		LocalityDelay:        ms(c, "ebb.packing.locality.delay.ms"),
	}
}

// coreOptions maps configuration keys to the Core's typed options; the
// Core itself never sees the configuration.
func coreOptions(c *conf.Config, idPrefix string) (am.CoreOptions, error) {
	alloc, err := packing.New(c.String("ebb.packing.scheme"), packingOptions(c))
	if err != nil {
		return am.CoreOptions{}, err
	}
	return am.CoreOptions{
		IDPrefix:          idPrefix,
		MaxConcurrentDAGs: c.Int("mr3.am.max.num.concurrent.dags"),
		MaxFailedAttempts: c.Int("mr3.am.task.max.failed.attempts"),
		WorkerTimeout:     ms(c, "mr3.heartbeat.container.timeout.ms"),
		TaskTimeout:       ms(c, "mr3.heartbeat.task.timeout.ms"),
		IdleTimeout:       ms(c, "mr3.container.idle.timeout.ms"),
		MaxWorkers:        c.Int("mr3.container.max.num.workers"),
		Allocator:         alloc,
	}, nil
}

package conf

import "time"

// AMLivenessKey is the RM's bound on an AM's silence: an AM attempt that
// has not heartbeaten (allocate) for this long is expired and the next
// attempt started. Hadoop's default is 600000.
const AMLivenessKey = "yarn.am.liveness-monitor.expiry-interval-ms"

const defaultAMLiveness = 10 * time.Minute

// AMLiveness is yarn.am.liveness-monitor.expiry-interval-ms as the AM's
// configuration (its yarn-site.xml, --set) says, Hadoop's default when
// unset: how long an AM attempt may go without a successful allocate
// before it must take itself as replaced (am: it then commits nothing).
func (c *Config) AMLiveness() (time.Duration, error) {
	return c.hadoopMillis(AMLivenessKey, defaultAMLiveness)
}

package conf

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

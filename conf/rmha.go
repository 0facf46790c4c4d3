package conf

import "strings"

// RMAddresses are the ResourceManagers' client addresses: with RM HA
// (yarn.resourcemanager.ha.enabled and yarn.resourcemanager.ha.rm-ids)
// one per rm-id, from yarn.resourcemanager.address.<id> or
// yarn.resourcemanager.hostname.<id> with the default port, in the
// rm-ids' order; otherwise RMAddress alone. Clients try them in turn
// until one is active.
func (c *Config) RMAddresses() []string {
	return c.rmAddresses("yarn.resourcemanager.address", defaultRMPort, c.RMAddress())
}

// RMSchedulerAddresses are RMSchedulerAddress per rm-id under RM HA.
func (c *Config) RMSchedulerAddresses() []string {
	return c.rmAddresses("yarn.resourcemanager.scheduler.address", defaultSchedulerPort, c.RMSchedulerAddress())
}

func (c *Config) rmAddresses(key, port, single string) []string {
	on, _ := c.Raw("yarn.resourcemanager.ha.enabled")
	ids, _ := c.Raw("yarn.resourcemanager.ha.rm-ids")
	if strings.TrimSpace(on) != "true" || strings.TrimSpace(ids) == "" {
		return []string{single}
	}
	var out []string
	for _, id := range strings.Split(ids, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if v, ok := c.Raw(key + "." + id); ok && strings.TrimSpace(v) != "" {
			out = append(out, strings.TrimSpace(v))
		} else if h, ok := c.Raw("yarn.resourcemanager.hostname." + id); ok && strings.TrimSpace(h) != "" {
			out = append(out, strings.TrimSpace(h)+":"+port)
		}
	}
	if len(out) == 0 {
		return []string{single}
	}
	return out
}

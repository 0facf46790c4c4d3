package scheduler

// FIFOTarget decides where a worker of group from goes now that it has no
// attempt to run and no output to serve: the oldest other group of the
// kind that needs workers, or "" to leave it where it is (and let the idle
// timeout release it). groups are the kind's groups, from among them.
//
// A worker whose own group still needs workers stays: the group would
// only ask YARN for a replacement, and saving container allocations is
// the point of recycling.
func FIFOTarget(groups []KindGroup, from string) string {
	var to *KindGroup
	for i := range groups {
		g := &groups[i]
		if g.needs() <= 0 {
			continue
		}
		if g.Name == from {
			return ""
		}
		if to == nil || olderGroup(*g, *to) {
			to = g
		}
	}
	if to == nil {
		return ""
	}
	return to.Name
}

package scheduler

import "time"

// Sample is one measurement of a ContainerGroup, taken by the AM every
// mr3.check.memory.usage.event.interval.secs.
type Sample struct {
	At              time.Time
	RunningMB       int64 // memory reserved by the group's running attempts
	OfferedMB       int64 // memory the group's workers offer to attempts
	Workers         int   // workers of the group at that moment
	RunningAttempts int   // attempts running on them
}

// window holds the samples of the last window length, oldest first.
type window struct {
	length  time.Duration
	samples []Sample
}

// add keeps s and forgets samples that fell out of the window as seen from
// s.At. A sample older than the newest one is ignored: the head-of-window
// rule depends on the order in which the group went from idle to busy,
// and the AM samples with a clock that does not run backwards.
func (w *window) add(s Sample) {
	if n := len(w.samples); n > 0 && s.At.Before(w.samples[n-1].At) {
		return
	}
	w.samples = append(w.samples, s)
	w.forget(s.At)
}

// forget drops the samples at or before now - length.
func (w *window) forget(now time.Time) {
	cut := now.Add(-w.length)
	i := 0
	for i < len(w.samples) && !w.samples[i].At.After(cut) {
		i++
	}
	if i > 0 {
		w.samples = append(w.samples[:0], w.samples[i:]...)
	}
}

// usage combines the samples in (now - length, now] into a fraction
// (0.86 = 86%); ok is false when no sample counts.
//
// Two kinds of sample do not count:
//   - those taken while the group had no worker (or its workers offered no
//     memory): there is no utilisation to speak of, and a 0 there would
//     hold back the first scale-out after the group was emptied;
//   - those at the head of the window that saw no attempt: after an idle
//     spell the window is full of zeros, and averaging them with the
//     first busy samples would delay the scale-out a burst needs. Once one
//     sample has seen an attempt, later idle samples count (they are what
//     a scale-in should see).
//
// A window in which no counted sample saw an attempt is an idle group:
// its usage is 0, ok, so that an idle group can scale in.
func (w *window) usage(now time.Time, scheme UsageScheme) (frac float64, ok bool) {
	cut := now.Add(-w.length)
	var sum, most float64
	n, withWorkers := 0, 0
	busy := false
	for _, s := range w.samples {
		if !s.At.After(cut) || s.At.After(now) {
			continue
		}
		if s.Workers <= 0 || s.OfferedMB <= 0 {
			continue
		}
		withWorkers++
		if !busy && s.RunningAttempts <= 0 {
			continue // still at the idle head of the window
		}
		busy = true
		u := float64(s.RunningMB) / float64(s.OfferedMB)
		sum += u
		most = max(most, u)
		n++
	}
	switch {
	case n > 0 && scheme == UsageMaximum:
		return most, true
	case n > 0:
		return sum / float64(n), true
	case withWorkers > 0:
		return 0, true
	}
	return 0, false
}

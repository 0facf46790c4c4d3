package scheduler

import "time"

// A warm headroom sized from recent bursts
// (ebb.auto.scale.headroom.window.secs; 0 = off). The autoscaler keeps,
// at each step, the group's demand: the memory running attempts hold plus
// the memory queued ones need. A scale-in never leaves fewer workers than
// the largest demand of the last window needs, ceil(peak / WorkerMB): a
// burst that came once within the window is likely to come again, and a
// node kept warm for it starts its attempts at once where a new one would
// make them wait a boot.

type demandAt struct {
	at time.Time
	mb int64
}

// noteDemand adds this step's demand to the window's running maximum (a
// deque, largest first, so the peak is always peaks[0]).
func (a *Autoscaler) noteDemand(now time.Time, s GroupSnapshot) {
	if a.cfg.HeadroomWindow <= 0 {
		return
	}
	mb := s.runningMB() + s.QueuedMB
	for len(a.peaks) > 0 && a.peaks[len(a.peaks)-1].mb <= mb {
		a.peaks = a.peaks[:len(a.peaks)-1]
	}
	a.peaks = append(a.peaks, demandAt{at: now, mb: mb})
	for len(a.peaks) > 0 && now.Sub(a.peaks[0].at) > a.cfg.HeadroomWindow {
		a.peaks = a.peaks[1:]
	}
}

// headroomWorkers is the workers the window's peak demand needs (0 when
// off or unknown).
func (a *Autoscaler) headroomWorkers(workerMB int64) int {
	if a.cfg.HeadroomWindow <= 0 || len(a.peaks) == 0 || workerMB <= 0 {
		return 0
	}
	return int(ceilDiv(a.peaks[0].mb, workerMB))
}

// keepForHeadroom is how many of cands (in order) a scale-in may empty
// and still leave the headroom's workers.
func (a *Autoscaler) keepForHeadroom(s GroupSnapshot, cands []inCandidate) int {
	need := a.headroomWorkers(s.WorkerMB)
	left := s.Workers
	for k, c := range cands {
		left -= c.Workers
		if left < need {
			return k
		}
	}
	return len(cands)
}

// KeepWarm is how many workers of workerMB the headroom keeps: the idle
// timeout stops an idle worker only while the group holds more than this
// (an idle worker is exactly what the headroom is for). 0 when off.
func (a *Autoscaler) KeepWarm(workerMB int64) int { return a.headroomWorkers(workerMB) }

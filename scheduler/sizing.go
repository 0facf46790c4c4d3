package scheduler

import "fmt"

// AllocationLimits are the container sizes the cluster grants, as the
// world knows them. On YARN MinMB is yarn.scheduler.minimum-allocation-mb
// (the ResourceManager rounds every ask up to a multiple of it) and MaxMB
// the registration's maximumCapability; in the local world MinMB is 0 (no
// rounding) and MaxMB a virtual node's memory. Zero means unknown.
type AllocationLimits struct {
	MinMB, MaxMB int64
}

// TaskShape is one vertex as worker sizing sees it: how much memory each
// of its tasks asks for and how many tasks it has.
type TaskShape struct {
	MemoryMB    int64
	Parallelism int
}

// DefaultWorkerTasks is how many of a DAG's largest tasks an ebb-sized
// worker holds at most (ebb.worker.auto.size.max.tasks).
const DefaultWorkerTasks = 4

// SizeError says why no worker size fits a DAG's tasks.
type SizeError struct {
	TaskMB, MaxMB int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("a task asks %d MB, more than the cluster's largest container (%d MB)", e.TaskMB, e.MaxMB)
}

// SizeWorker chooses the worker memory of a group whose DAG leaves it to
// ebb (containerGroup.workerMemoryMB 0 or absent). A worker holds k of the
// DAG's largest tasks, where k is the widest vertex's parallelism bounded
// by maxTasks (more tasks than the widest vertex never run at once, so a
// bigger worker would sit partly empty) and by what the largest container
// holds. The size is then rounded up to the minimum allocation: YARN
// grants that much anyway, so the worker may as well offer it.
//
// A DAG with one small task thus gets a worker of that task's size (or the
// minimum allocation), never a worker four times bigger; a wide DAG gets
// workers that share their launch among maxTasks tasks. The result
// depends only on the DAG's shape and the limits, so two DAGs of the same
// shape size one group alike and can share it.
func SizeWorker(tasks []TaskShape, maxTasks int, lim AllocationLimits) (int64, error) {
	var need int64
	widest := 1
	for _, t := range tasks {
		need = max(need, t.MemoryMB)
		widest = max(widest, t.Parallelism)
	}
	if need <= 0 {
		return 0, fmt.Errorf("no task asks for memory")
	}
	if lim.MaxMB > 0 && need > lim.MaxMB {
		return 0, &SizeError{TaskMB: need, MaxMB: lim.MaxMB}
	}
	k := int64(min(widest, max(maxTasks, 1)))
	for ; k >= 1; k-- {
		mb := roundUp(need*k, lim.MinMB)
		if lim.MaxMB <= 0 || mb <= lim.MaxMB {
			return mb, nil
		}
	}
	// One task fits the largest container but its rounded size does not
	// (a maximum that is no multiple of the minimum): the largest it is.
	return lim.MaxMB, nil
}

// roundUp rounds mb up to a multiple of step (step 0: unchanged).
func roundUp(mb, step int64) int64 {
	if step <= 0 {
		return mb
	}
	return (mb + step - 1) / step * step
}

// MemoryRetry is how a task killed for exceeding its memory is retried
// (ebb.task.memory.retry.factor and ebb.task.memory.retry.max.mb).
type MemoryRetry struct {
	// Factor multiplies the memory of the killed attempt (≥ 1; 0 means 2).
	Factor float64
	// MaxMB caps the retried ask (0: the group's worker size, which caps
	// it in any case).
	MaxMB int64
}

// DefaultMemoryRetryFactor doubles a killed attempt's memory.
const DefaultMemoryRetryFactor = 2.0

// Next is the memory for the retry of an attempt that asked askedMB and
// was killed for exceeding it, in a group whose workers offer workerMB:
// askedMB × Factor rounded up to a whole MB, capped by MaxMB and workerMB.
// atCap says the ask could not grow (it already was at the cap), so the
// retry is likely to fail the same way.
func (r MemoryRetry) Next(askedMB, workerMB int64) (next int64, atCap bool) {
	f := r.Factor
	if f <= 0 {
		f = DefaultMemoryRetryFactor
	}
	limit := workerMB
	if r.MaxMB > 0 && (limit <= 0 || r.MaxMB < limit) {
		limit = r.MaxMB
	}
	next = ceilMB(float64(askedMB) * f)
	if limit > 0 && next > limit {
		next = max(limit, askedMB) // a cap below the ask never shrinks it
	}
	return next, next <= askedMB
}

// ceilMB rounds x up to a whole MB, ignoring float noise below 1/1000 MB:
// 100 × 1.1 is 110.00000000000001 in floating point and must stay 110.
func ceilMB(x float64) int64 {
	n := int64(x)
	if x-float64(n) > 1e-3 {
		n++
	}
	return n
}

package sim

import "github.com/ebb-am/ebb/dag"

// The RAS experiment's hardware (issue 25): on the paper's nodes (two
// cores, 2 GB, one 7200 rpm disk, Linux 2.6.17) over-commitment costs.
// Every constant is sourced in docs/simulation.md (the RAS experiment)
// and was fixed before the experiments ran; Policy.PaperHardware turns
// the model on (ras and fair-slots-K), so the autoscaling policies keep
// plain processor sharing.
const (
	paperCores = 2 // two-way Xeon
	// paperMemBWMBps / paperSwapMBps: an 800 MHz 64-bit front-side bus
	// against a 7200 rpm disk's sequential rate; their ratio is what a
	// computing task pays for memory served from swap.
	paperMemBWMBps = 6400.0
	paperSwapMBps  = 65.0
	// paperPositionSecs: average read seek (8.5 ms) + half a rotation at
	// 7200 rpm (4.17 ms); paperQuantumSecs: the anticipatory scheduler's
	// read_expire (HZ/8), how long one stream keeps the disk.
	paperPositionSecs = 0.0085 + 60.0/7200/2
	paperQuantumSecs  = 0.125
)

// nodeLoad is what a node's running attempts ask of it now: CPU and I/O
// shares, attempts doing I/O (streams) and memory shares.
type nodeLoad struct {
	cpu, io, mem float64
	streams      int
}

// diskEfficiency is the share of its sequential throughput the disk
// delivers to n concurrent streams: all of it to one; with more, one
// positioning per quantum of transfer.
func diskEfficiency(n int) float64 {
	if n <= 1 {
		return 1
	}
	return paperQuantumSecs / (paperQuantumSecs + paperPositionSecs)
}

// pageSlowdown is how many times longer a task with CPU share cpu takes
// on a node whose tasks ask mem of its memory: its computing share of
// time, phi, is stretched by the memory traffic that swap serves.
func pageSlowdown(cpu, mem float64) float64 {
	if mem <= 1 {
		return 1
	}
	f := (mem - 1) / mem
	phi := min(1, cpu*paperCores)
	return (1 - phi) + phi*(1+f*(paperMemBWMBps/paperSwapMBps-1))
}

// rate is the fraction of full speed an attempt with profile p gets on a
// node so loaded: processor sharing of the CPU and I/O it uses (attempts
// without a profile neither slow down nor slow others); with paper, the
// disk's seeks and paging too.
func (l nodeLoad) rate(p *dag.Profile, paper bool) float64 {
	if p == nil {
		return 1
	}
	io, slow := l.io, 1.0
	if paper {
		io /= diskEfficiency(l.streams)
		slow = pageSlowdown(p.CPU, l.mem)
	}
	load := 1.0
	if p.CPU > 0 {
		load = max(load, l.cpu)
	}
	if p.IO > 0 {
		load = max(load, io)
	}
	return 1 / (load * slow)
}

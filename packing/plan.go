package packing

import "maps"

// PlanWorkers decides where n new workers of worker's size (its memory and
// other resource types; its seed and locality are not read) should go: the
// node ids to name in the container requests sent to YARN, in order. It
// calls Choose once per worker on a private copy of nodes, adding each
// worker's memory (and types) to the chosen node before the next choice, so that with packed
// the workers fill medium nodes first instead of all landing on the one
// node that looked best at the start. An entry is "" (anywhere) when no
// known node fits: YARN may still have room on a node ebb has not seen.
//
// nodes' FitsMB should be each node's free memory as far as the caller
// knows; UsedMB what is allocated there. Worker i's seed is derived from
// seed and i, so a plan replays.
func PlanWorkers(a Allocator, nodes []Node, worker Request, n int, seed uint64) []string {
	if n <= 0 {
		return nil
	}
	view := append([]Node(nil), nodes...)
	ids := make([]string, n)
	for w := range ids {
		// The golden-ratio step keeps per-worker seeds apart even when
		// the caller's seeds are consecutive.
		req := Request{MemoryMB: worker.MemoryMB, Types: worker.Types, Seed: seed + uint64(w)*0x9e3779b97f4a7c15}
		i, ok := a.Choose(view, req)
		if !ok {
			continue
		}
		ids[w] = view[i].ID
		view[i].UsedMB += worker.MemoryMB
		view[i].FitsMB -= worker.MemoryMB
		if len(worker.Types) > 0 {
			// A copy: the caller's node keeps its own map.
			free := maps.Clone(view[i].FreeTypes)
			for name, v := range worker.Types {
				free[name] -= v
			}
			view[i].FreeTypes = free
		}
	}
	return ids
}

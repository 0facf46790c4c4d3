//go:build !lockorder

package lockorder

import (
	"sync"
	"testing"
	"unsafe"
)

// Without the tag the types are sync's mutexes, with nothing added, and
// an inversion goes unnoticed (it is the tagged build's job).
func TestOffCostsNothing(t *testing.T) {
	if unsafe.Sizeof(Mutex{}) != unsafe.Sizeof(sync.Mutex{}) || unsafe.Sizeof(RWMutex{}) != unsafe.Sizeof(sync.RWMutex{}) {
		t.Fatalf("sizes %d/%d, want sync's %d/%d", unsafe.Sizeof(Mutex{}), unsafe.Sizeof(RWMutex{}), unsafe.Sizeof(sync.Mutex{}), unsafe.Sizeof(sync.RWMutex{}))
	}
	var a, b Mutex
	a.SetClass("a")
	for _, order := range [][]sync.Locker{{&a, &b}, {&b, &a}} {
		for _, l := range order {
			l.Lock()
		}
		order[1].Unlock()
		order[0].Unlock()
	}
	if Enabled || Verify() != nil || len(Take()) != 0 {
		t.Fatal("the untagged build checks lock order")
	}
}

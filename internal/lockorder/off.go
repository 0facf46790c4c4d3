//go:build !lockorder

package lockorder

import "sync"

// Enabled says whether this build checks lock order (the lockorder tag).
const Enabled = false

// Mutex is a sync.Mutex; with the lockorder tag it is checked.
type Mutex struct{ sync.Mutex }

// SetClass names the mutex's class (see the package comment); call it
// before the mutex is shared. Without the lockorder tag it does nothing.
func (*Mutex) SetClass(string) {}

// RWMutex is a sync.RWMutex; with the lockorder tag it is checked.
type RWMutex struct{ sync.RWMutex }

// SetClass names the mutex's class; without the lockorder tag it does nothing.
func (*RWMutex) SetClass(string) {}

// Verify reports the inversions seen so far; without the tag there are none.
func Verify() error { return nil }

// Take returns and forgets the inversions seen so far; without the tag
// there are none.
func Take() []Violation { return nil }

// Reset forgets every edge and violation; without the tag it does nothing.
func Reset() {}

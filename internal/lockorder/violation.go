package lockorder

import (
	"fmt"
	"strings"
)

// Violation is one inversion: Taking was acquired while Held was held, at
// Stack, though earlier (at Before) the order was the other way round:
// Path lists the classes from Taking back to Held along the edges already
// recorded. For two locks Path is [Taking, Held]; taking a second lock of
// Held's own class (or Held itself again) gives Path [Taking] alone.
type Violation struct {
	Held, Taking string
	Path         []string
	// Stack is where Taking was acquired while Held was held; Before is
	// where the first edge of Path was recorded (its second lock taken
	// while its first was held).
	Stack, Before string
}

func (v Violation) String() string {
	var b strings.Builder
	if len(v.Path) == 1 {
		fmt.Fprintf(&b, "lock order: %s taken while holding a lock of the same class (or the same lock) here:\n%s\n", v.Taking, v.Stack)
		return b.String()
	}
	fmt.Fprintf(&b, "lock order inversion: %s taken while holding %s, but earlier %s\n",
		v.Taking, v.Held, strings.Join(v.Path, " -> "))
	fmt.Fprintf(&b, "--- %s taken while holding %s here:\n%s\n", v.Taking, v.Held, v.Stack)
	if len(v.Path) > 1 {
		fmt.Fprintf(&b, "--- %s taken while holding %s here:\n%s\n", v.Path[1], v.Path[0], v.Before)
	}
	return b.String()
}

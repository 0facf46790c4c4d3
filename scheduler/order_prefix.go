package scheduler

// HeadsReader is a TaskOrder whose Next reads only the first HeadsRead()
// entries of OrderSnapshot.Heads: the AM then builds only that prefix
// (fewer when fewer DAGs are queued), which makes a placement cost O(1)
// instead of O(queued DAGs). Next must pick the same head from the prefix
// as from the whole list, and answer ok=false on an empty prefix exactly
// when it would on an empty list (TestHeadsReadPrefix checks each order
// that says so).
type HeadsReader interface {
	HeadsRead() int
}

// fifo looks at the first head only: the first DAG goes first.
func (fifo) HeadsRead() int { return 1 }

var _ HeadsReader = fifo{}

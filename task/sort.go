package task

import (
	"bytes"
	"slices"
)

// sortLines sorts every input line bytewise. With range partitioning by
// the first byte, partition p of every consumer holds only lines that sort
// before those of partition p+1.
func sortLines(c *Context, args []string) error {
	if err := noFlags("sort", args); err != nil {
		return err
	}
	var lines [][]byte
	err := c.ReadLines(func(_ string, line []byte) error {
		lines = append(lines, bytes.Clone(line))
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(lines, bytes.Compare)
	ws, err := c.OpenWriters()
	if err != nil {
		return err
	}
	for _, l := range lines {
		if err := ws.Emit(l, func(n int) int { return RangePartition(l, n) }); err != nil {
			_ = ws.Close()
			return err
		}
	}
	return ws.Close()
}

package task

// catLines copies every input line to the outputs, each line to the
// partition its hash picks (so equal lines meet in one consumer task).
func catLines(c *Context, args []string) error {
	if err := noFlags("cat", args); err != nil {
		return err
	}
	ws, err := c.OpenWriters()
	if err != nil {
		return err
	}
	if err := passThrough(c, ws); err != nil {
		_ = ws.Close()
		return err
	}
	return ws.Close()
}

func passThrough(c *Context, ws *Writers) error {
	return c.ReadLines(func(_ string, line []byte) error {
		return ws.Emit(line, func(n int) int { return HashPartition(line, n) })
	})
}

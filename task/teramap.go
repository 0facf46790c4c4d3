package task

import (
	"bytes"
	"fmt"
)

// teraMap range-partitions the records of its splits by cut points from
// the sampled keys its upstream vertex sent (terasample.go).
func teraMap(c *Context, args []string) error {
	if err := noFlags("tera-map", args); err != nil {
		return err
	}
	if c.IsSink() {
		return fmt.Errorf("tera-map partitions for a tera-reduce: give it an outgoing scatter-gather edge")
	}
	keys, err := c.readSampledKeys()
	if err != nil {
		return err
	}
	// One set of cuts per partition count (edges to consumers of equal
	// parallelism share one).
	cuts := map[int][][]byte{}
	for _, o := range c.Outputs {
		if _, ok := cuts[o.Partitions]; !ok {
			if cuts[o.Partitions], err = cutPoints(keys, o.Partitions); err != nil {
				return fmt.Errorf("partitions for %s: %w", o.Consumer, err)
			}
		}
	}
	files, err := c.splitFiles()
	if err != nil {
		return err
	}
	ws, err := c.OpenWriters()
	if err != nil {
		return err
	}
	err = c.readRecordFiles(files, RecordLength, func(rec []byte) error {
		return ws.EmitRecord(rec, func(parts int) int { return cutPartition(cuts[parts], rec[:KeyLength]) })
	})
	if err != nil {
		_ = ws.Close() // the task fails with err; its outputs are discarded
		return err
	}
	return ws.Close()
}

// readSampledKeys reads every KeyLength-byte key of the inputs that are
// not splits.
func (c *Context) readSampledKeys() ([][]byte, error) {
	files, err := c.sampleFiles()
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no sampled keys: tera-map needs a tera-sample vertex joined to it by a broadcast edge")
	}
	var keys [][]byte
	for _, f := range files {
		if _, err := readRecords(f, KeyLength, func(k []byte) error {
			keys = append(keys, bytes.Clone(k))
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

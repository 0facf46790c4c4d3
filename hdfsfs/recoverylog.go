package hdfsfs

// RecoveryLog is the AM's recovery log (am/recovery.FS) on HDFS: each
// segment a closed private file. It sits beside Lister, the AM's other
// adapter over FS; the port it satisfies is am/recovery's, which this
// package does not import (leaf packages never compile the AM).
type RecoveryLog struct{ FS *FS }

// Create writes a whole segment as a new private file.
func (h RecoveryLog) Create(p string, data []byte) error {
	_, err := h.FS.WriteFile(p, data, 0o600)
	return err
}

// ReadFile reads a whole segment.
func (h RecoveryLog) ReadFile(p string) ([]byte, error) { return h.FS.ReadFile(p) }

// List names the files (not directories) in dir.
func (h RecoveryLog) List(dir string) ([]string, error) {
	es, err := h.FS.List(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(es))
	for _, e := range es {
		if !e.IsDir {
			names = append(names, e.Name)
		}
	}
	return names, nil
}

// Remove removes a segment (or a directory of them).
func (h RecoveryLog) Remove(p string) error { return h.FS.RemoveAll(p) }

// Package fsys owns listing input files: the Lister port the AM expands a
// vertex's input patterns through, and its local implementation. It is a
// leaf: it imports only the standard library, so hdfsfs, the worker and
// the AM can all use it without depending on each other.
package fsys

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FileInfo is an input file and its size.
type FileInfo struct {
	Path string
	Size int64
}

// Lister expands an input pattern (a path or a glob) into files. The local
// file system is one; HDFS is another.
type Lister interface {
	List(pattern string) ([]FileInfo, error)
}

// LocalFS lists files on this machine.
type LocalFS struct{}

func (LocalFS) List(pattern string) ([]FileInfo, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	var out []FileInfo
	for _, m := range matches {
		err := filepath.Walk(m, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if fi.Mode().IsRegular() && !strings.HasPrefix(fi.Name(), ".") && !strings.HasPrefix(fi.Name(), "_") {
				out = append(out, FileInfo{Path: p, Size: fi.Size()})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Schemes sends each pattern to the Lister of its URL scheme ("s3" for
// s3://...), and any other (a plain path, or a scheme not in the map) to
// Default.
type Schemes struct {
	ByScheme map[string]Lister
	Default  Lister
}

func (s Schemes) List(pattern string) ([]FileInfo, error) {
	if scheme, _, ok := strings.Cut(pattern, "://"); ok {
		if l, found := s.ByScheme[scheme]; found {
			return l.List(pattern)
		}
	}
	return s.Default.List(pattern)
}

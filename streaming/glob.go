package streaming

import (
	"errors"
	iofs "io/fs"
	"path"
	"slices"
	"strings"
)

// GlobDirs expands a slash-separated pattern whose every element may hold
// a glob (*, ?, [...]; braces are expanded before), as Hadoop's
// FileSystem.globStatus does: element by element from the root, a literal
// element taken as it is, a pattern matched against the names readDir
// lists in each directory reached so far. Matches are sorted; a directory
// that does not exist matches nothing. The pattern must be absolute.
func GlobDirs(pattern string, readDir func(dir string) (names []string, err error), exists func(p string) (bool, error)) ([]string, error) {
	elems := strings.Split(strings.TrimPrefix(path.Clean(pattern), "/"), "/")
	paths := []string{"/"}
	for i, e := range elems {
		var next []string
		last := i == len(elems)-1
		for _, dir := range paths {
			if !hasGlob(e) {
				p := path.Join(dir, e)
				if last {
					ok, err := exists(p)
					if err != nil {
						return nil, err
					}
					if !ok {
						continue
					}
				}
				next = append(next, p)
				continue
			}
			names, err := readDir(dir)
			if errors.Is(err, iofs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if ok, err := path.Match(e, n); err != nil {
					return nil, err
				} else if ok {
					next = append(next, path.Join(dir, n))
				}
			}
		}
		paths = next
		if len(paths) == 0 {
			return nil, nil
		}
	}
	slices.Sort(paths)
	return paths, nil
}

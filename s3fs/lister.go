package s3fs

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/ebb-am/ebb/fsys"
)

// Lister lists s3:// and s3a:// inputs for the AM, as full URIs so that
// workers read them the same way.
type Lister struct{ Store *Store }

var _ fsys.Lister = Lister{}

// List expands a URI or a glob (in its last element: *, ?, [...]) into
// objects, walking prefixes as directories. Like the other listers it skips
// names starting with "_" or "." below the pattern (_SUCCESS, a staging
// area).
func (l Lister) List(pattern string) ([]fsys.FileInfo, error) {
	ctx := context.Background()
	loc, err := Parse(pattern)
	if err != nil {
		return nil, err
	}
	var roots []Location
	dir, base := path.Split(loc.Key)
	if strings.ContainsAny(base, "*?[") {
		files, dirs, err := l.Store.Dir(ctx, loc.At("/"+strings.TrimSuffix(dir, "/")))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if ok, _ := path.Match(base, path.Base(f.Loc.Key)); ok {
				roots = append(roots, f.Loc)
			}
		}
		for _, d := range dirs {
			if ok, _ := path.Match(base, d); ok {
				roots = append(roots, loc.At("/"+dir+d))
			}
		}
	} else {
		roots = []Location{loc}
	}
	var out []fsys.FileInfo
	for _, r := range roots {
		size, _, err := l.Store.Head(ctx, r)
		if err == nil && r.Key != "" {
			out = append(out, fsys.FileInfo{Path: r.String(), Size: size})
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		prefix := r
		if prefix.Key != "" {
			prefix.Key += "/"
		}
		objs, err := l.Store.Walk(ctx, prefix)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if hidden(strings.TrimPrefix(o.Loc.Key, prefix.Key)) {
				continue
			}
			out = append(out, fsys.FileInfo{Path: o.Loc.String(), Size: o.Size})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// hidden: some element of the relative key starts with "_" or ".".
func hidden(rel string) bool {
	for _, e := range strings.Split(rel, "/") {
		if strings.HasPrefix(e, "_") || strings.HasPrefix(e, ".") {
			return true
		}
	}
	return false
}

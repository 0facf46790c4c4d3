package streaming

import (
	"cmp"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ebb-am/ebb/fsys"
)

// FS is what listing inputs and checking the output need of a file
// system (the local one, or HDFS). Paths are as the job gives them,
// qualified.
type FS interface {
	Stat(p string) (Entry, error) // an error wrapping iofs.ErrNotExist when absent
	ReadDir(p string) ([]Entry, error)
	// Glob expands a pattern without braces ({a,b} is expanded before).
	Glob(pattern string) ([]string, error)
}

// Entry is one file or directory.
type Entry struct {
	Path  string
	IsDir bool
	Size  int64
	// BlockSize is the file's HDFS block size (0: unknown, or local).
	BlockSize int64
}

// LocalFS is the local file system.
type LocalFS struct{}

func (LocalFS) Stat(p string) (Entry, error) {
	st, err := os.Stat(p)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Path: p, IsDir: st.IsDir(), Size: st.Size()}, nil
}

func (LocalFS) ReadDir(p string) ([]Entry, error) {
	des, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(des))
	for _, d := range des {
		info, err := d.Info()
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{Path: filepath.Join(p, d.Name()), IsDir: d.IsDir(), Size: info.Size()})
	}
	return out, nil
}

func (LocalFS) Glob(pattern string) ([]string, error) { return filepath.Glob(pattern) }

// Plan is what the job reads and writes, listed as Hadoop's submission
// lists it.
type Plan struct {
	// Files are the input files in Hadoop's order: inputs in the order
	// given, each glob's matches sorted, a directory's files by name.
	Files []Entry
	// SplitSize is FileInputFormat's split size for these files; Splits
	// how many splits (map tasks) they make.
	SplitSize int64
	Splits    int
	Output    string
}

// Show is how a path appears in Hadoop's messages: file: for local paths.
func Show(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	return "file:" + p
}

// MakePlan lists the inputs, checks the output and computes the splits,
// with Hadoop's messages and exit codes for what is wrong: the output is
// checked first (JobSubmitter.checkSpecs runs before the splits).
func MakePlan(fs FS, inputs []string, output string, s *Settings) (*Plan, error) {
	p := &Plan{Output: output}
	if _, err := fs.Stat(output); err == nil {
		return nil, errorf(ExitIOError, "Error Launching job : Output directory %s already exists", Show(output))
	} else if !errors.Is(err, iofs.ErrNotExist) {
		return nil, errorf(ExitIOError, "Error Launching job : %v", err)
	}
	for _, in := range inputs {
		files, err := listInput(fs, in)
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, files...)
	}
	for _, f := range p.Files {
		if c, ok := fsys.CodecOf(f.Path); ok && !c.Supported() {
			return nil, refuse("-input", f.Path, fmt.Sprintf("%s files (Hadoop's %s) are not read by ebb streaming: want plain text, .gz, .bz2 or .deflate", c.Suffix, c.Name))
		}
	}
	for _, f := range p.Files {
		if f.BlockSize != p.Files[0].BlockSize {
			return nil, refuse("-input", f.Path, fmt.Sprintf("its HDFS block size %d differs from %s's %d: ebb streaming cuts all inputs into splits of one size", f.BlockSize, p.Files[0].Path, p.Files[0].BlockSize))
		}
	}
	p.SplitSize, p.Splits = splitSize(p.Files, s)
	return p, nil
}

// hidden is FileInputFormat's hiddenFileFilter: names starting with _ or .
// are skipped, even when named explicitly.
func hidden(p string) bool {
	b := path.Base(filepath.ToSlash(p))
	return strings.HasPrefix(b, "_") || strings.HasPrefix(b, ".")
}

// listInput expands one -input: a glob's matches (sorted) or a path; a
// directory's files one level deep, by name.
func listInput(lister FS, in string) ([]Entry, error) {
	var matches []string
	if hasGlob(in) {
		for _, pat := range expandBraces(in) {
			m, err := lister.Glob(pat)
			if err != nil {
				return nil, errorf(ExitIOError, "Error Launching job : %v", err)
			}
			matches = append(matches, m...)
		}
		slices.Sort(matches)
		matches = slices.Compact(matches)
		if len(matches) == 0 {
			return nil, errorf(ExitIOError, "Error Launching job : Input Pattern %s matches 0 files", Show(in))
		}
	} else {
		if _, err := lister.Stat(in); err != nil {
			if errors.Is(err, iofs.ErrNotExist) {
				return nil, errorf(ExitIOError, "Error Launching job : Input path does not exist: %s", Show(in))
			}
			return nil, errorf(ExitIOError, "Error Launching job : %v", err)
		}
		matches = []string{in}
	}
	var out []Entry
	for _, m := range matches {
		if hidden(m) {
			continue
		}
		e, err := lister.Stat(m)
		if err != nil {
			return nil, errorf(ExitIOError, "Error Launching job : %v", err)
		}
		if !e.IsDir {
			out = append(out, e)
			continue
		}
		entries, err := lister.ReadDir(m)
		if err != nil {
			return nil, errorf(ExitIOError, "Error Launching job : %v", err)
		}
		slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
		for _, c := range entries {
			if hidden(c.Path) {
				continue
			}
			if c.IsDir {
				return nil, errorf(ExitIOError, "Error Launching job : Not a file: %s", Show(c.Path))
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[{") }

// expandBraces turns a{b,c}d into abd, acd (nested braces too).
func expandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	depth := 0
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				var out []string
				for _, alt := range splitOutsideBraces(p[open+1 : i]) {
					out = append(out, expandBraces(p[:open]+alt+p[i+1:])...)
				}
				return out
			}
		}
	}
	return []string{p} // unbalanced: a literal '{'
}

// splitSize is the old API's FileInputFormat.computeSplitSize for the
// files: goal = total / maps (local mode runs with maps = 1), bounded by
// the block size and the minimum; and how many splits the files make.
func splitSize(files []Entry, s *Settings) (int64, int) {
	var total int64
	for _, f := range files {
		total += f.Size
	}
	maps := int64(s.Maps)
	if s.Framework != "yarn" {
		maps = 1
	}
	goal := total / max(maps, 1)
	block := s.LocalBlockSize
	if len(files) > 0 && strings.HasPrefix(files[0].Path, "hdfs://") {
		// Hadoop takes each file's own block size; ebb one split size for
		// all (MakePlan refuses inputs whose block sizes differ).
		block = cmp.Or(files[0].BlockSize, s.DFSBlockSize)
	}
	size := max(max(s.MinSplitSize, 1), min(goal, block))
	n := 0
	for _, f := range files {
		n += len(fsys.SplitsOf(f.Path, f.Size, size))
	}
	return size, n
}

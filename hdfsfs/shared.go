package hdfsfs

import (
	"fmt"
	"os"
)

// What a directory shared by several applications needs beyond a staging
// directory's private files: permission bits to judge who may read a file
// (YARN's PUBLIC resources), directories of a chosen mode, and a rename to
// publish a finished upload under its final name at once.

// Info is a file's or directory's stamp and permission bits.
type Info struct {
	FileStamp
	IsDir bool
	Perm  os.FileMode // rwxrwxrwx only
}

// Info stats p; a missing p is an error that wraps os.ErrNotExist.
func (f *FS) Info(p string) (Info, error) {
	var fi os.FileInfo
	err := f.Do("stat "+p, func() (err error) { fi, err = f.c.Stat(p); return err })
	if err != nil {
		return Info{}, fmt.Errorf("hdfsfs: %w", err)
	}
	return Info{
		FileStamp: FileStamp{URL: f.URL(p), Size: fi.Size(), ModTime: fi.ModTime().UnixMilli()},
		IsDir:     fi.IsDir(), Perm: fi.Mode().Perm(),
	}, nil
}

// MkdirMode creates dir (and missing parents, which get mode as well) and
// sets mode on dir itself, whatever it was.
func (f *FS) MkdirMode(dir string, mode os.FileMode) error {
	err := f.Do("mkdir "+dir, func() error { return f.c.MkdirAll(dir, mode) })
	if err != nil {
		return fmt.Errorf("hdfsfs: mkdir %s: %w", dir, err)
	}
	return f.Chmod(dir, mode)
}

// Chmod sets p's permission bits.
func (f *FS) Chmod(p string, mode os.FileMode) error {
	if err := f.Do("chmod "+p, func() error { return f.c.Chmod(p, mode) }); err != nil {
		return fmt.Errorf("hdfsfs: chmod %s: %w", p, err)
	}
	return nil
}

// Rename moves oldPath to newPath in one NameNode operation. A newPath
// that is a file or an empty directory is replaced; a directory that holds
// anything is not (the NameNode refuses), which is what lets a finished
// upload in a directory of its own be published without ever replacing
// one that another client published first.
func (f *FS) Rename(oldPath, newPath string) error {
	if err := f.c.Rename(oldPath, newPath); err != nil {
		return fmt.Errorf("hdfsfs: rename %s to %s: %w", oldPath, newPath, err)
	}
	return nil
}

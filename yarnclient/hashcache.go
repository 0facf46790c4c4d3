package yarnclient

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The binary's SHA-256 names its copy in HDFS (LibPath), so every submit
// needs it; reading the 38 MB binary costs about 0.1 s of CPU (half a
// second on a busy 2-core gateway), most of a small DAG's submit. The
// hash is kept in a small file (Options.HashCache) beside the file's
// identity: its path, device, inode, size and modification time. A
// rebuilt or replaced binary changes at least one of those, and a stale
// entry is simply hashed again; the HDFS copy's size is still checked
// against the file (sameSize).

// fileID is what identifies one version of a local file.
type fileID struct {
	path               string
	dev, ino           uint64
	size, mtimeNanosec int64
}

func (id fileID) line() string {
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%d", id.path, id.dev, id.ino, id.size, id.mtimeNanosec)
}

// statID identifies p as it is now.
func statID(p string) (fileID, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return fileID{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{path: abs, size: fi.Size(), mtimeNanosec: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino //nolint:unconvert // Dev's type differs between platforms
	}
	return id, nil
}

// cachedSHA256 is fileSHA256 through the cache file cache ("": none). A
// cache that cannot be read or written only costs the hash.
func cachedSHA256(p, cache string) (string, int64, error) {
	if cache == "" {
		return fileSHA256(p)
	}
	id, err := statID(p)
	if err != nil {
		return fileSHA256(p)
	}
	if b, err := os.ReadFile(cache); err == nil {
		if id0, sum, ok := strings.Cut(strings.TrimSpace(string(b)), "\n"); ok && id0 == id.line() && len(sum) == 64 {
			return sum, id.size, nil
		}
	}
	sum, size, err := fileSHA256(p)
	if err != nil {
		return "", 0, err
	}
	if now, err := statID(p); err == nil && now == id && size == id.size {
		// Written whole under another name and renamed, so a concurrent
		// submit never reads half an entry.
		_ = os.MkdirAll(filepath.Dir(cache), 0o700) // WriteFile below says if it failed
		tmp := cache + ".tmp-" + strconv.Itoa(os.Getpid())
		if os.WriteFile(tmp, []byte(id.line()+"\n"+sum+"\n"), 0o600) == nil {
			_ = os.Rename(tmp, cache) // at worst the next submit hashes again
		}
		_ = os.Remove(tmp) // gone after a rename; left only by a failed one
	}
	return sum, size, nil
}

package yarnclient

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/s3fs"
)

// The ebb binary is not staged per application: it lives in HDFS under a
// name made of its content's SHA-256, /user/<user>/.ebb/lib/<sha256>/ebb,
// uploaded by the first submit of that build and reused by every later
// one, so a submit sends nothing but the configuration and the DAG. Both
// the AM and its workers name that one path, so a NodeManager downloads
// it once per application at worst; when the path is readable by anyone
// it goes out as a PUBLIC resource and each NodeManager downloads it once
// for all applications. ebb.lib.uri names a binary an admin installed
// instead (as Tez's tez.lib.uris does), and then nothing is uploaded.

// KeyLibURI names a pre-installed ebb binary in HDFS or on S3 (libs3.go).
const KeyLibURI = "ebb.lib.uri"

// EnvBinary and EnvBinaryVisibility tell the AM which binary, with which
// visibility, its workers run: the one its own container was given.
const (
	EnvBinary           = "EBB_BINARY"
	EnvBinaryVisibility = "EBB_BINARY_VISIBILITY"
)

// LibDir is /user/<user>/.ebb/lib, the user's ebb binaries by content.
// `ebb clean` leaves it alone: every later submit of the same build and
// the running applications of older builds use what is in it.
func LibDir(user string) string { return "/user/" + user + "/.ebb/lib" }

// LibPath is where the binary whose SHA-256 is sum (hex) lives.
func LibPath(user, sum string) string { return LibDir(user) + "/" + sum + "/" + StagedBinary }

// sharedStore is what Store offers for the binary's shared directory
// (hdfsfs.FS has it all).
type sharedStore interface {
	// Info stats a path; a missing one wraps os.ErrNotExist.
	Info(p string) (hdfsfs.Info, error)
	MkdirMode(dir string, mode os.FileMode) error
	Chmod(p string, mode os.FileMode) error
	// Rename never replaces a directory that holds anything.
	Rename(oldPath, newPath string) error
	// Path takes an hdfs:// URL of this file system (or an absolute
	// path) and returns the path.
	Path(location string) (string, error)
}

// binaryPlaced is where the AM and its workers get their ebb from.
type binaryPlaced struct {
	Resource yarn.LocalResource
	// Why is why the visibility is what it is, for the user.
	Why string
}

// binaryHash is the local ebb binary, its SHA-256 and its size.
type binaryHash struct {
	local, sum string
	size       int64
	err        error
}

// hashBinary starts hashing the local ebb binary and returns the wait for
// the result (nil when ebb.lib.uri names a binary on the cluster instead).
// Reading and hashing some 40 MB costs 30-40 ms of CPU on every submit; it
// runs while Submit waits on the ResourceManager and HDFS.
func (c *Client) hashBinary() func() binaryHash {
	if strings.TrimSpace(c.conf.String(KeyLibURI)) != "" {
		return nil
	}
	done := make(chan binaryHash, 1) // the goroutine never blocks, even if nobody waits
	go func() {
		var h binaryHash
		if h.local, h.err = c.localBinary(); h.err == nil {
			if h.sum, h.size, h.err = cachedSHA256(h.local, c.hashCache); h.err != nil {
				h.err = fmt.Errorf("hashing the ebb binary %s: %w", h.local, h.err)
			}
		}
		done <- h
	}()
	return sync.OnceValue(func() binaryHash { return <-done })
}

// placeBinary finds the ebb binary the application runs, uploading it
// only when no earlier submit did, and says what it did through say. hash
// is hashBinary's wait, when the caller started it early (nil: hash now).
func (c *Client) placeBinary(fs Store, say func(string), hash func() binaryHash) (binaryPlaced, error) {
	if uri := strings.TrimSpace(c.conf.String(KeyLibURI)); s3fs.IsS3(uri) {
		return c.s3Binary(fs, uri, say)
	} else if uri != "" {
		return c.preinstalled(fs, uri, say)
	}
	if hash == nil {
		hash = c.hashBinary()
	}
	h := hash()
	if h.err != nil {
		return binaryPlaced{}, h.err
	}
	return c.placeLocal(fs, say, h.local, h.sum, h.size)
}

// placeLocal places the local binary whose SHA-256 is sum in the lib
// directory, uploading it unless an earlier submit did.
func (c *Client) placeLocal(fs Store, say func(string), local, sum string, size int64) (binaryPlaced, error) {
	p := LibPath(c.user, sum)
	info, err := fs.Info(p)
	switch {
	case err == nil:
		if err := sameSize(info, size, local); err != nil {
			return binaryPlaced{}, err
		}
		say(fmt.Sprintf("reusing ebb binary at %s (uploaded earlier)", fs.URL(p)))
	case errors.Is(err, os.ErrNotExist):
		start := time.Now()
		if info, err = c.uploadBinary(fs, local, sum, size); err != nil {
			return binaryPlaced{}, err
		}
		say(fmt.Sprintf("uploaded ebb binary to %s (%.1f MB in %s); later submits of this build reuse it",
			fs.URL(p), float64(size)/(1<<20), time.Since(start).Round(time.Millisecond)))
	default:
		return binaryPlaced{}, fmt.Errorf("looking for the ebb binary at %s: %w", fs.URL(p), err)
	}
	return placed(fs, p, info)
}

// placed is the LocalResource of the binary at p, PUBLIC when the
// NodeManagers may share it.
func placed(fs Store, p string, info hdfsfs.Info) (binaryPlaced, error) {
	vis, why, err := visibilityOf(fs.Info, p, info)
	if err != nil {
		return binaryPlaced{}, fmt.Errorf("checking who may read %s: %w", fs.URL(p), err)
	}
	return binaryPlaced{
		Resource: yarn.LocalResource{URL: info.URL, Size: info.Size, Timestamp: info.ModTime, Visibility: vis},
		Why:      why,
	}, nil
}

// preinstalled is the binary ebb.lib.uri names; it must be there.
func (c *Client) preinstalled(fs Store, uri string, say func(string)) (binaryPlaced, error) {
	p, err := fs.Path(uri)
	if err != nil || !path.IsAbs(p) {
		return binaryPlaced{}, c.conf.ErrorFor(KeyLibURI, fmt.Sprintf("an hdfs:// URL of an ebb binary on the cluster's file system %s (%v)", fs.URL("/"), err))
	}
	info, err := fs.Info(p)
	if errors.Is(err, os.ErrNotExist) {
		return binaryPlaced{}, c.conf.ErrorFor(KeyLibURI, fmt.Sprintf("an ebb binary that exists; %s does not", fs.URL(p)))
	}
	if err != nil {
		return binaryPlaced{}, fmt.Errorf("%s: looking for %s: %w", KeyLibURI, fs.URL(p), err)
	}
	if info.IsDir {
		return binaryPlaced{}, c.conf.ErrorFor(KeyLibURI, fmt.Sprintf("an ebb binary; %s is a directory", fs.URL(p)))
	}
	say(fmt.Sprintf("using the ebb binary at %s (%s); nothing uploaded", fs.URL(p), KeyLibURI))
	return placed(fs, p, info)
}

// localBinary is the executable to upload: Options.Binary, else this
// process's own.
func (c *Client) localBinary() (string, error) {
	if c.binary != "" {
		return c.binary, nil
	}
	return os.Executable()
}

// sameSize guards against a file at a content's path that is not that
// content (its size is what can be checked without reading it back): the
// name was given by an upload that completed, so only a hand-made file
// can be wrong.
func sameSize(info hdfsfs.Info, size int64, local string) error {
	if info.IsDir || info.Size != size {
		return fmt.Errorf("%s should be a copy of %s (%d bytes) but holds %d bytes: remove it (hdfs dfs -rm -r %s) and submit again",
			info.URL, local, size, info.Size, path.Dir(info.URL))
	}
	return nil
}

// uploadBinary copies local to the lib directory under sum, atomically:
// into a directory of its own first, which one rename then makes
// LibDir/<sum>. A concurrent submit of the same build may win that race;
// its copy is as good as this one (the rename never replaces it, so the
// timestamp it quoted stays valid) and this one is dropped.
func (c *Client) uploadBinary(fs Store, local, sum string, size int64) (hdfsfs.Info, error) {
	lib := LibDir(c.user)
	if err := c.makeLibDir(fs, lib); err != nil {
		return hdfsfs.Info{}, err
	}
	tmp, err := tempName(lib + "/.upload-")
	if err != nil {
		return hdfsfs.Info{}, err
	}
	final := lib + "/" + sum
	err = func() error {
		if err := fs.MkdirMode(tmp, 0o755); err != nil {
			return err
		}
		// Readable by anyone: the binary holds no secret, and a world-
		// readable file is what lets the NodeManagers share one copy.
		if _, err := fs.Upload(local, tmp+"/"+StagedBinary, 0o755); err != nil {
			return err
		}
		return fs.Rename(tmp, final)
	}()
	info, statErr := fs.Info(final + "/" + StagedBinary)
	if err != nil && statErr == nil {
		err = nil // another submit published it first
	}
	// Gone after a rename; a leftover costs space, not correctness.
	_ = fs.RemoveAll(tmp)
	if err != nil {
		return hdfsfs.Info{}, fmt.Errorf("uploading the ebb binary to %s: %w", fs.URL(final), err)
	}
	if statErr != nil {
		return hdfsfs.Info{}, fmt.Errorf("uploading the ebb binary to %s: %w", fs.URL(final), statErr)
	}
	return info, sameSize(info, size, local)
}

// makeLibDir creates the lib directory searchable by anyone, and lets
// anyone search (not list) /user/<user>/.ebb above it, which an older
// ebb's first staging directory created private: without that no
// NodeManager could treat the binary as PUBLIC. Nothing private becomes
// readable: the staging and history directories below .ebb stay 0700
// themselves.
func (c *Client) makeLibDir(fs Store, lib string) error {
	dot := path.Dir(lib)
	info, err := fs.Info(dot)
	if errors.Is(err, os.ErrNotExist) {
		if err := fs.MkdirMode(dot, 0o711); err != nil {
			return err
		}
		info, err = fs.Info(dot)
	}
	if err != nil {
		return err
	}
	if err := fs.MkdirMode(lib, 0o755); err != nil {
		return err
	}
	if info.Perm&0o011 != 0o011 {
		// Someone else's .ebb (an admin's layout) refuses: the check in
		// placed then says APPLICATION, which still works.
		_ = fs.Chmod(dot, info.Perm|0o011)
	}
	return nil
}

// tempName is prefix and 16 random hex digits.
func tempName(prefix string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return prefix + hex.EncodeToString(b[:]), nil
}

// fileSHA256 is the hex SHA-256 and the size of a local file.
func fileSHA256(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = f.Close() }() // read-only
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// visibilityOf decides a file's visibility by the rule a NodeManager
// applies before it puts a file in its public cache (Hadoop's
// FSDownload.isPublic): the file readable by others, and every directory
// above it searchable by others. Hadoop skips the file's own directory;
// this checks it too, since a file nobody else can reach is not public
// whatever the NodeManager would accept. Anything else is APPLICATION:
// the same single path for the AM and every worker still means one
// download per node per application.
func visibilityOf(stat func(string) (hdfsfs.Info, error), p string, info hdfsfs.Info) (yarn.Visibility, string, error) {
	const once = "; one copy per node per application"
	if info.Perm&0o004 == 0 {
		return yarn.VisibilityApplication, fmt.Sprintf("%s is %s: others cannot read it", p, info.Perm) + once, nil
	}
	for d := path.Dir(p); ; d = path.Dir(d) {
		di, err := stat(d)
		if err != nil {
			return 0, "", err
		}
		if di.Perm&0o001 == 0 {
			return yarn.VisibilityApplication, fmt.Sprintf("%s is %s: others cannot search it", d, di.Perm|os.ModeDir) + once, nil
		}
		if d == "/" {
			break
		}
	}
	return yarn.VisibilityPublic, "readable by anyone, so each caches one copy for all applications", nil
}

// WorkerBinary is the binary the AM's workers run: the one the client
// named for the AM in EBB_BINARY, with its visibility, stamped afresh (the
// NodeManager wants the size and time HDFS has).
func WorkerBinary(fs interface {
	Path(string) (string, error)
	Stamp(string) (hdfsfs.FileStamp, error)
}, getenv func(string) string) (yarn.LocalResource, error) {
	url := getenv(EnvBinary)
	if url == "" {
		return yarn.LocalResource{}, fmt.Errorf("%s is not set: this AM was not started by `ebb submit`", EnvBinary)
	}
	vis, err := yarn.ParseVisibility(getenv(EnvBinaryVisibility))
	if err != nil {
		return yarn.LocalResource{}, fmt.Errorf("%s: %w", EnvBinaryVisibility, err)
	}
	p, err := fs.Path(url)
	if err != nil {
		return yarn.LocalResource{}, fmt.Errorf("%s=%s: %w", EnvBinary, url, err)
	}
	st, err := fs.Stamp(p)
	if err != nil {
		return yarn.LocalResource{}, fmt.Errorf("%s=%s: %w", EnvBinary, url, err)
	}
	return yarn.LocalResource{URL: st.URL, Size: st.Size, Timestamp: st.ModTime, Visibility: vis}, nil
}

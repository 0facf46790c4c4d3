package yarnclient

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func sumOf(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// The cache answers for the same file version without reading it, and a
// new version (its modification time moved) is hashed again.
func TestCachedSHA256(t *testing.T) {
	dir := t.TempDir()
	bin, cache := filepath.Join(dir, "ebb"), filepath.Join(dir, "cache", "binary-sha256")
	v1, v2 := []byte("version one"), []byte("version two")
	when := time.Unix(1_700_000_000, 0)
	write := func(b []byte, mtime time.Time) {
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(bin, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write(v1, when)
	if sum, size, err := cachedSHA256(bin, cache); err != nil || sum != sumOf(v1) || size != int64(len(v1)) {
		t.Fatalf("first hash: %s %d %v, want %s %d", sum, size, err, sumOf(v1), len(v1))
	}
	// Same size, same time, other bytes: only a cache answers v1's sum,
	// which shows it was not read again. (A real rebuild moves the time.)
	write(v2, when)
	if sum, _, _ := cachedSHA256(bin, cache); sum != sumOf(v1) {
		t.Fatalf("same file identity: %s, want the cached %s", sum, sumOf(v1))
	}
	write(v2, when.Add(time.Second))
	if sum, _, _ := cachedSHA256(bin, cache); sum != sumOf(v2) {
		t.Fatalf("after a rebuild: %s, want %s", sum, sumOf(v2))
	}
	// No cache file: hashed every time.
	if sum, _, _ := cachedSHA256(bin, ""); sum != sumOf(v2) {
		t.Fatalf("without a cache: %s, want %s", sum, sumOf(v2))
	}
}

package worker

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/colinmarc/hdfs/v2"

	"github.com/ebb-am/ebb/yarnrpc"
)

// Fresh tokens from the AM replace the token file (0600, whole) and the
// cached NameNode clients, so the next connection uses them; a blob that is
// not credentials changes nothing.
func TestUpdateCredentials(t *testing.T) {
	path := filepath.Join(t.TempDir(), "container_tokens")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HADOOP_TOKEN_FILE_LOCATION", path)
	old := &hdfs.Client{}
	f := &filesystems{hdfs: map[string]*hdfs.Client{"nn:8020": old}}

	if err := f.updateCredentials([]byte("not credentials")); err == nil {
		t.Fatal("a malformed blob was accepted")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" || len(f.hdfs) != 1 {
		t.Fatalf("a refused update changed things: file %q, clients %d", b, len(f.hdfs))
	}

	blob := (&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Alias: "127.0.0.1:8020", Token: yarnrpc.Token{
		Identifier: []byte("id"), Password: []byte("pw"), Kind: yarnrpc.KindHDFSDelegationToken, Service: "127.0.0.1:8020"}}}}).MarshalWritable()
	if err := f.updateCredentials(blob); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(b, blob) {
		t.Fatalf("token file %x (%v), want %x", b, err, blob)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if len(f.hdfs) != 0 || len(f.retired) != 1 || f.retired[0] != old {
		t.Errorf("clients %v, retired %v: the old client must be retired, not reused", f.hdfs, f.retired)
	}
	f.retired = nil // a zero client cannot be closed

	t.Setenv("HADOOP_TOKEN_FILE_LOCATION", "")
	if err := f.updateCredentials(blob); err == nil {
		t.Error("an update without a token file succeeded")
	}
}

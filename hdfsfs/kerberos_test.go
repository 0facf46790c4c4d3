package hdfsfs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/kerberos"
)

// The test user writes and reads its home on the Kerberos cluster,
// authenticated as its principal; the file belongs to its short name.
func TestKerberosReadWrite(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	login, err := kerberos.New(ctx, kerberos.Options{Principal: c.UserPrincipal, Keytab: c.UserKeytab, Krb5Conf: c.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	defer login.Close()
	fs, err := DialKerberos(ctx, c.Property(t, "core-site.xml", "fs.defaultFS"), login,
		c.Property(t, "hdfs-site.xml", KeyNameNodePrincipal))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fs.Close() }() // test cleanup
	dir := fmt.Sprintf("/user/%s/hdfsfs-krb/%d", c.UserName, time.Now().UnixNano())
	defer func() { _ = fs.RemoveAll(dir) }() // test cleanup
	if err := fs.MkdirPrivate(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.WriteFile(dir+"/f", []byte("secure hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(dir + "/f")
	if err != nil || string(b) != "secure hello\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	fi, err := fs.c.Stat(dir + "/f")
	if err != nil {
		t.Fatal(err)
	}
	if o := fi.(*hdfs.FileInfo).Owner(); o != c.UserName {
		t.Errorf("owner %q, want %q (the principal's short name)", o, c.UserName)
	}
}

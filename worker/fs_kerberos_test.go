package worker

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/testcluster"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/yarnrpc"
)

// A worker on a secure cluster reads hdfs:// input with the delegation
// token the NodeManager put in its token file, without any Kerberos.
func TestKerberosWorkerReadsWithDelegationToken(t *testing.T) {
	c := testcluster.Secure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	login, err := kerberos.New(ctx, kerberos.Options{Principal: c.UserPrincipal, Keytab: c.UserKeytab, Krb5Conf: c.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	defer login.Close()
	defaultFS := c.Property(t, "core-site.xml", "fs.defaultFS")
	nnPrincipal := c.Property(t, "hdfs-site.xml", hdfsfs.KeyNameNodePrincipal)
	// The submitting client: writes the input, obtains the token.
	gw, err := hdfsfs.DialKerberos(ctx, defaultFS, login, nnPrincipal)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = gw.Close() }() // test cleanup
	p := fmt.Sprintf("/user/%s/worker-krb-%d.txt", c.UserName, time.Now().UnixNano())
	defer func() { _ = gw.RemoveAll(p) }() // test cleanup
	if _, err := gw.WriteFile(p, []byte("one two two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(defaultFS)
	if err != nil {
		t.Fatal(err)
	}
	nn := yarnrpc.NewNameNodeClient(u.Host, yarnrpc.WithKerberos(yarnrpc.Kerberos{Login: login, Principal: nnPrincipal}))
	defer func() { _ = nn.Close() }() // test cleanup
	tok, err := nn.GetDelegationToken(ctx, c.Env["SERVICE_PRINCIPAL"])
	if err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(t.TempDir(), "container_tokens")
	blob := (&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{{Alias: tok.Service, Token: tok}}}).MarshalWritable()
	if err := os.WriteFile(tokenFile, blob, 0o600); err != nil {
		t.Fatal(err)
	}
	// The worker: only the token file.
	t.Setenv("HADOOP_TOKEN_FILE_LOCATION", tokenFile)
	t.Setenv("KRB5CCNAME", "FILE:/nonexistent")
	fss := &filesystems{}
	defer fss.close()
	fsys, path, err := fss.resolve(defaultFS + p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := fsys.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }() // read-only
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "one two two\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}

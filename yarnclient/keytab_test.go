package yarnclient

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/kerberos"
)

// With --principal/--keytab the keytab and the krb5.conf the client used
// are staged 0600 and localised into the AM's container; the environment
// carries the principal's name and nothing of the keytab; removing the
// staging directory removes the keytab.
func TestSubmitShipsKeytabToAMOnly(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	dir := t.TempDir()
	keytab := []byte("\x05\x02 a keytab's key bytes \x00\x17")
	krb5 := []byte("[libdefaults]\n default_realm = EXAMPLE.COM\n")
	for name, b := range map[string][]byte{"u.keytab": keytab, "krb5.conf": krb5} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	yc.keytab = kerberos.Options{Principal: "alice@EXAMPLE.COM", Keytab: filepath.Join(dir, "u.keytab"), Krb5Conf: filepath.Join(dir, "krb5.conf")}
	id, err := yc.Submit(context.Background(), SubmitOptions{Session: true})
	if err != nil {
		t.Fatal(err)
	}
	staging := StagingDir("alice", id)
	for name, want := range map[string][]byte{StagedKeytab: keytab, StagedKrb5Conf: krb5} {
		p := staging + "/" + name
		if !bytes.Equal(fs.files[p], want) || fs.modes[p] != 0o600 {
			t.Errorf("%s: staged %q mode %o, want %q mode 600", name, fs.files[p], fs.modes[p], want)
		}
		if r, ok := rm.submitted[0].AM.Resources[name]; !ok || r.URL != fs.URL(p) {
			t.Errorf("AM resource %s: %+v", name, r)
		}
	}
	env := rm.submitted[0].AM.Env
	if env[EnvPrincipal] != "alice@EXAMPLE.COM" {
		t.Errorf("AM env %s=%q", EnvPrincipal, env[EnvPrincipal])
	}
	for k, v := range env {
		if strings.Contains(v, string(keytab[3:10])) || strings.Contains(v, "u.keytab") {
			t.Errorf("AM env %s=%q carries the keytab", k, v)
		}
	}
	if err := yc.RemoveStaging(yarn.AppReport{ID: id, User: "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, left := fs.files[staging+"/"+StagedKeytab]; left {
		t.Error("the keytab outlived the staging directory's removal")
	}
}

// Without a keytab login nothing of the kind is shipped.
func TestSubmitWithoutKeytabShipsNone(t *testing.T) {
	rm, fs := newFakeRM(), newMemStore()
	yc := testClient(t, testConf(t), rm, fs)
	id, err := yc.Submit(context.Background(), SubmitOptions{Session: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fs.files[StagingDir("alice", id)+"/"+StagedKeytab]; ok {
		t.Error("a keytab was staged")
	}
	if _, ok := rm.submitted[0].AM.Env[EnvPrincipal]; ok {
		t.Error("the AM was told a principal")
	}
}

package yarnclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/yarnrpc"
)

// The files go into the token file beside the tokens, and come out of it
// into the AM's directory as they went in.
func TestInlineFilesRoundTrip(t *testing.T) {
	tok := yarnrpc.NamedToken{Alias: "nn", Token: yarnrpc.Token{Identifier: []byte("id"), Kind: yarnrpc.KindHDFSDelegationToken, Service: "nn"}}
	tokens := (&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{tok}}).MarshalWritable()
	blob, err := amCredentials(tokens, map[string][]byte{StagedConf: []byte("<configuration/>"), StagedDAG: []byte("name: x\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := yarnrpc.ReadCredentialsFile(writeTemp(t, blob))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := creds.TokenOfKind(yarnrpc.KindHDFSDelegationToken); !ok {
		t.Errorf("the delegation token is gone: %+v", creds)
	}
	dir := t.TempDir()
	names, err := WriteInlineFiles(creds, dir)
	if err != nil || strings.Join(names, ",") != StagedConf+","+StagedDAG {
		t.Fatalf("wrote %v, %v", names, err)
	}
	for name, want := range map[string]string{StagedConf: "<configuration/>", StagedDAG: "name: x\n"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		st, _ := os.Stat(filepath.Join(dir, name))
		if err != nil || string(b) != want || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %q (%v), want %q, mode 0600", name, b, err, want)
		}
	}
	// No files: the tokens unchanged, and nothing to write.
	if same, _ := amCredentials(tokens, nil, nil); string(same) != string(tokens) {
		t.Errorf("no files changed the tokens")
	}
	if names, err := WriteInlineFiles(&yarnrpc.Credentials{Tokens: []yarnrpc.NamedToken{tok}}, t.TempDir()); err != nil || len(names) != 0 {
		t.Errorf("a token file without files: wrote %v, %v", names, err)
	}
}

// The AM writes only its own files, whatever a token file names.
func TestWriteInlineFilesRefusesOtherNames(t *testing.T) {
	dir := t.TempDir()
	creds := &yarnrpc.Credentials{Secrets: []yarnrpc.NamedSecret{{Alias: InlineAliasPrefix + "../evil", Secret: []byte("x")}}}
	_, err := WriteInlineFiles(creds, dir)
	if err == nil || !strings.Contains(err.Error(), `"ebb.am.file.../evil"`) {
		t.Fatalf("error %v, want one naming the alias", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("something was written beside %s: %v", dir, entries)
	}
}

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/yarnrpc"
)

// A YARN worker finds the secret in its container's token file; a local
// one in EBB_SECRET, which wins when both are there.
func TestWorkerSecretFromEnvOrTokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, c *yarnrpc.Credentials) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, c.MarshalWritable(), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	withSecret := write("with", &yarnrpc.Credentials{Secrets: []yarnrpc.NamedSecret{{Alias: "other", Secret: []byte("no")}, {Alias: yarn.SecretAlias, Secret: []byte("s3cret")}}})
	without := write("without", &yarnrpc.Credentials{Secrets: []yarnrpc.NamedSecret{{Alias: "other", Secret: []byte("no")}}})
	for _, c := range []struct {
		env     map[string]string
		want    string
		wantErr string
	}{
		{map[string]string{"HADOOP_TOKEN_FILE_LOCATION": withSecret}, "s3cret", ""},
		{map[string]string{"EBB_SECRET": "local", "HADOOP_TOKEN_FILE_LOCATION": withSecret}, "local", ""},
		{map[string]string{"HADOOP_TOKEN_FILE_LOCATION": without}, "", "no application secret (" + yarn.SecretAlias + ") in the token file " + without},
		{map[string]string{"HADOOP_TOKEN_FILE_LOCATION": filepath.Join(dir, "absent")}, "", "reading the application secret"},
		{map[string]string{}, "", "neither EBB_SECRET nor HADOOP_TOKEN_FILE_LOCATION"},
	} {
		got, err := workerSecret(func(k string) string { return c.env[k] })
		if got != c.want || (c.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("env %v: %q, %v; want %q, error containing %q", c.env, got, err, c.want, c.wantErr)
		}
	}
}

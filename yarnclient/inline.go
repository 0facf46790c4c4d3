package yarnclient

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ebb-am/ebb/yarnrpc"
)

// The AM's small files (the effective configuration and the DAG) travel in
// its container's token file, as secret keys named InlineAliasPrefix+name,
// when together they are at most InlineMaxBytes; larger ones are localized
// from the staging directory as before (they are staged either way).
//
// Why: a localized file the NodeManager does not already hold as PUBLIC
// costs it a localizer run before the container may start, 130 ms on an
// idle test cluster and 250 ms on a busy one, most of the AM container's
// start after the binary itself (PUBLIC, cached). The token file is as
// private as the staged copies (the NodeManager writes it for the
// container's user only; the RM keeps it with the application, the way it
// keeps MapReduce's shuffle secret). The bound keeps the application's
// record in the RM's state store small (a ZooKeeper store takes at most
// 1 MB per application).
const (
	InlineAliasPrefix = "ebb.am.file."
	InlineMaxBytes    = 64 << 10
)

// amCredentials is the AM container's token file: the delegation tokens
// (a Credentials blob, or nil on an insecure cluster) with files added as
// secret keys. No files: the tokens as they are.
func amCredentials(tokens []byte, files map[string][]byte, secrets []yarnrpc.NamedSecret) ([]byte, error) {
	if len(files) == 0 && len(secrets) == 0 {
		return tokens, nil
	}
	creds := &yarnrpc.Credentials{}
	if len(tokens) > 0 {
		var err error
		if creds, err = yarnrpc.ReadCredentials(bytes.NewReader(tokens)); err != nil {
			return nil, fmt.Errorf("the AM's delegation tokens: %w", err)
		}
	}
	for _, name := range []string{StagedConf, StagedDAG} { // a fixed order: the same bytes every time
		if data, ok := files[name]; ok {
			creds.Secrets = append(creds.Secrets, yarnrpc.NamedSecret{Alias: InlineAliasPrefix + name, Secret: data})
		}
	}
	creds.Secrets = append(creds.Secrets, secrets...)
	return creds.MarshalWritable(), nil
}

// WriteInlineFiles writes the files a client put in the AM's token file
// (see InlineAliasPrefix) into dir, mode 0600, and returns their names. A
// name that is not one of the AM's staged files is an error: the AM
// writes nowhere else.
func WriteInlineFiles(creds *yarnrpc.Credentials, dir string) ([]string, error) {
	var names []string
	for _, s := range creds.Secrets {
		name, ok := strings.CutPrefix(s.Alias, InlineAliasPrefix)
		if !ok {
			continue
		}
		if name != StagedConf && name != StagedDAG {
			return names, fmt.Errorf("the AM's token file carries %q: want %s or %s", s.Alias, InlineAliasPrefix+StagedConf, InlineAliasPrefix+StagedDAG)
		}
		if err := os.WriteFile(filepath.Join(dir, name), s.Secret, 0o600); err != nil {
			return names, fmt.Errorf("writing %s from the AM's token file: %w", name, err)
		}
		names = append(names, name)
	}
	return names, nil
}

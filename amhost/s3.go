package amhost

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/fsys"
	"github.com/ebb-am/ebb/s3fs"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// S3Store is the AM's (and the gateway's) S3 client set. Its fs.s3a.*
// settings come from the secrets of creds first (on YARN, the gateway's
// S3 credentials travel in the container's token file, never in its
// environment or command line), then from c (core-site.xml, mr3-site.xml,
// --set); what neither sets comes from the AWS chain.
func S3Store(c *conf.Config, creds *yarnrpc.Credentials) *s3fs.Store {
	secrets := map[string]string{}
	if creds != nil {
		for _, s := range creds.Secrets {
			if strings.HasPrefix(s.Alias, "fs.s3a.") {
				secrets[s.Alias] = string(s.Secret)
			}
		}
	}
	return s3fs.NewStore(func(k string) (string, bool) {
		if v, ok := secrets[k]; ok {
			return v, true
		}
		if c == nil {
			return "", false
		}
		return c.Raw(k)
	})
}

// withS3 lists s3:// and s3a:// inputs through st and the rest through l.
func withS3(l fsys.Lister, st *s3fs.Store) fsys.Lister {
	return fsys.Schemes{ByScheme: map[string]fsys.Lister{"s3": s3fs.Lister{Store: st}, "s3a": s3fs.Lister{Store: st}}, Default: l}
}

// withS3Resolver resolves s3:// and s3a:// outputs through st and the rest
// through r.
func withS3Resolver(r commit.Resolver, st *s3fs.Store) commit.Resolver {
	return func(location string) (commit.FS, string, error) {
		if s3fs.IsS3(location) {
			return st.Resolve(location)
		}
		return r(location)
	}
}

// shipS3Settings gives local workers the AM's fs.s3a.* settings (--set
// ones included), in a private credentials file under root that their
// HADOOP_TOKEN_FILE_LOCATION names, as a NodeManager hands a container
// its tokens. Nothing when there are none.
func shipS3Settings(c *conf.Config, root string) (map[string]string, error) {
	// The workers inherit the environment: only the configuration's keys.
	secrets := yarnclient.S3Secrets(c, func(string) string { return "" })
	if len(secrets) == 0 {
		return nil, nil
	}
	p := filepath.Join(root, "worker-credentials")
	creds := &yarnrpc.Credentials{Secrets: secrets}
	if err := os.WriteFile(p, creds.MarshalWritable(), 0o600); err != nil {
		return nil, fmt.Errorf("writing the workers' S3 settings: %w", err)
	}
	return map[string]string{"HADOOP_TOKEN_FILE_LOCATION": p}, nil
}

// s3Secrets are the fs.s3a.* secrets of the AM's credentials (the
// gateway's S3 settings, yarnclient.S3Secrets).
func s3Secrets(creds *yarnrpc.Credentials) []yarnrpc.NamedSecret {
	var out []yarnrpc.NamedSecret
	for _, s := range creds.Secrets {
		if strings.HasPrefix(s.Alias, "fs.s3a.") {
			out = append(out, s)
		}
	}
	return out
}

// workerCredentials is what workers' launch contexts carry: the HDFS
// tokens (hdfs, serialized; nil on an insecure cluster) and the S3
// settings of the AM's credentials.
func workerCredentials(hdfs []byte, creds *yarnrpc.Credentials) []byte {
	secrets := s3Secrets(creds)
	if len(secrets) == 0 {
		return hdfs
	}
	wc := &yarnrpc.Credentials{}
	if len(hdfs) > 0 {
		if parsed, err := yarnrpc.ReadCredentials(bytes.NewReader(hdfs)); err == nil {
			wc = parsed
		}
	}
	wc.Secrets = append(wc.Secrets, secrets...)
	return wc.MarshalWritable()
}

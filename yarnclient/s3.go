package yarnclient

import (
	"os"
	"strings"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/yarnrpc"
)

// S3 settings travel to the AM and its workers as the secrets of their
// container credentials (the token file a NodeManager writes 0600 into
// the container's directory), as delegation tokens do: never in the
// staged configuration, an environment, a command line or a log.

// isS3Secret says whether an fs.s3a.* key holds a credential (plain or
// per bucket): those stay out of the configuration shipped to the AM.
func isS3Secret(k string) bool {
	if !strings.HasPrefix(k, "fs.s3a.") {
		return false
	}
	for _, s := range []string{".access.key", ".secret.key", ".session.token"} {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

// S3Secrets are c's fs.s3a.* keys, and, when c names no access key, the
// gateway's own AWS credentials from its environment as fs.s3a.access.key,
// fs.s3a.secret.key and fs.s3a.session.token: what the AM and the workers
// need to reach S3 as the gateway does.
func S3Secrets(c *conf.Config, getenv func(string) string) []yarnrpc.NamedSecret {
	var out []yarnrpc.NamedSecret
	have := map[string]bool{}
	for _, k := range c.Keys() {
		if strings.HasPrefix(k, "fs.s3a.") {
			if v, ok := c.Raw(k); ok && v != "" {
				out = append(out, yarnrpc.NamedSecret{Alias: k, Secret: []byte(v)})
				have[k] = true
			}
		}
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if ak, sk := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"); ak != "" && sk != "" && !have["fs.s3a.access.key"] {
		out = append(out, yarnrpc.NamedSecret{Alias: "fs.s3a.access.key", Secret: []byte(ak)},
			yarnrpc.NamedSecret{Alias: "fs.s3a.secret.key", Secret: []byte(sk)})
		if st := getenv("AWS_SESSION_TOKEN"); st != "" {
			out = append(out, yarnrpc.NamedSecret{Alias: "fs.s3a.session.token", Secret: []byte(st)})
		}
	}
	return out
}

// withoutS3Secrets is the configuration to ship, less the S3 credentials.
func withoutS3Secrets(eff map[string]string) map[string]string {
	out := make(map[string]string, len(eff))
	for k, v := range eff {
		if !isS3Secret(k) {
			out[k] = v
		}
	}
	return out
}

// WithoutS3Secrets is the effective configuration without the S3 keys
// that are secrets: what may be written where others can read it (the
// staging directory, a Kubernetes ConfigMap).
func WithoutS3Secrets(eff map[string]string) map[string]string { return withoutS3Secrets(eff) }

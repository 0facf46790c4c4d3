package s3fs

import (
	"fmt"
	"strconv"
	"strings"
)

// Settings is how one bucket is reached. The zero values mean: AWS's own
// endpoint for the region, virtual-host addressing, the region and the
// credentials of the AWS chain (environment, shared config and credentials
// files, profile, instance role).
type Settings struct {
	Endpoint  string // a URL with its scheme
	Region    string
	PathStyle bool
	// AccessKey, SecretKey and SessionToken: static credentials, when
	// fs.s3a.access.key and fs.s3a.secret.key are set.
	AccessKey, SecretKey, SessionToken string
	// Where names the key each setting came from, for error messages
	// (never a secret).
	Where map[string]string
}

// The Hadoop S3A keys ebb reads; fs.s3a.bucket.NAME.<rest> overrides
// fs.s3a.<rest> for bucket NAME, as in S3A.
const (
	keyEndpoint     = "endpoint"
	keyRegion       = "endpoint.region"
	keyPathStyle    = "path.style.access"
	keySSL          = "connection.ssl.enabled"
	keyAccessKey    = "access.key"
	keySecretKey    = "secret.key"
	keySessionToken = "session.token"
)

// SettingsFor reads bucket's settings from Hadoop's fs.s3a.* keys through
// lookup (core-site.xml as loaded by package conf). A value that cannot be
// used is an error naming the key and the value (never a secret's value).
func SettingsFor(bucket string, lookup func(string) (string, bool)) (Settings, error) {
	s := Settings{Where: map[string]string{}}
	get := func(rest string) (string, string, bool) {
		for _, k := range []string{"fs.s3a.bucket." + bucket + "." + rest, "fs.s3a." + rest} {
			if lookup == nil {
				break
			}
			if v, ok := lookup(k); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v), k, true
			}
		}
		return "", "", false
	}
	boolKey := func(rest string, def bool) (bool, error) {
		v, k, ok := get(rest)
		if !ok {
			return def, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return def, fmt.Errorf("%s=%q: want true or false", k, v)
		}
		return b, nil
	}
	ssl, err := boolKey(keySSL, true)
	if err != nil {
		return s, err
	}
	if s.PathStyle, err = boolKey(keyPathStyle, false); err != nil {
		return s, err
	}
	if v, k, ok := get(keyEndpoint); ok {
		if !strings.Contains(v, "://") {
			// S3A takes a bare host[:port], its scheme from the SSL key.
			v = map[bool]string{true: "https://", false: "http://"}[ssl] + v
		}
		if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
			return s, fmt.Errorf("%s=%q: want host[:port] or an http(s):// URL", k, v)
		}
		s.Endpoint, s.Where["endpoint"] = v, k
	}
	if v, k, ok := get(keyRegion); ok {
		s.Region, s.Where["region"] = v, k
	}
	ak, akKey, hasAK := get(keyAccessKey)
	sk, skKey, hasSK := get(keySecretKey)
	switch {
	case hasAK && hasSK:
		s.AccessKey, s.SecretKey = ak, sk
		s.Where["credentials"] = akKey + " and " + skKey
		if v, _, ok := get(keySessionToken); ok {
			s.SessionToken = v
		}
	case hasAK:
		return s, fmt.Errorf("%s is set but no fs.s3a.secret.key for bucket %s: set both, or neither to use the AWS credential chain", akKey, bucket)
	case hasSK:
		return s, fmt.Errorf("%s is set but no fs.s3a.access.key for bucket %s: set both, or neither to use the AWS credential chain", skKey, bucket)
	}
	return s, nil
}

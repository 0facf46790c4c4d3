package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/yarnclient"
)

// The yarn commands (submit, kill) and `ebb dag --app` call into
// yarnclient; this file holds what they share: the client's configuration
// and a yarnclient.Client built from it. `ebb am` is the AM's side, in
// yarn_am.go.

// loadClientConf reads the configuration the way `ebb submit` does, for
// commands that only talk to the RM and HDFS.
func loadClientConf() (*conf.Config, error) {
	var cf confFlags
	return cf.load(newLogger("warn", "", ""))
}

// newYarnClient is a gateway client of the cluster in c, staging this
// process's binary.
func newYarnClient(c *conf.Config) (*yarnclient.Client, error) {
	return newYarnClientAs(c, kerberos.Options{})
}

// newYarnClientAs is newYarnClient with Kerberos credentials (used only on
// a cluster with hadoop.security.authentication=kerberos).
func newYarnClientAs(c *conf.Config, krb kerberos.Options) (*yarnclient.Client, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return yarnclient.New(yarnclient.Options{Conf: c, Binary: exe, HashCache: binaryHashCache(), Kerberos: krb,
		// A command waiting out an RM restart or failover says so.
		RMRetryLog: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "ebb: "+format+"\n", args...) }})
}

// binaryHashCache is where submits keep this binary's SHA-256
// (yarnclient.Options.HashCache): the user's cache directory, or none.
func binaryHashCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ebb", "binary-sha256")
}

// yarnAMs resolves --app (and no AM named at all) through the
// ResourceManager: it is `ebb dag`'s and `ebb autoscale`'s amResolver.
type yarnAMs struct{}

var _ amResolver = yarnAMs{}

func (yarnAMs) findAM(ctx context.Context, app string, start bool, cf confFlags, errOut io.Writer) (yarnclient.AM, error) {
	c, err := cf.load(newLogger("warn", "", ""))
	if err != nil {
		return yarnclient.AM{}, err
	}
	yc, err := newYarnClient(c)
	if err != nil {
		return yarnclient.AM{}, err
	}
	// Only reports and listings went over this connection.
	defer func() { _ = yc.Close() }()
	p := &printer{w: errOut}
	return yc.FindAM(ctx, app, start, func(line string) { p.println(line) })
}

// exitCode2 marks an application that did not succeed: the command exits 2.
func exitCode2(err error) error {
	var ae *yarnclient.AppError
	if errors.As(err, &ae) {
		return &exitError{code: 2, err: err}
	}
	return err
}

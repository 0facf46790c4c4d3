package yarnclient

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
)

// Files in the staging directory: the client writes the first three, the
// AM writes the secret for clients and workers.
const (
	StagedBinary = "ebb"
	StagedConf   = "mr3-site.xml"
	StagedDAG    = "dag.yaml"
	StagedSecret = "secret"
	// StagedKeytab and StagedKrb5Conf are shipped, with EnvPrincipal in the
	// AM's environment, when `ebb submit` logged in with --principal and
	// --keytab: the AM logs in from them to replace delegation tokens that
	// reach their maximum lifetime. The keytab is 0600 and localised into
	// the AM's container only (never the workers'); the AM's staging
	// cleanup removes it with the rest.
	StagedKeytab   = "keytab"
	StagedKrb5Conf = "krb5.conf"
)

// EnvPrincipal names, in the AM's environment, the principal of the
// shipped keytab (a name, not a secret).
const EnvPrincipal = "EBB_PRINCIPAL"

// StagingDir is /user/<user>/.ebb/staging/<application id> in HDFS.
func StagingDir(user string, app yarn.AppID) string {
	return "/user/" + user + "/.ebb/staging/" + app.String()
}

// withFS runs f on a freshly dialled staging file system.
func (c *Client) withFS(f func(Store) error) error {
	fs, err := c.dialFS()
	if err != nil {
		return err
	}
	// Each file is closed (and so committed) by the call that wrote it;
	// closing the connection after the work loses nothing.
	defer func() { _ = fs.Close() }()
	return f(fs)
}

// appUser is whose staging directory holds the application's files.
func (c *Client) appUser(rep yarn.AppReport) string {
	if rep.User != "" {
		return rep.User
	}
	return c.user
}

// RemoveStaging removes an ended application's staging directory. The AM
// removes it when it unregisters; an AM that died or was killed cannot.
// First the output commits its recovery log shows unsettled are settled
// (settleEndedOutputs; Settled says which): the log goes with the
// directory, and nothing else would ever settle them.
func (c *Client) RemoveStaging(rep yarn.AppReport) error {
	return c.withFS(func(fs Store) error {
		settled, err := c.settleEndedOutputs(fs, rep)
		c.Settled = append(c.Settled, settled...)
		if err != nil {
			return fmt.Errorf("%s ended with output commits unsettled, and settling them failed (its staging directory stays; ebb kill %s tries again): %w", rep.ID, rep.ID, err)
		}
		return fs.RemoveAll(StagingDir(c.appUser(rep), rep.ID))
	})
}

// ReadSecret reads the secret the AM wrote to its staging directory (0600
// in a 0700 directory: only the user can), polling until timeout for an
// AM that has not written it yet.
func (c *Client) ReadSecret(ctx context.Context, rep yarn.AppReport, timeout time.Duration) (string, error) {
	var secret string
	err := c.withFS(func(fs Store) error {
		p := StagingDir(c.appUser(rep), rep.ID) + "/" + StagedSecret
		deadline := time.Now().Add(timeout)
		for {
			b, err := fs.ReadFile(p)
			if err == nil && len(b) > 0 {
				secret = strings.TrimSpace(string(b))
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the AM of %s wrote no secret to %s: %v", rep.ID, p, err)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	return secret, err
}

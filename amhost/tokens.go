package amhost

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/ebb-am/ebb/am"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/kerberos"
	"github.com/ebb-am/ebb/security"
	"github.com/ebb-am/ebb/yarnclient"
	"github.com/ebb-am/ebb/yarnrpc"
)

// On a secure cluster the AM and its workers live on the delegation tokens
// `ebb submit` obtained. The RM renews them, but only up to their maximum
// lifetime (dfs.namenode.delegation.token.max-lifetime); after that HDFS
// refuses them. With the keytab `ebb submit --principal --keytab` shipped,
// the AM logs in and replaces them before then: its own HDFS connections,
// its running workers (a Credentials message) and the launch context of
// workers started later all get the fresh ones. Without a keytab it says
// once, at start, when HDFS access will end.

// keyRenewInterval is how long a token lives without renewal: fresh tokens
// the AM obtains are not renewed by the RM, so they are replaced within it.
const keyRenewInterval = "dfs.namenode.delegation.token.renew-interval"

// defaultRenewInterval is Hadoop's default for keyRenewInterval.
const defaultRenewInterval = 24 * time.Hour

// Backoff between failed refreshes: quick enough to ride out a KDC
// restart, slow enough not to hammer a KDC that is down.
const (
	refreshMinRetry = 2 * time.Second
	refreshMaxRetry = time.Minute
	// refreshTimeout bounds one login plus the two token requests.
	refreshTimeout = 90 * time.Second
)

// tokenUsers are what fresh tokens are handed to.
type tokenUsers struct {
	hdfs  *hdfsfs.Tokens // the AM's own HDFS: recovery log, staging, outputs, history
	am    *am.AM         // running workers
	world *yarn.World    // workers launched later
	// s3 are the fs.s3a.* settings workers get beside their tokens.
	s3 []yarnrpc.NamedSecret
}

// startTokenRefresh starts the refresher when the AM has a keytab (and
// logs when HDFS access ends when it has none); the returned func stops
// it. creds are the AM's tokens from its launch context; principal is
// the keytab's (YarnEnv.Principal).
func startTokenRefresh(log *logrus.Logger, c *conf.Config, sec security.Config, creds *yarnrpc.Credentials, principal string, to tokenUsers) (func(), error) {
	nop := func() {}
	if !sec.Kerberos {
		return nop, nil
	}
	keytab, err := filepath.Abs(yarnclient.StagedKeytab)
	if _, statErr := os.Stat(keytab); principal == "" || err != nil || statErr != nil {
		if maxDate, ok := security.MaxDate(hdfsTokens(creds)); ok {
			log.Warnf("ebb am: this application cannot use HDFS after %s, when its HDFS delegation token reaches its maximum lifetime (%s); "+
				"submit with --principal and --keytab for sessions that run longer", maxDate.UTC().Format(time.RFC3339), "dfs.namenode.delegation.token.max-lifetime")
		}
		return nop, nil
	}
	renew, err := renewInterval(c)
	if err != nil {
		return nil, err
	}
	o := kerberos.Options{Principal: principal, Keytab: keytab}
	if _, err := os.Stat(yarnclient.StagedKrb5Conf); err == nil {
		o.Krb5Conf, _ = filepath.Abs(yarnclient.StagedKrb5Conf)
	}
	checkKeytab(log, o, creds)
	r := &security.Refresher{
		Obtain: func(ctx context.Context) (*yarnrpc.Credentials, error) {
			ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
			defer cancel()
			login, err := kerberos.New(ctx, o)
			if err != nil {
				return nil, err
			}
			defer login.Close()
			return sec.ObtainTokens(ctx, login, c.DefaultFS(), c.RMAddress())
		},
		Install:       to.install(log),
		Clock:         security.WallClock{},
		RenewInterval: renew,
		MinRetry:      refreshMinRetry, MaxRetry: refreshMaxRetry,
		Log: func(msg string) { log.Info("ebb am: " + msg) },
	}
	// The AMRMToken is no delegation token: its dates are not the kind
	// RefreshBy reads, and the RM rolls it itself.
	delegation := creds.OfKinds(yarnrpc.KindHDFSDelegationToken, yarnrpc.KindRMDelegationToken)
	at, _ := security.RefreshBy(delegation, renew)
	log.Infof("ebb am: %s's keytab shipped: the delegation tokens are replaced at %s, and each fresh set three quarters into its life",
		principal, at.UTC().Format(time.RFC3339))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.Run(ctx, delegation); err != nil && ctx.Err() == nil {
			log.Warnf("ebb am: the delegation tokens will not be refreshed: %v", err)
		}
	}()
	return func() { cancel(); <-done }, nil
}

// checkKeytab logs in once at start, so that a keytab the KDC refuses
// shows now and not days later at the first refresh. A failure does not
// stop the AM: its tokens still work, and the refresher tries again.
func checkKeytab(log *logrus.Logger, o kerberos.Options, creds *yarnrpc.Credentials) {
	ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
	defer cancel()
	login, err := kerberos.New(ctx, o)
	if err != nil {
		until, _ := security.MaxDate(hdfsTokens(creds))
		log.Errorf("ebb am: cannot log in from the shipped keytab (the refresher will retry; without it HDFS access ends at %s): %v",
			until.UTC().Format(time.RFC3339), err)
		return
	}
	login.Close()
}

// install hands fresh tokens to the AM's HDFS, the running workers and
// the launch context of workers to come. Workers get the HDFS tokens and
// the S3 settings only.
func (to tokenUsers) install(log *logrus.Logger) func(*yarnrpc.Credentials) {
	return func(fresh *yarnrpc.Credentials) {
		to.hdfs.Set(fresh)
		wc := hdfsTokens(fresh)
		wc.Secrets = append(wc.Secrets, to.s3...)
		blob := wc.MarshalWritable()
		to.world.SetWorkerTokens(blob)
		n := to.am.SetWorkerCredentials(blob)
		log.Infof("ebb am: fresh delegation tokens in use by the AM, sent to %d running workers and given to workers launched from now on", n)
	}
}

// hdfsTokens are the HDFS delegation tokens of creds: what workers get
// (never the AMRMToken or the RM token).
func hdfsTokens(creds *yarnrpc.Credentials) *yarnrpc.Credentials {
	return creds.OfKinds(yarnrpc.KindHDFSDelegationToken)
}

// renewInterval reads dfs.namenode.delegation.token.renew-interval (ms).
func renewInterval(c *conf.Config) (time.Duration, error) {
	v, ok := c.Raw(keyRenewInterval)
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return defaultRenewInterval, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms <= 0 {
		return 0, c.ErrorFor(keyRenewInterval, "a positive number of milliseconds")
	}
	return time.Duration(ms) * time.Millisecond, nil
}

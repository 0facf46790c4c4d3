package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
)

// The yarn commands (submit, am, kill) and `ebb dag --app` live in the
// yarn_*.go files; this one holds what they share: who the user is, where
// an application's staging directory is, and finding a running AM.

func init() {
	extraCommands = append(extraCommands, newSubmitCmd, newYarnAMCmd, newKillCmd)
	findAMByApp = findYarnAM
}

// appType is the YARN application type of every ebb AM.
const appType = "EBB"

// sessionTag marks session AMs, so `ebb dag submit` finds one and not a
// single-DAG application of the same user.
const sessionTag = "ebb-session"

// Files in the staging directory.
const (
	stagedBinary = "ebb"
	stagedConf   = "mr3-site.xml"
	stagedDAG    = "dag.yaml"
	stagedSecret = "secret"
)

// yarnUser follows the Hadoop client convention: HADOOP_USER_NAME, then
// the login user.
func yarnUser() string {
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}

// stagingDir is /user/<user>/.ebb/staging/<application id> in HDFS.
func stagingDir(user string, app yarn.AppID) string {
	return "/user/" + user + "/.ebb/staging/" + app.String()
}

// loadClientConf reads the configuration the way `ebb submit` does, for
// commands that only talk to the RM and HDFS.
func loadClientConf() (*conf.Config, error) {
	var cf confFlags
	return cf.load(newLogger("warn", "", ""))
}

// findYarnAM resolves --app to the AM's client address and secret. An
// empty id (or "session") means the user's running ebb session, started
// now when there is none and start is true.
func findYarnAM(ctx context.Context, app string, start bool) (string, string, error) {
	c, err := loadClientConf()
	if err != nil {
		return "", "", err
	}
	user := yarnUser()
	rm := yarn.NewClient(c.RMAddress(), user)
	defer rm.Close()
	var rep yarn.AppReport
	if app == "" || app == "session" {
		rep, err = findSession(ctx, rm, user)
		if errors.Is(err, errNoSession) {
			if !start {
				return "", "", fmt.Errorf("%w of user %s: start one with ebb submit (no DAG) or ebb dag submit, or name an application with --app", errNoSession, user)
			}
			rep, err = startSession(ctx, c, os.Stderr)
		}
		if err != nil {
			return "", "", err
		}
	} else {
		id, err := yarn.ParseAppID(app)
		if err != nil {
			return "", "", err
		}
		if rep, err = waitRunning(ctx, rm, id, 2*time.Minute); err != nil {
			return "", "", err
		}
	}
	secret, err := readSecret(ctx, c, rep, 30*time.Second)
	if err != nil {
		return "", "", err
	}
	return amAddress(rep), secret, nil
}

var errNoSession = errors.New("no running ebb session")

func findSession(ctx context.Context, rm *yarn.Client, user string) (yarn.AppReport, error) {
	apps, err := rm.Apps(ctx, []string{appType}, []yarn.AppState{yarn.StateRunning}, []string{user})
	if err != nil {
		return yarn.AppReport{}, fmt.Errorf("listing applications: %w", err)
	}
	var best *yarn.AppReport
	for i, a := range apps {
		for _, t := range a.Tags {
			if t == sessionTag && a.RPCPort > 0 && (best == nil || a.StartMs > best.StartMs) {
				best = &apps[i]
			}
		}
	}
	if best == nil {
		return yarn.AppReport{}, errNoSession
	}
	return *best, nil
}

func amAddress(rep yarn.AppReport) string {
	return net.JoinHostPort(rep.Host, strconv.Itoa(int(rep.RPCPort)))
}

// waitRunning polls the application's report until its AM has registered
// (RUNNING) or it ended.
func waitRunning(ctx context.Context, rm *yarn.Client, id yarn.AppID, timeout time.Duration) (yarn.AppReport, error) {
	deadline := time.Now().Add(timeout)
	for {
		rep, err := rm.Report(ctx, id)
		if err != nil {
			return rep, fmt.Errorf("report of %s: %w", id, err)
		}
		if rep.State == yarn.StateRunning && rep.RPCPort > 0 {
			return rep, nil
		}
		if rep.State.Done() {
			return rep, fmt.Errorf("application %s is %s (%s): %s", id, rep.State, rep.Final, rep.Diagnostics)
		}
		if time.Now().After(deadline) {
			return rep, fmt.Errorf("application %s is still %s after %s", id, rep.State, timeout)
		}
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// readSecret reads the secret the AM wrote to its staging directory
// (0600 in a 0700 directory: only the user can).
func readSecret(ctx context.Context, c *conf.Config, rep yarn.AppReport, timeout time.Duration) (string, error) {
	user := rep.User
	if user == "" {
		user = yarnUser()
	}
	fs, err := hdfsfs.Dial(c.DefaultFS(), yarnUser())
	if err != nil {
		return "", err
	}
	defer fs.Close()
	p := stagingDir(user, rep.ID) + "/" + stagedSecret
	deadline := time.Now().Add(timeout)
	for {
		b, err := fs.ReadFile(p)
		if err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b)), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the AM of %s wrote no secret to %s: %v", rep.ID, p, err)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

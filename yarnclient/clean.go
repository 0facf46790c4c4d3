package yarnclient

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/yarnrpc"
)

// StagingRoot is the directory holding every staging directory of user.
func StagingRoot(user string) string { return "/user/" + user + "/.ebb/staging" }

// orphanAge is how old a staging directory of an application the
// ResourceManager does not know must be before Clean removes it: `ebb
// submit` creates the directory before it submits, so a young one may be
// a submission under way.
const orphanAge = time.Hour

// Cleaned is one staging directory Clean removed, and why.
type Cleaned struct {
	App    string
	Path   string
	Reason string // e.g. "FAILED", "unknown to the ResourceManager"
}

// Clean removes the staging directories of the user's applications that
// are in a final state (FINISHED, FAILED, KILLED), and of applications the
// ResourceManager no longer knows when they are older than an hour. Live
// applications keep theirs: a new AM attempt needs the binary, the
// configuration, the secret and the recovery log. now is the caller's
// clock (for the age of orphans).
func (c *Client) Clean(ctx context.Context, now time.Time) ([]Cleaned, error) {
	var out []Cleaned
	err := c.withFS(func(fs Store) error {
		root := StagingRoot(c.user)
		apps, err := c.stagedApps(fs)
		if err != nil {
			return err
		}
		var errs []error
		for _, a := range apps {
			id, e := a.id, a.entry
			reason, err := c.cleanReason(ctx, id, now.Sub(e.ModTime))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if reason == "" {
				continue
			}
			p := root + "/" + e.Name
			// Output commits its AM left unsettled go first: the
			// recovery log that names them goes with the directory.
			settled, err := c.settleEndedOutputs(fs, yarn.AppReport{ID: id, User: c.user})
			c.Settled = append(c.Settled, settled...)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: settling its unsettled output commits (its staging directory stays): %w", id, err))
				continue
			}
			if err := fs.RemoveAll(p); err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, Cleaned{App: e.Name, Path: p, Reason: reason})
		}
		return errors.Join(errs...)
	})
	return out, err
}

// stagedApp is one application's staging directory.
type stagedApp struct {
	id    yarn.AppID
	entry hdfsfs.Entry
}

// stagedApps lists the user's staging directories named for an
// application, in name order; other entries are not ours to judge.
func (c *Client) stagedApps(fs Store) ([]stagedApp, error) {
	entries, err := fs.List(StagingRoot(c.user))
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	var out []stagedApp
	for _, e := range entries {
		if id, err := yarn.ParseAppID(e.Name); err == nil && e.IsDir {
			out = append(out, stagedApp{id: id, entry: e})
		}
	}
	return out, nil
}

// cleanReason says why an application's staging directory may go ("" =
// keep it).
func (c *Client) cleanReason(ctx context.Context, id yarn.AppID, age time.Duration) (string, error) {
	rep, err := c.rm.Report(ctx, id)
	if err != nil {
		if !appNotFound(err) {
			return "", fmt.Errorf("report of %s: %w", id, err)
		}
		if age < orphanAge {
			return "", nil
		}
		return fmt.Sprintf("unknown to the ResourceManager, staged %s ago", age.Round(time.Minute)), nil
	}
	if !rep.State.Done() {
		return "", nil
	}
	return fmt.Sprintf("%s (%s)", rep.State, rep.Final), nil
}

// appNotFound: the RM does not know the application (it ended long ago
// and was forgotten, or the RM lost its state).
func appNotFound(err error) bool {
	var re *yarnrpc.RemoteError
	return errors.As(err, &re) && strings.HasSuffix(re.Class, "ApplicationNotFoundException")
}

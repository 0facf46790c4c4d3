package yarnclient

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
)

// Pruning the shared binaries (`ebb clean --lib`). Every build a user
// submits stays in /user/<user>/.ebb/lib/<sha256>/ebb so later submits of
// it upload nothing; old builds pile up. A binary may go only when no
// application still running uses it: a running session localises it again
// for every worker it starts, and an AM's next attempt does too. Each
// submission names its binary in its staging directory (StagedBinaryRef),
// which lives as long as the application; so the binaries to keep are
// those named by the staging directories of applications that have not
// ended, and the client's own build (the next submit's).

// StagedBinaryRef names, in an application's staging directory, the URL
// of the ebb binary it runs. It is not localised: only `ebb clean --lib`
// reads it.
const StagedBinaryRef = "binary.url"

// Pruned is a binary PruneLib removed.
type Pruned struct {
	Path   string
	Reason string
}

// PruneLib removes the shared binaries that neither a running application
// nor this client's own build uses. It removes nothing when the
// ResourceManager cannot say whether an application runs, or when a
// running application's staging directory does not name its binary
// (submitted by an ebb that did not write StagedBinaryRef).
func (c *Client) PruneLib(ctx context.Context) ([]Pruned, error) {
	keep := map[string]string{}
	if h := c.hashBinary(); h != nil {
		own := h()
		if own.err != nil {
			return nil, own.err
		}
		keep[own.sum] = "this ebb's own build"
	}
	var out []Pruned
	err := c.withFS(func(fs Store) error {
		live, err := c.liveBinaries(ctx, fs)
		if err != nil {
			return err
		}
		for sum, app := range live {
			keep[sum] = "used by " + app
		}
		lib := LibDir(c.user)
		entries, err := fs.List(lib)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
		var errs []error
		for _, e := range entries {
			if !e.IsDir || !isSum(e.Name) {
				continue // an upload under way (a temporary name), or not ours
			}
			if _, ok := keep[e.Name]; ok {
				continue
			}
			p := lib + "/" + e.Name
			if err := fs.RemoveAll(p); err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, Pruned{Path: p, Reason: "no running application uses it, and it is not this ebb's build"})
		}
		return errors.Join(errs...)
	})
	return out, err
}

// liveBinaries maps the hash of each binary in the user's lib directory
// that a running application uses to that application.
func (c *Client) liveBinaries(ctx context.Context, fs Store) (map[string]string, error) {
	apps, err := c.stagedApps(fs)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	live := map[string]string{}
	for _, a := range apps {
		id := a.id
		rep, err := c.rm.Report(ctx, id)
		if err != nil {
			if appNotFound(err) {
				continue // long gone: `ebb clean` removes its staging
			}
			return nil, fmt.Errorf("report of %s: %w (nothing pruned: it may still run)", id, err)
		}
		if rep.State.Done() {
			continue
		}
		ref, err := fs.ReadFile(StagingDir(c.user, id) + "/" + StagedBinaryRef)
		if err != nil {
			return nil, fmt.Errorf("application %s runs, and its staging directory does not name its ebb binary (%s: %v; an ebb older than this one submitted it): nothing pruned; run again once it has ended",
				id, StagedBinaryRef, err)
		}
		if sum, ok := c.libSum(strings.TrimSpace(string(ref))); ok {
			live[sum] = id.String()
		}
	}
	return live, nil
}

// libSum is the hash directory of a binary URL in the user's lib
// directory (false for a binary elsewhere, as ebb.lib.uri may name).
func (c *Client) libSum(binURL string) (string, bool) {
	u, err := url.Parse(binURL)
	if err != nil {
		return "", false
	}
	rest, ok := strings.CutPrefix(u.Path, LibDir(c.user)+"/")
	if !ok {
		return "", false
	}
	sum, _, _ := strings.Cut(rest, "/")
	return sum, isSum(sum)
}

// isSum says whether name is a SHA-256 in hex, the name of a lib entry.
func isSum(name string) bool {
	b, err := hex.DecodeString(name)
	return err == nil && len(b) == 32
}

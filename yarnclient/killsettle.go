package yarnclient

import (
	"errors"
	"fmt"

	"github.com/ebb-am/ebb/am/recovery"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/s3fs"
)

// settleEndedOutputs finishes or undoes, once an application has ended,
// the output commits its AM left: an AM killed while committing (ebb
// kill: the NodeManager's SIGKILL follows its SIGTERM at once) or that
// died on its last attempt leaves no next attempt to settle them, and on S3 an unsettled commit is a set of
// pending multipart uploads that nothing would ever abort. The recovery
// log in the application's staging directory says which DAGs were
// accepted and not seen to end, with their outputs and staging ids; the
// output's own state says how far each commit went: a started one is
// finished (its DAG had succeeded), any other is aborted. It returns one
// line per output it settled.
func (c *Client) settleEndedOutputs(fs Store, rep yarn.AppReport) ([]string, error) {
	var said []string
	err := func() error {
		dir := StagingDir(c.appUser(rep), rep.ID) + "/recovery"
		_, _, recs, _, err := recovery.Open(readOnlyLog{fs}, dir)
		if err != nil {
			return err
		}
		open := map[string]struct {
			output, id   string
			over, existd bool
		}{}
		for _, r := range recs {
			switch {
			case r.DAGAccepted != nil && r.DAGAccepted.Output != "" && r.DAGAccepted.StagingID != "":
				x := r.DAGAccepted
				open[x.DAG] = struct {
					output, id   string
					over, existd bool
				}{x.Output, x.StagingID, x.Overwrite, x.Existed}
			case r.DAGEnded != nil:
				delete(open, r.DAGEnded.DAG)
			}
		}
		st := s3fs.NewStore(c.conf.Raw)
		cm := commit.New(func(loc string) (commit.FS, string, error) {
			if s3fs.IsS3(loc) {
				return st.Resolve(loc)
			}
			return fs.Resolve(loc)
		})
		for dag, p := range open {
			ph, err := cm.Phase(p.output, p.id)
			if err != nil {
				return fmt.Errorf("DAG %s's output %s: %w", dag, p.output, err)
			}
			if ph == commit.NotStarted {
				err = cm.Abort(p.output, p.id, !p.existd)
			} else {
				err = cm.Promote(p.output, p.id, p.over)
			}
			var cle *commit.CleanupError
			var ce *commit.CommittedError
			if err != nil && !errors.As(err, &cle) && !errors.As(err, &ce) {
				return fmt.Errorf("DAG %s's output %s: %w", dag, p.output, err)
			}
			what := "its staged results removed"
			if ph != commit.NotStarted {
				what = "its interrupted commit finished"
			}
			said = append(said, fmt.Sprintf("DAG %s's output %s: %s", dag, p.output, what))
		}
		return nil
	}()
	return said, err
}

// readOnlyLog reads a recovery log through a Store; it never writes.
type readOnlyLog struct{ fs Store }

var errReadOnly = errors.New("the gateway only reads a recovery log")

func (l readOnlyLog) Create(string, []byte) error { return errReadOnly }
func (l readOnlyLog) Remove(string) error         { return errReadOnly }
func (l readOnlyLog) ReadFile(p string) ([]byte, error) {
	return l.fs.ReadFile(p)
}
func (l readOnlyLog) List(dir string) ([]string, error) {
	es, err := l.fs.List(dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(es))
	for _, e := range es {
		if !e.IsDir {
			out = append(out, e.Name)
		}
	}
	return out, nil
}

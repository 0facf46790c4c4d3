package yarn

import (
	"context"
	"testing"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// submitRecorder keeps what Submit sent.
type submitRecorder struct {
	appClient
	sub *hadooppb.ApplicationSubmissionContextProto
}

func (s *submitRecorder) SubmitApplication(_ context.Context, sub *hadooppb.ApplicationSubmissionContextProto) error {
	s.sub = sub
	return nil
}

func (s *submitRecorder) Close() error { return nil }

// With a rolled-logs pattern the submission carries a LogAggregationContext
// with every pattern set on the wire: an unset rolled_logs_exclude_pattern
// has the proto default ".*", which excludes everything. Without a pattern
// there is no context (YARN aggregates everything at the end).
func TestSubmitLogAggregationContext(t *testing.T) {
	for _, rolled := range []string{`^(am\.log|worker\.log)\.[0-9]{4,}$`, ""} {
		rec := &submitRecorder{}
		c := &Client{rms: newFailover([]string{"rm:8032"}, func(string) appClient { return rec })}
		if err := c.Submit(context.Background(), AppSpec{ID: AppID{ClusterTS: 1, ID: 1}, RolledLogs: rolled}); err != nil {
			t.Fatal(err)
		}
		lac := rec.sub.GetLogAggregationContext()
		if rolled == "" {
			if lac != nil {
				t.Errorf("no pattern, yet a context: %v", lac)
			}
			continue
		}
		if lac == nil || lac.RolledLogsIncludePattern == nil || lac.GetRolledLogsIncludePattern() != rolled ||
			lac.RolledLogsExcludePattern == nil || lac.GetRolledLogsExcludePattern() != "" ||
			lac.IncludePattern == nil || lac.GetIncludePattern() != ".*" || lac.ExcludePattern == nil || lac.GetExcludePattern() != "" {
			t.Errorf("context %v, want include .*, exclude \"\", rolled include %s, rolled exclude \"\", all set", lac, rolled)
		}
	}
}

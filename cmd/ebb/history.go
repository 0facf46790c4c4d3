package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/amhost"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/s3fs"
	"github.com/ebb-am/ebb/yarnclient"
)

// newHistoryCmd serves a finished YARN application's pages from the
// history its AM wrote to HDFS, like Spark's history server.
func newHistoryCmd() *cobra.Command {
	var listen string
	var cf confFlags
	cmd := &cobra.Command{
		Use:   "history APPLICATION_ID",
		Short: "Serve a finished application's UI from its history in HDFS or S3 (ebb.history.dir)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cf.load(newLogger("warn", "", ""))
			if err != nil {
				return err
			}
			user := yarnclient.User()
			o := ui.Options{PackingHighPercent: c.Int("ebb.packing.high.threshold.percent")}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			if dir := amhost.HistoryDir(c, user); s3fs.IsS3(dir) {
				b, h, err := amhost.ReadS3History(amhost.S3Store(c, nil), dir, args[0])
				if err != nil {
					return err
				}
				o.DAGHistory = amhost.DAGHistoryReader(h)
				return serveHistory(ctx, cmd.OutOrStdout(), b, listen, o)
			}
			retry, err := hdfsfs.ClientRetryFrom(c.Raw) // a client of HDFS, as Hadoop's own
			if err != nil {
				return err
			}
			fs, err := retry.Dial(ctx, c.DefaultFS(), func(context.Context) (*hdfsfs.FS, error) { return hdfsfs.Dial(c.DefaultFS(), user) }, nil)
			if err != nil {
				return err
			}
			defer func() { _ = fs.Close() }() // read-only
			dir, err := fs.Path(amhost.HistoryDir(c, user))
			if err != nil {
				return err
			}
			b, err := fs.ReadFile(dir + "/" + args[0] + ".json")
			if err != nil {
				return fmt.Errorf("no history of %s in %s: %w", args[0], fs.URL(dir), err)
			}
			o.DAGHistory = amhost.DAGHistoryReader(&amhost.HDFSDAGHistory{FS: fs, Dir: dir + "/" + args[0]})
			return serveHistory(ctx, cmd.OutOrStdout(), b, listen, o)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "where to serve the pages (host:port)")
	cf.register(cmd)
	return cmd
}

// newUICmd serves the pages of a history file on this machine (a local
// AM's, or one copied out of HDFS).
func newUICmd() *cobra.Command {
	var listen, history string
	cmd := &cobra.Command{
		Use:   "ui --history FILE",
		Short: "Serve a finished application's UI from a history file",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if history == "" {
				return errors.New("ebb ui needs --history FILE")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			if s3fs.IsS3(history) {
				return serveS3HistoryFile(ctx, cmd.OutOrStdout(), history, listen)
			}
			b, err := os.ReadFile(history)
			if err != nil {
				return err
			}
			o := ui.Options{DAGHistory: amhost.DAGHistoryReader(amhost.LocalDAGHistory{Dir: amhost.DAGRecordsDir(history)})}
			// A local AM's root holds history/ beside logs/: keep its log links.
			if logs := filepath.Join(filepath.Dir(filepath.Dir(history)), "logs"); isDir(logs) {
				o.LocalLogDir = logs
			}
			return serveHistory(ctx, cmd.OutOrStdout(), b, listen, o)
		},
	}
	cmd.Flags().StringVar(&history, "history", "", "a history file the AM wrote (ebb.history.dir): a path, or an s3:// URI")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "where to serve the pages (host:port)")
	return cmd
}

// serveS3HistoryFile serves a history file on S3 (a local AM's, with
// ebb.history.dir on S3), reached with the client's fs.s3a.* settings.
func serveS3HistoryFile(ctx context.Context, out io.Writer, uri, listen string) error {
	c, err := loadClientConf()
	if err != nil {
		return err
	}
	dir, name := path.Split(strings.TrimSuffix(uri, ".json"))
	b, h, err := amhost.ReadS3History(amhost.S3Store(c, nil), dir, name)
	if err != nil {
		return err
	}
	return serveHistory(ctx, out, b, listen, ui.Options{DAGHistory: amhost.DAGHistoryReader(h)})
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// serveHistory serves a snapshot's pages until ctx ends, printing where.
func serveHistory(ctx context.Context, out io.Writer, b []byte, listen string, o ui.Options) error {
	s, err := ui.DecodeSnapshot(b)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: ui.NewHistory(s, o), ReadHeaderTimeout: 10 * time.Second}
	if _, err := fmt.Fprintf(out, "ebb history of %s (finished %s) at http://%s/\n", s.App.ID, s.App.Finished.UTC().Format(time.RFC3339), lis.Addr()); err != nil {
		_ = lis.Close() // the print's error is the one to report
		return err
	}
	go func() {
		<-ctx.Done()
		_ = srv.Close() // ending on purpose: the error says only that it closed
	}()
	if err := srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

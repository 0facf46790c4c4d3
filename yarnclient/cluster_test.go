package yarnclient

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/amclient"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/hdfsfs"
	"github.com/ebb-am/ebb/internal/testcluster"
)

// The package against the real minicluster named by
// EBB_TEST_HADOOP_CONF_DIR (see internal/testcluster): it skips without
// one. The end-to-end runs of `ebb submit` and `ebb kill` are cmd/ebb's
// tests; this one drives the API as they do.

var (
	buildOnce sync.Once
	ebbBin    string
	buildErr  error
)

// builtEbb is the ebb binary the AM runs, built once.
func builtEbb(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "yarnclient-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		ebbBin = filepath.Join(dir, "ebb")
		if out, err := exec.Command("go", "build", "-o", ebbBin, "../cmd/ebb").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building ebb: %v", buildErr)
	}
	return ebbBin
}

// clusterClient is a Client of the minicluster with a small, quick AM.
func clusterClient(t *testing.T) (*Client, *conf.Config) {
	t.Helper()
	confDir := testcluster.ConfDir(t)
	c, _, err := conf.Load(conf.LoadOptions{
		Getenv: func(k string) string {
			if k == "HADOOP_CONF_DIR" {
				return confDir
			}
			return ""
		},
		Sets: map[string]string{
			"mr3.am.resource.memory.mb":           "256",
			"mr3.am.rm.heartbeat.interval.ms":     "250",
			"ebb.am.worker.heartbeat.interval.ms": "250",
			"mr3.am.max.app.attempts":             "1",
			"ebb.session.idle.timeout.secs":       "120",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HADOOP_CONF_DIR", confDir)
	yc, err := New(Options{Conf: c, Binary: builtEbb(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = yc.Close() })
	return yc, c
}

// A session's life through the API: started, found by id with its secret,
// answering its client API, killed, its staging directory removed.
func TestYarnSessionLifecycle(t *testing.T) {
	yc, c := clusterClient(t)
	testcluster.Shared(t) // cmd/ebb's tests that need every slot wait
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := yc.StartSession(ctx, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	id := rep.ID
	t.Cleanup(func() { _, _ = yc.Kill(context.Background(), id) })
	if rep.State != yarn.StateRunning || rep.RPCPort == 0 {
		t.Fatalf("StartSession returned %s with port %d", rep.State, rep.RPCPort)
	}
	am, err := yc.FindAM(ctx, id.String(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := amclient.Dial(amclient.Target{Addr: am.Addr, Secret: am.Secret}, amclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.List(ctx, amclient.Page{}); err != nil {
		t.Errorf("the session's client API with its secret: %v", err)
	}
	bad, err := amclient.Dial(amclient.Target{Addr: am.Addr, Secret: "wrong"}, amclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bad.Close() }()
	if _, err := bad.List(ctx, amclient.Page{}); err == nil {
		t.Error("a wrong secret was accepted")
	}
	killed, err := yc.Kill(ctx, id)
	if err != nil || killed.State != yarn.StateKilled {
		t.Fatalf("Kill = %s, %v", killed.State, err)
	}
	if err := yc.RemoveStaging(killed); err != nil {
		t.Fatal(err)
	}
	fs, err := hdfsfs.Dial(c.DefaultFS(), User())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fs.Close() }()
	if ok, err := fs.Exists(StagingDir(User(), id)); err != nil || ok {
		t.Errorf("staging dir %s still exists (%v)", StagingDir(User(), id), err)
	}
}

// TestYarnRMFailoverToTheLiveRM: under RM HA the client is given two
// ResourceManagers, the first of which is down (a port nobody listens
// on); it fails over and gets the real RM's answer (that the application
// does not exist). The minicluster has one RM, so a standby RM is only
// in am/yarn's unit tests.
func TestYarnRMFailoverToTheLiveRM(t *testing.T) {
	confDir := testcluster.ConfDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	_ = ln.Close() // now nobody listens there
	c, _, err := conf.Load(conf.LoadOptions{
		Getenv: func(k string) string {
			if k == "HADOOP_CONF_DIR" {
				return confDir
			}
			return ""
		},
		Sets: map[string]string{
			// A client that ignored HA would use the plain key, also down.
			"yarn.resourcemanager.address":     dead,
			"yarn.resourcemanager.ha.enabled":  "true",
			"yarn.resourcemanager.ha.rm-ids":   "rm1,rm2",
			"yarn.resourcemanager.address.rm1": dead,
			"yarn.resourcemanager.address.rm2": testcluster.RMAddress(t),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	yc, err := New(Options{Conf: c})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = yc.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = yc.Report(ctx, yarn.AppID{ClusterTS: 1, ID: 4242})
	if !appNotFound(err) {
		t.Fatalf("Report through rm1 (down) and rm2 = %v; want rm2's ApplicationNotFoundException", err)
	}
}

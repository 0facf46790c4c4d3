package yarnrpc

import (
	"context"
	"encoding/base64"
	"os"
	"os/user"
	"path/filepath"
	"testing"
	"time"

	"github.com/beevik/etree"
	"google.golang.org/protobuf/proto"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Integration tests against a real ResourceManager: Hadoop's minicluster
// started by scripts/minicluster/start.sh (3 NodeManagers). They read the
// HADOOP_CONF_DIR the script printed from EBB_TEST_HADOOP_CONF_DIR:
//
//	export EBB_TEST_HADOOP_CONF_DIR=$(scripts/minicluster/start.sh)
//	go test ./yarnrpc -run Integration

// clusterConf returns a property of the test cluster's yarn-site.xml, or
// skips (fails under CI=true) when no cluster is configured.
func clusterConf(t *testing.T, key string) string {
	t.Helper()
	dir := os.Getenv("EBB_TEST_HADOOP_CONF_DIR")
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("EBB_TEST_HADOOP_CONF_DIR is unset and CI=true: the real-cluster tests must run (start one with scripts/minicluster/start.sh)")
		}
		t.Skip("SKIPPING real-cluster test: EBB_TEST_HADOOP_CONF_DIR is unset; run export EBB_TEST_HADOOP_CONF_DIR=$(scripts/minicluster/start.sh)")
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromFile(filepath.Join(dir, "yarn-site.xml")); err != nil {
		t.Fatalf("read yarn-site.xml: %v", err)
	}
	for _, p := range doc.FindElements("//property") {
		if n := p.SelectElement("name"); n != nil && n.Text() == key {
			if v := p.SelectElement("value"); v != nil {
				return v.Text()
			}
		}
	}
	t.Fatalf("%s not in %s/yarn-site.xml", key, dir)
	return ""
}

func testUser(t *testing.T) string {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

func rmClient(t *testing.T, opts ...Option) *ApplicationClient {
	c := NewApplicationClient(clusterConf(t, "yarn.resourcemanager.address"), testUser(t), opts...)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestIntegrationClusterNodes(t *testing.T) {
	c := rmClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nodes, err := c.GetClusterNodes(ctx, hadooppb.NodeStateProto_NS_RUNNING)
	if err != nil {
		t.Fatalf("GetClusterNodes: %v", err)
	}
	if len(nodes) != 3 {
		t.Fatalf("got %d RUNNING nodes, want 3: %v", len(nodes), nodes)
	}
	for _, n := range nodes {
		if n.GetNodeId().GetHost() == "" || n.GetNodeId().GetPort() == 0 {
			t.Errorf("node without an id: %v", n)
		}
		if n.GetCapability().GetMemory() <= 0 || n.GetCapability().GetVirtualCores() <= 0 {
			t.Errorf("node %v has capability %v", n.GetNodeId(), n.GetCapability())
		}
	}
}

// On a cluster with node labels off (the plain minicluster) the RM lists
// none, without an error: an AM there starts with no label to check.
func TestIntegrationClusterNodeLabelsOff(t *testing.T) {
	c := rmClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	labels, err := c.GetClusterNodeLabels(ctx)
	if err != nil || len(labels) != 0 {
		t.Fatalf("GetClusterNodeLabels: %v, %v; want none and no error", labels, err)
	}
}

// TestIntegrationClusterMetrics also records its SIMPLE exchange for
// TestReplaySimpleGetClusterMetrics (EBB_YARNRPC_CAPTURE=1).
func TestIntegrationClusterMetrics(t *testing.T) {
	rec := &recorder{}
	c := rmClient(t, WithDialer(rec.dial))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := c.GetClusterMetrics(ctx)
	if err != nil {
		t.Fatalf("GetClusterMetrics: %v", err)
	}
	if m.GetNumNodeManagers() != 3 {
		t.Errorf("num_node_managers = %d, want 3", m.GetNumNodeManagers())
	}
	c.Close()
	saveRecording(t, "simple_getClusterMetrics", recording{
		Note:     "SIMPLE auth, one getClusterMetrics call to a minicluster RM with 3 NodeManagers",
		Protocol: ProtocolApplicationClient,
		Method:   "getClusterMetrics",
		ClientID: base64.StdEncoding.EncodeToString(c.rpc.clientID),
		User:     c.rpc.user,
		Hadoop:   os.Getenv("EBB_TEST_HADOOP_VERSION"),
	}, rec.last)
}

// TestIntegrationManyCallsInFlight sends calls concurrently over one
// connection; each must get its own answer back.
func TestIntegrationManyCallsInFlight(t *testing.T) {
	c := rmClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 20
	errs := make(chan error, n)
	ids := make(chan int32, n)
	for i := 0; i < n; i++ {
		go func() {
			r, err := c.GetNewApplication(ctx)
			errs <- err
			ids <- r.GetApplicationId().GetId()
		}()
	}
	seen := map[int32]bool{}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("GetNewApplication: %v", err)
		}
		id := <-ids
		if seen[id] {
			t.Errorf("application id %d handed out twice: responses crossed", id)
		}
		seen[id] = true
	}
}

func TestIntegrationRemoteError(t *testing.T) {
	c := rmClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.GetApplicationReport(ctx, &hadooppb.ApplicationIdProto{Id: proto.Int32(9999), ClusterTimestamp: proto.Int64(1)})
	var re *RemoteError
	if !errorAs(err, &re) {
		t.Fatalf("GetApplicationReport of an unknown app: got %v, want a RemoteError", err)
	}
	if re.Class != "org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException" {
		t.Errorf("class = %q", re.Class)
	}
	// The connection survives an ERROR: the next call works.
	if _, err := c.GetClusterMetrics(ctx); err != nil {
		t.Errorf("call after a remote error: %v", err)
	}
}

// TestIntegrationUnmanagedAM submits an unmanaged application, takes the
// AMRMToken from its report and walks the AM's whole life over SASL
// DIGEST-MD5: register, allocate, finish.
func TestIntegrationUnmanagedAM(t *testing.T) {
	c := rmClient(t)
	sched := clusterConf(t, "yarn.resourcemanager.scheduler.address")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	app, err := c.GetNewApplication(ctx)
	if err != nil {
		t.Fatalf("GetNewApplication: %v", err)
	}
	id := app.GetApplicationId()
	err = c.SubmitApplication(ctx, &hadooppb.ApplicationSubmissionContextProto{
		ApplicationId:   id,
		ApplicationName: proto.String("yarnrpc-unmanaged-am-test"),
		ApplicationType: proto.String("EBB-TEST"),
		UnmanagedAm:     proto.Bool(true),
		AmContainerSpec: &hadooppb.ContainerLaunchContextProto{},
	})
	if err != nil {
		t.Fatalf("SubmitApplication: %v", err)
	}
	defer func() {
		// Leave nothing behind if the test fails half way.
		c.ForceKillApplication(context.Background(), id, "yarnrpc test cleanup")
	}()

	var tok *hadooppb.TokenProto
	for tok == nil {
		rep, err := c.GetApplicationReport(ctx, id)
		if err != nil {
			t.Fatalf("GetApplicationReport: %v", err)
		}
		tok = rep.GetAmRmToken()
		if tok == nil {
			select {
			case <-ctx.Done():
				t.Fatalf("no AMRMToken in the report; last state %v", rep.GetYarnApplicationState())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if tok.GetKind() != KindAMRMToken {
		t.Errorf("token kind %q, want %q", tok.GetKind(), KindAMRMToken)
	}

	rec := &recorder{}
	const cnonce = "ebb-recorded-cnonce-0001"
	am := NewAMRMClient(sched, TokenFromProto(tok), WithDialer(rec.dial),
		func(o *Options) { o.cnonce = func() (string, error) { return cnonce, nil } })
	defer am.Close()
	reg, err := am.RegisterApplicationMaster(ctx, "localhost", 0, "")
	if err != nil {
		t.Fatalf("RegisterApplicationMaster: %v", err)
	}
	saveRecording(t, "sasl_registerApplicationMaster", recording{
		Note:      "SASL TOKEN/DIGEST-MD5 with an unmanaged AM's AMRMToken, then registerApplicationMaster(localhost, 0, \"\")",
		Protocol:  ProtocolApplicationMaster,
		Method:    "registerApplicationMaster",
		ClientID:  base64.StdEncoding.EncodeToString(am.rpc.clientID),
		Cnonce:    cnonce,
		TokenID:   base64.StdEncoding.EncodeToString(tok.GetIdentifier()),
		TokenPW:   base64.StdEncoding.EncodeToString(tok.GetPassword()),
		TokenKind: tok.GetKind(),
		Hadoop:    os.Getenv("EBB_TEST_HADOOP_VERSION"),
	}, rec.last)
	if reg.GetMaximumCapability().GetMemory() <= 0 {
		t.Errorf("maximum capability %v", reg.GetMaximumCapability())
	}
	start := time.Now()
	resp, err := am.Allocate(ctx, &hadooppb.AllocateRequestProto{ResponseId: proto.Int32(0), Progress: proto.Float32(0)})
	if err != nil {
		t.Fatalf("Allocate: %v", err)
	}
	t.Logf("allocate round trip %v, num_cluster_nodes %d", time.Since(start), resp.GetNumClusterNodes())
	if resp.GetNumClusterNodes() != 3 {
		t.Errorf("num_cluster_nodes = %d, want 3", resp.GetNumClusterNodes())
	}
	// A wrong response_id is the RM's InvalidApplicationMasterRequestException.
	_, err = am.Allocate(ctx, &hadooppb.AllocateRequestProto{ResponseId: proto.Int32(resp.GetResponseId() + 5)})
	if !errorIs(err, ErrInvalidRequest) {
		t.Errorf("allocate with a wrong response_id: got %v, want ErrInvalidRequest", err)
	}
	for done := false; !done; {
		done, err = am.FinishApplicationMaster(ctx, &hadooppb.FinishApplicationMasterRequestProto{
			FinalApplicationStatus: hadooppb.FinalApplicationStatusProto_APP_SUCCEEDED.Enum(),
			Diagnostics:            proto.String("yarnrpc test done"),
		})
		if err != nil {
			t.Fatalf("FinishApplicationMaster: %v", err)
		}
		if !done {
			time.Sleep(50 * time.Millisecond) // the RM asks us to call again
		}
	}
	for {
		rep, err := c.GetApplicationReport(ctx, id)
		if err != nil {
			t.Fatalf("GetApplicationReport: %v", err)
		}
		if rep.GetYarnApplicationState() == hadooppb.YarnApplicationStateProto_FINISHED {
			if rep.GetFinalApplicationStatus() != hadooppb.FinalApplicationStatusProto_APP_SUCCEEDED {
				t.Errorf("final status %v", rep.GetFinalApplicationStatus())
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("application never FINISHED; state %v", rep.GetYarnApplicationState())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

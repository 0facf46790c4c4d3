package hadooppb_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	// colinmarc/hdfs registers Hadoop's own proto names (hadoop.common.*) in
	// the same global registry; importing it here proves ours do not clash.
	_ "github.com/colinmarc/hdfs/v2"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// TestGeneratedCodeIsFresh regenerates every .proto into a temporary
// directory (scripts/genproto.sh --check) and fails when the committed Go
// code differs, so a .proto edit without regeneration cannot land.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if _, err := exec.LookPath("protoc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("protoc is not on PATH and CI=true: cannot check that proto/hadooppb is fresh (apt-get install -y protobuf-compiler)")
		}
		t.Skip("SKIPPING the staleness check of generated protobuf code: protoc is not on PATH (apt-get install -y protobuf-compiler)")
	}
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("staleness check builds the protoc plugins; skipped in -short mode (never under CI=true)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "genproto.sh"), "--check")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/genproto.sh --check failed (%v):\n%s", err, out)
	}
}

// TestPackageNamesAreOurs guards the one deliberate difference from
// Hadoop's files: the proto package. Hadoop's names would collide with
// colinmarc/hdfs's registrations at init time.
func TestPackageNamesAreOurs(t *testing.T) {
	cases := []struct {
		name string
		got  string
	}{
		{"ebb.hadoop.common.RpcRequestHeaderProto", string((&hadooppb.RpcRequestHeaderProto{}).ProtoReflect().Descriptor().FullName())},
		{"ebb.hadoop.common.TokenProto", string((&hadooppb.TokenProto{}).ProtoReflect().Descriptor().FullName())},
		{"ebb.hadoop.yarn.AllocateRequestProto", string((&hadooppb.AllocateRequestProto{}).ProtoReflect().Descriptor().FullName())},
	}
	for _, c := range cases {
		if c.got != c.name {
			t.Errorf("full name = %q, want %q", c.got, c.name)
		}
	}
}

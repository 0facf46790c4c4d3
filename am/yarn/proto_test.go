package yarn

import (
	"testing"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

func TestLocalResourceURL(t *testing.T) {
	lr, err := localResourceProto(LocalResource{URL: "hdfs://nn.example:8020/user/a/.ebb/staging/app/ebb", Size: 42, Timestamp: 1700000000123})
	if err != nil {
		t.Fatal(err)
	}
	u := lr.GetResource()
	if u.GetScheme() != "hdfs" || u.GetHost() != "nn.example" || u.GetPort() != 8020 || u.GetFile() != "/user/a/.ebb/staging/app/ebb" {
		t.Errorf("URL %v", u)
	}
	if lr.GetSize() != 42 || lr.GetTimestamp() != 1700000000123 ||
		lr.GetType() != hadooppb.LocalResourceTypeProto_FILE || lr.GetVisibility() != hadooppb.LocalResourceVisibilityProto_APPLICATION {
		t.Errorf("resource %v", lr)
	}
	if _, err := localResourceProto(LocalResource{URL: "no-scheme"}); err == nil {
		t.Errorf("a path without a scheme was accepted")
	}
}

func TestContainerIDWireRoundTrip(t *testing.T) {
	id := ContainerID{Attempt: AttemptID{App: AppID{ClusterTS: 1700000000000, ID: 12}, Attempt: 2}, ID: 3<<40 | 5}
	if got := containerIDFrom(containerIDProto(id)); got != id {
		t.Errorf("round trip %+v, want %+v", got, id)
	}
}

func TestLaunchContextIsSorted(t *testing.T) {
	clc, err := launchProto(Launch{
		Resources: map[string]LocalResource{"b": {URL: "hdfs://n:1/b"}, "a": {URL: "hdfs://n:1/a"}},
		Env:       map[string]string{"Z": "1", "A": "2"},
		Command:   []string{"./ebb am"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Sorted keys: the same launch gives the same bytes.
	if clc.LocalResources[0].GetKey() != "a" || clc.Environment[0].GetKey() != "A" || clc.Command[0] != "./ebb am" {
		t.Errorf("launch context %v", clc)
	}
}

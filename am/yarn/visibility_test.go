package yarn

import (
	"testing"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// A PUBLIC resource reaches the NM as PUBLIC (its public cache, shared by
// applications); the zero value stays APPLICATION.
func TestLocalResourceVisibility(t *testing.T) {
	for v, want := range map[Visibility]hadooppb.LocalResourceVisibilityProto{
		VisibilityApplication: hadooppb.LocalResourceVisibilityProto_APPLICATION,
		VisibilityPublic:      hadooppb.LocalResourceVisibilityProto_PUBLIC,
	} {
		lr, err := localResourceProto(LocalResource{URL: "hdfs://nn:8020/user/a/.ebb/lib/x/ebb", Visibility: v})
		if err != nil {
			t.Fatal(err)
		}
		if lr.GetVisibility() != want {
			t.Errorf("%s went out as %s", v, lr.GetVisibility())
		}
		back, err := ParseVisibility(v.String())
		if err != nil || back != v {
			t.Errorf("ParseVisibility(%q) = %v, %v", v.String(), back, err)
		}
	}
	if _, err := ParseVisibility("PRIVATE"); err == nil {
		t.Errorf("PRIVATE was accepted")
	}
}

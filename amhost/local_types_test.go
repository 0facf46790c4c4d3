package amhost

import (
	"maps"
	"strings"
	"testing"

	"github.com/ebb-am/ebb/conf"
)

// Issue 23, item 5: ebb.local.node.resources gives every local node other
// resource types; a malformed value is refused naming the key and what
// is allowed.
func TestLocalNodeTypes(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  map[string]int64
		err   bool
	}{
		{"", nil, false},
		{"yarn.io/gpu=2", map[string]int64{"yarn.io/gpu": 2}, false},
		{" yarn.io/gpu = 1 , example.com/fpga=0", map[string]int64{"yarn.io/gpu": 1, "example.com/fpga": 0}, false},
		{"yarn.io/gpu", nil, true},
		{"yarn.io/gpu=-1", nil, true},
		{"vcores=2", nil, true},
	} {
		c, _, err := conf.Load(conf.LoadOptions{Getenv: func(string) string { return "" }, Sets: map[string]string{"ebb.local.node.resources": tc.value}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := localNodeTypes(c)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), "ebb.local.node.resources") || !strings.Contains(err.Error(), "name=count") {
				t.Errorf("%q: error %v, want one naming the key and the form", tc.value, err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.value, got, err, tc.want)
		}
	}
}

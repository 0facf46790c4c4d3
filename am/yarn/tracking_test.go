package yarn

import "testing"

func TestFinalTrackingURL(t *testing.T) {
	app := AppID{ClusterTS: 1700000000000, ID: 7}
	for _, c := range []struct{ webapp, want string }{
		{"rm.example.com:8088", "http://rm.example.com:8088/cluster/app/application_1700000000000_0007"},
		{" localhost:46249 ", "http://localhost:46249/cluster/app/application_1700000000000_0007"},
		{"", ""},               // unknown: the RM's own fallback
		{"localhost:0", ""},    // an ephemeral port as configured, not as bound
		{"0.0.0.0:8088", ""},   // a bind address, not one to browse to
		{"rm.example.com", ""}, // no port
	} {
		if got := FinalTrackingURL(c.webapp, app); got != c.want {
			t.Errorf("FinalTrackingURL(%q) = %q, want %q", c.webapp, got, c.want)
		}
	}
}

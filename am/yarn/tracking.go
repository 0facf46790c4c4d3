package yarn

import (
	"net"
	"strings"
)

// FinalTrackingURL is the tracking URL an AM unregisters with: the RM's
// own page for the application, which lives as long as the RM remembers
// the application, where the AM's status page dies with the AM. webapp is
// yarn.resourcemanager.webapp.address; when it names no usable address
// (unset, port 0, a wildcard host) the answer is "", with which the RM
// also falls back to its application page, built from its own idea of its
// address (wrong on a cluster started on ephemeral ports, hence the
// explicit URL first).
func FinalTrackingURL(webapp string, app AppID) string {
	host, port, err := net.SplitHostPort(strings.TrimSpace(webapp))
	if err != nil || port == "0" || port == "" || host == "" || host == "0.0.0.0" || host == "::" {
		return ""
	}
	return "http://" + net.JoinHostPort(host, port) + "/cluster/app/" + app.String()
}

package amhost

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/am/yarn"
	"github.com/ebb-am/ebb/conf"
)

// yarnUIOptions configures the status UI of an AM on YARN: the header
// names the application and attempt; log links go to the NodeManager's
// container-log page (the URL the YARN UI itself links to); and, as
// YARN's AmIpFilter does for Java AMs, only the RM's web proxy may reach
// the UI unless a request carries the UI key.
//
// The nodes are listed and the world built after the AM; the returned
// yarnUIState takes them (atomic pointers make the hand-over safe).
func yarnUIOptions(c *conf.Config, cid yarn.ContainerID, user, secret string) (ui.Options, *yarnUIState) {
	app := cid.Attempt.App.String()
	st := &yarnUIState{}
	known := &st.nodeHTTP
	nmWebPort := "8042" // yarn.nodemanager.webapp.address's default, for nodes that joined later
	if v, ok := c.Raw("yarn.nodemanager.webapp.address"); ok {
		if _, p, err := net.SplitHostPort(v); err == nil && p != "0" {
			nmWebPort = p
		}
	}
	o := ui.Options{
		App: ui.AppInfo{ID: app, Name: "ebb", User: user, World: "yarn", Attempt: int(cid.Attempt.Attempt), Priority: priorityText(c)},
		AppLate: func(a *ui.AppInfo) {
			if q := st.queue.Load(); q != nil {
				a.Queue = *q
			}
		},
		PackingHighPercent: c.Int("ebb.packing.high.threshold.percent"),
		ExtraMetrics:       st.metrics,
		NodeLogURL: func(node, container, file string) string {
			var addr string
			ok := false
			if m := known.Load(); m != nil {
				addr, ok = (*m)[node]
			}
			if !ok {
				host, _, err := net.SplitHostPort(node)
				if err != nil {
					host = node
				}
				addr = net.JoinHostPort(host, nmWebPort)
			}
			return "http://" + addr + "/node/containerlogs/" + url.PathEscape(container) + "/" + url.PathEscape(user) + "/" + url.PathEscape(file) + "/?start=-4096"
		},
	}
	if web := rmWebAddress(c); web != "" {
		if addrs := proxyAddrs(c, web); len(addrs) > 0 {
			o.Proxy = &ui.ProxyGuard{Addrs: addrs, ProxyURL: "http://" + web + "/proxy/" + app + "/", Key: ui.KeyFor(secret)}
		}
	}
	return o, st
}

// yarnUIState is what the UI learns after the AM is built: the
// NodeManagers' web addresses and the world whose RM round trips it shows.
type yarnUIState struct {
	nodeHTTP atomic.Pointer[map[string]string]
	queue    atomic.Pointer[string] // the RM's queue for the application, from registration
	world    atomic.Pointer[yarn.World]
}

// setQueue records the queue the RM placed the application in.
func (s *yarnUIState) setQueue(q string) {
	if q != "" {
		s.queue.Store(&q)
	}
}

// priorityText is ebb.am.priority for the header: "" when unset (the
// queue's default, which the AM does not learn).
func priorityText(c *conf.Config) string {
	if p := c.Int("ebb.am.priority"); p >= 0 {
		return strconv.Itoa(p)
	}
	return ""
}

func (s *yarnUIState) setNodes(nodes []yarn.NodeReport) {
	httpOf := map[string]string{}
	for _, n := range nodes {
		if n.HTTP == "" {
			continue
		}
		httpOf[n.Node] = n.HTTP
		host, _, _ := net.SplitHostPort(n.Node)
		httpOf[host] = n.HTTP
	}
	s.nodeHTTP.Store(&httpOf)
}

func (s *yarnUIState) setWorld(w *yarn.World) { s.world.Store(w) }

// metrics adds the allocate() round trips to the ResourceManager.
func (s *yarnUIState) metrics(b *strings.Builder) {
	w := s.world.Load()
	if w == nil {
		return
	}
	st := w.Stats()
	ui.WriteHelp(b, "ebb_rm_allocate_seconds")
	fmt.Fprintf(b, "ebb_rm_allocate_seconds_sum %g\nebb_rm_allocate_seconds_count %d\n", st.AllocateTotal.Seconds(), st.Heartbeats)
	ui.WriteHelp(b, "ebb_rm_allocate_max_seconds")
	fmt.Fprintf(b, "ebb_rm_allocate_max_seconds %g\n", st.AllocateMax.Seconds())
}

// rmWebAddress is where the RM's web proxy runs: yarn.web-proxy.address
// when a separate proxy is configured, else the RM's web app.
func rmWebAddress(c *conf.Config) string {
	for _, k := range []string{"yarn.web-proxy.address", "yarn.resourcemanager.webapp.address"} {
		if v, ok := c.Raw(k); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// proxyAddrs resolves the proxy's host to the addresses its requests come
// from. A web address bound to every interface (0.0.0.0) names no host:
// then the RM's host name (yarn.resourcemanager.hostname) is the proxy's;
// when that is unknown too there is nothing to compare with, and the UI
// is left unguarded rather than unreachable. A host that does not resolve
// admits nobody but key holders.
func proxyAddrs(c *conf.Config, hostport string) []string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host, _ = c.Raw("yarn.resourcemanager.hostname")
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			return nil
		}
	}
	addrs, err := net.LookupHost(host)
	if err != nil {
		return []string{"unresolved:" + host}
	}
	return addrs
}

// localUIOptions configures the status UI of an AM in the local world:
// worker logs live under root/logs/<container>, and the UI serves them
// itself (there is no NodeManager to link to).
func localUIOptions(c *conf.Config, root string) ui.Options {
	return ui.Options{
		App:                ui.AppInfo{ID: "local", Name: "ebb local", World: "local", Queue: "-"},
		LocalLogDir:        filepath.Join(root, "logs"),
		PackingHighPercent: c.Int("ebb.packing.high.threshold.percent"),
	}
}

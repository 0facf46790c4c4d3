package ui

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
)

// ProxyGuard does what YARN's AmIpFilter does for Java AMs: when the RM's
// web proxy is configured, only requests from the proxy's hosts reach the
// UI, so users see it through the RM's access checks. A request carrying
// the key (?key=K, or the cookie set from it) is let through too, for
// tools on the AM's own host and for tests.
type ProxyGuard struct {
	// Addrs are the proxy hosts' IP addresses.
	Addrs []string
	// ProxyURL is where refused users are sent (http://RM/proxy/APP/).
	ProxyURL string
	// Key, when set, admits requests that present it.
	Key string
}

const keyCookie = "ebb_ui_key"

// Allow reports whether the request may proceed, answering it when not.
func (g *ProxyGuard) Allow(w http.ResponseWriter, r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err == nil {
		ip := net.ParseIP(host)
		for _, a := range g.Addrs {
			if p := net.ParseIP(a); p != nil && ip != nil && p.Equal(ip) {
				return true
			}
		}
	}
	if g.Key != "" {
		if k := r.URL.Query().Get("key"); k != "" && subtle.ConstantTimeCompare([]byte(k), []byte(g.Key)) == 1 {
			http.SetCookie(w, &http.Cookie{Name: keyCookie, Value: k, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			return true
		}
		if c, err := r.Cookie(keyCookie); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(g.Key)) == 1 {
			return true
		}
	}
	if g.ProxyURL != "" {
		http.Redirect(w, r, g.ProxyURL, http.StatusSeeOther)
		return false
	}
	http.Error(w, "this AM's UI is served through the ResourceManager's web proxy", http.StatusForbidden)
	return false
}

// KeyFor derives the UI key from the application secret: whoever holds
// the secret can compute it, but a key seen in a URL or a browser's
// history does not reveal the secret.
func KeyFor(secret string) string {
	h := sha256.Sum256([]byte("ebb-ui-key\x00" + secret))
	return hex.EncodeToString(h[:16])
}

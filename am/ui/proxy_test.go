package ui

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Like YARN's AmIpFilter: the proxy's host passes; anyone else is sent to
// the proxy, unless they bring the key (then a cookie keeps them in).
func TestProxyGuard(t *testing.T) {
	g := &ProxyGuard{Addrs: []string{"10.0.0.5"}, ProxyURL: "http://rm:8088/proxy/application_1_0001/", Key: KeyFor("secret")}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.Allow(w, r) {
			ok(w, r)
		}
	})
	do := func(remote, target string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", target, nil)
		r.RemoteAddr = remote
		for _, c := range cookies {
			r.AddCookie(c)
		}
		w := httptest.NewRecorder()
		h(w, r)
		return w
	}
	if w := do("10.0.0.5:40000", "/api/v1/overview"); w.Code != http.StatusOK {
		t.Errorf("from the proxy: %d", w.Code)
	}
	w := do("10.0.0.9:40000", "/api/v1/overview")
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != g.ProxyURL {
		t.Errorf("direct: %d to %q, want 303 to the proxy", w.Code, w.Header().Get("Location"))
	}
	if w := do("10.0.0.9:40000", "/?key=wrong"); w.Code != http.StatusSeeOther {
		t.Errorf("a wrong key: %d", w.Code)
	}
	w = do("10.0.0.9:40000", "/?key="+KeyFor("secret"))
	if w.Code != http.StatusOK || len(w.Result().Cookies()) != 1 {
		t.Fatalf("the key: %d, cookies %v", w.Code, w.Result().Cookies())
	}
	if w := do("10.0.0.9:40000", "/api/v1/overview", w.Result().Cookies()[0]); w.Code != http.StatusOK {
		t.Errorf("with the key's cookie: %d", w.Code)
	}
	if KeyFor("secret") == "secret" || len(KeyFor("secret")) != 32 {
		t.Errorf("the key %q must not be the secret", KeyFor("secret"))
	}
}

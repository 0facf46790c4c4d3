package conf

import (
	"strings"
	"testing"
)

// Under ebb.conf.unknown.keys=warn an unsupported MR3 Kubernetes key only
// warns at load; the Kubernetes world refuses it still, by name.
func TestCheckKubernetesRefusesUnsupportedKeys(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, SiteFile, site(prop("ebb.conf.unknown.keys", "warn"), prop("mr3.k8s.pod.worker.hostpaths", "/data1")))
	c, _, err := Load(LoadOptions{ConfPath: path, Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	err = c.CheckKubernetes()
	if err == nil || !strings.Contains(err.Error(), "mr3.k8s.pod.worker.hostpaths is MR3's but not supported by ebb: worker outputs go to an emptyDir") {
		t.Errorf("CheckKubernetes: %v", err)
	}
	c = Defaults()
	if err := c.CheckKubernetes(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if err := c.Set("mr3.k8s.pod.worker.emptydirs", "/a,/b"); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckKubernetes(); err == nil || !strings.Contains(err.Error(), "mr3.k8s.pod.worker.emptydirs") {
		t.Errorf("two emptydirs: %v", err)
	}
}

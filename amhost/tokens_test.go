package amhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebb-am/ebb/conf"
)

// The renew interval comes from the cluster's hdfs-site.xml (Hadoop's
// default, a day, when unset); a bad value is an error naming the file,
// the key, the value and what is allowed.
func TestRenewInterval(t *testing.T) {
	load := func(value string) *conf.Config {
		dir := t.TempDir()
		if value != "" {
			xml := "<configuration><property><name>" + keyRenewInterval + "</name><value>" + value + "</value></property></configuration>\n"
			if err := os.WriteFile(filepath.Join(dir, "hdfs-site.xml"), []byte(xml), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		c, _, err := conf.Load(conf.LoadOptions{Getenv: func(k string) string {
			if k == "HADOOP_CONF_DIR" {
				return dir
			}
			return ""
		}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if d, err := renewInterval(load("")); err != nil || d != 24*time.Hour {
		t.Errorf("unset: %v, %v; want a day", d, err)
	}
	if d, err := renewInterval(load("30000")); err != nil || d != 30*time.Second {
		t.Errorf("30000: %v, %v; want 30s", d, err)
	}
	_, err := renewInterval(load("soon"))
	if err == nil {
		t.Fatal("a renew interval of soon was taken")
	}
	for _, want := range []string{"hdfs-site.xml", keyRenewInterval, "soon", "milliseconds"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

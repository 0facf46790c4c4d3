package amhost

import (
	"testing"

	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/yarnclient"
)

// main reads the container's environment once; each variable lands in
// its field, and the shared binary's two reach yarnclient.WorkerBinary.
func TestReadYarnEnv(t *testing.T) {
	env := map[string]string{
		"CONTAINER_ID": "container_1700000000000_0007_02_000001", "HADOOP_TOKEN_FILE_LOCATION": "/nm/tokens",
		"EBB_STAGING": "/user/alice/.ebb/staging/app", "NM_HOST": "nm1", "MAX_APP_ATTEMPTS": "2",
		yarnclient.EnvPrincipal: "alice@EXAMPLE.COM", yarnclient.EnvBinary: "hdfs://nn/ebb", yarnclient.EnvBinaryVisibility: "PUBLIC",
		"UNRELATED": "x",
	}
	e := ReadYarnEnv(func(k string) string { return env[k] })
	want := YarnEnv{ContainerID: "container_1700000000000_0007_02_000001", TokenFile: "/nm/tokens", Staging: "/user/alice/.ebb/staging/app",
		NMHost: "nm1", MaxAttempts: "2", Principal: "alice@EXAMPLE.COM", Binary: "hdfs://nn/ebb", BinaryVisibility: "PUBLIC"}
	if e != want {
		t.Fatalf("ReadYarnEnv:\n got %+v\nwant %+v", e, want)
	}
	for _, k := range []string{yarnclient.EnvBinary, yarnclient.EnvBinaryVisibility, "UNRELATED"} {
		if got := e.binaryEnv(k); got != map[string]string{yarnclient.EnvBinary: "hdfs://nn/ebb", yarnclient.EnvBinaryVisibility: "PUBLIC"}[k] {
			t.Errorf("binaryEnv(%s) = %q", k, got)
		}
	}
}

// The last attempt is the RM's effective maximum when the NM tells it
// (MAX_APP_ATTEMPTS), else mr3.am.max.app.attempts.
func TestLastAttempt(t *testing.T) {
	c, _, err := conf.Load(conf.LoadOptions{Getenv: func(string) string { return "" }, Sets: map[string]string{"mr3.am.max.app.attempts": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		attempt int32
		maxEnv  string
		want    bool
	}{
		{1, "1", true},    // the RM lowered the maximum to 1
		{1, "", false},    // the key's 3
		{3, "", true},     // the key's 3
		{2, "bad", false}, // unreadable: the key's 3
	} {
		if got := lastAttempt(tc.attempt, tc.maxEnv, c); got != tc.want {
			t.Errorf("lastAttempt(%d, %q) = %v, want %v", tc.attempt, tc.maxEnv, got, tc.want)
		}
	}
}

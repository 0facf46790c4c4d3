package amhost

import (
	"github.com/ebb-am/ebb/yarnclient"
)

// YarnEnv is what the NodeManager and `ebb submit` tell the AM container
// through its environment, read once (by main) so that nothing below reads
// the process's environment.
type YarnEnv struct {
	ContainerID string // CONTAINER_ID: this attempt's container
	TokenFile   string // HADOOP_TOKEN_FILE_LOCATION: the AM's tokens
	Staging     string // EBB_STAGING: the staging directory (default: the user's per-application one)
	NMHost      string // NM_HOST: this node's host (default: the host name)
	NMPort      string // NM_PORT: this node's NodeManager port (the NodeId's)
	// MaxAttempts: MAX_APP_ATTEMPTS, the RM's effective maximum of
	// application attempts (empty: mr3.am.max.app.attempts counts).
	MaxAttempts string
	// Principal is the Kerberos principal of a shipped keytab (empty:
	// none, the tokens are not refreshed).
	Principal string
	// Binary and BinaryVisibility locate the shared ebb binary the
	// workers run (yarnclient.EnvBinary, EnvBinaryVisibility).
	Binary, BinaryVisibility string
}

// ReadYarnEnv reads the AM container's environment.
func ReadYarnEnv(getenv func(string) string) YarnEnv {
	return YarnEnv{
		ContainerID: getenv("CONTAINER_ID"), TokenFile: getenv("HADOOP_TOKEN_FILE_LOCATION"),
		Staging: getenv("EBB_STAGING"), NMHost: getenv("NM_HOST"), NMPort: getenv("NM_PORT"), MaxAttempts: getenv("MAX_APP_ATTEMPTS"),
		Principal: getenv(yarnclient.EnvPrincipal),
		Binary:    getenv(yarnclient.EnvBinary), BinaryVisibility: getenv(yarnclient.EnvBinaryVisibility),
	}
}

// binaryEnv answers yarnclient.WorkerBinary's questions from e.
func (e YarnEnv) binaryEnv(k string) string {
	switch k {
	case yarnclient.EnvBinary:
		return e.Binary
	case yarnclient.EnvBinaryVisibility:
		return e.BinaryVisibility
	}
	return ""
}

package yarn

import "fmt"

// ExitStatusText explains YARN's special container exit statuses
// (ContainerExitStatus); other values are the process's own exit code.
func ExitStatusText(s int32) string {
	switch s {
	case 0:
		return "success"
	case -100:
		return "aborted (released, or its node was lost)"
	case -101:
		return "the node's disks failed"
	case -102:
		return "preempted"
	case -103:
		return "killed: virtual memory limit exceeded"
	case -104:
		return "killed: physical memory limit exceeded"
	case -105:
		return "killed by the AM"
	case -106:
		return "killed by the ResourceManager"
	case -107:
		return "killed after the application finished"
	case -108:
		return "killed by the container scheduler"
	case 137:
		return "killed (SIGKILL)"
	case 143:
		return "terminated (SIGTERM)"
	}
	return fmt.Sprintf("exit code %d", s)
}

package yarn

import (
	"fmt"
	"strconv"
	"strings"
)

// AppID is a YARN application id: application_<clusterTimestamp>_<id>.
type AppID struct {
	ClusterTS int64
	ID        int32
}

func (a AppID) String() string { return fmt.Sprintf("application_%d_%04d", a.ClusterTS, a.ID) }

// ParseAppID reads application_<ts>_<id>.
func ParseAppID(s string) (AppID, error) {
	p := strings.Split(s, "_")
	if len(p) != 3 || p[0] != "application" {
		return AppID{}, &IDError{Kind: "application", ID: s}
	}
	ts, err1 := strconv.ParseInt(p[1], 10, 64)
	id, err2 := strconv.ParseInt(p[2], 10, 32)
	if err1 != nil || err2 != nil {
		return AppID{}, &IDError{Kind: "application", ID: s}
	}
	return AppID{ClusterTS: ts, ID: int32(id)}, nil
}

// AttemptID is an application attempt.
type AttemptID struct {
	App     AppID
	Attempt int32
}

// ContainerID is a container: its attempt and a number whose bits above
// 40 carry the RM's epoch (it grows on RM restarts with work preserving).
type ContainerID struct {
	Attempt AttemptID
	ID      int64
}

const epochShift = 40

// String is Hadoop's form: container_[e<epoch>_]<ts>_<app>_<attempt>_<seq>.
func (c ContainerID) String() string {
	epoch := c.ID >> epochShift
	seq := c.ID & (1<<epochShift - 1)
	a := c.Attempt
	if epoch > 0 {
		return fmt.Sprintf("container_e%02d_%d_%04d_%02d_%06d", epoch, a.App.ClusterTS, a.App.ID, a.Attempt, seq)
	}
	return fmt.Sprintf("container_%d_%04d_%02d_%06d", a.App.ClusterTS, a.App.ID, a.Attempt, seq)
}

// ParseContainerID reads the form String writes (what the NM puts in
// CONTAINER_ID).
func ParseContainerID(s string) (ContainerID, error) {
	p := strings.Split(s, "_")
	bad := &IDError{Kind: "container", ID: s}
	if len(p) < 5 || p[0] != "container" {
		return ContainerID{}, bad
	}
	var epoch int64
	if strings.HasPrefix(p[1], "e") {
		e, err := strconv.ParseInt(p[1][1:], 10, 64)
		if err != nil {
			return ContainerID{}, bad
		}
		epoch, p = e, append(p[:1], p[2:]...)
	}
	if len(p) != 5 {
		return ContainerID{}, bad
	}
	ts, e1 := strconv.ParseInt(p[1], 10, 64)
	app, e2 := strconv.ParseInt(p[2], 10, 32)
	att, e3 := strconv.ParseInt(p[3], 10, 32)
	seq, e4 := strconv.ParseInt(p[4], 10, 64)
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
		return ContainerID{}, bad
	}
	return ContainerID{Attempt: AttemptID{App: AppID{ClusterTS: ts, ID: int32(app)}, Attempt: int32(att)}, ID: epoch<<epochShift | seq}, nil
}

// IDError is a malformed YARN id.
type IDError struct {
	Kind string
	ID   string
}

func (e *IDError) Error() string { return fmt.Sprintf("malformed %s id %q", e.Kind, e.ID) }

package yarn

import (
	"fmt"

	"github.com/ebb-am/ebb/proto/hadooppb"
)

// Visibility is a LocalResource's visibility: how widely a NodeManager
// shares the copy it downloads. ebb uses two of YARN's three.
type Visibility int

const (
	// VisibilityApplication: the NM downloads the file once per
	// application (into usercache/<user>/appcache/<app>/filecache) and
	// deletes it when the application ends. The zero value.
	VisibilityApplication Visibility = iota
	// VisibilityPublic: the NM downloads the file once into its public
	// cache (filecache/) and reuses it for every application of every
	// user that names the same URL, size and timestamp. The NM checks the
	// file is world-readable and its directories world-searchable, and
	// fails the container's localisation otherwise.
	VisibilityPublic
)

func (v Visibility) String() string {
	if v == VisibilityPublic {
		return "PUBLIC"
	}
	return "APPLICATION"
}

// ParseVisibility reads what String wrote ("" is APPLICATION).
func ParseVisibility(s string) (Visibility, error) {
	switch s {
	case "", "APPLICATION":
		return VisibilityApplication, nil
	case "PUBLIC":
		return VisibilityPublic, nil
	}
	return 0, fmt.Errorf("local resource visibility %q: want PUBLIC or APPLICATION", s)
}

func (v Visibility) proto() hadooppb.LocalResourceVisibilityProto {
	if v == VisibilityPublic {
		return hadooppb.LocalResourceVisibilityProto_PUBLIC
	}
	return hadooppb.LocalResourceVisibilityProto_APPLICATION
}

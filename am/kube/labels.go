package kube

import (
	"fmt"
	"hash/fnv"
	"regexp"
)

var labelValue = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`)

// groupLabel is a group's name as a label value: itself when it is a
// valid one (at most 63 characters of letters, digits, '-', '_', '.',
// starting and ending with a letter or digit), else "g-" and a hash of it,
// so every group still has its own value to select by.
func groupLabel(name string) string {
	if len(name) <= 63 && labelValue.MatchString(name) {
		return name
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(name)) // a hash's Write does not fail
	return fmt.Sprintf("g-%016x", h.Sum64())
}

package dag

import (
	"fmt"
	"maps"
	"slices"
)

// CheckResources refuses a DAG whose group or vertex asks for more of a
// resource type than one worker can ever get: most is, per type, the most
// a worker's container may hold on the cluster (a type absent: none), and
// limit says what bounds it ("the cluster's largest container"). The
// error names the field (the group's, or the vertex's: the workers carry
// its ask), the type and the maximum, so the DAG fails at submit instead
// of waiting for containers that never come.
func (s *Spec) CheckResources(most map[string]int64, limit string) error {
	over := func(field, who string, res map[string]int64) error {
		for _, name := range slices.Sorted(maps.Keys(res)) {
			if res[name] > most[name] {
				return fieldErr(field+"."+name, "%d (%s): more than %s holds (%s: %d)", res[name], who, limit, name, most[name])
			}
		}
		return nil
	}
	if err := over("containerGroup.resources", "group "+s.Group.Name, s.Group.Resources); err != nil {
		return err
	}
	for i, v := range s.Vertices {
		if err := over(fmt.Sprintf("vertices[%d].resources", i), "vertex "+v.Name, v.Resources); err != nil {
			return err
		}
	}
	return nil
}

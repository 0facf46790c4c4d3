package dag

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func fieldErr(field, format string, args ...any) error {
	return &SpecError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// validate checks everything that can be checked without a cluster. The
// first problem found is returned; its Field is a path into the spec.
func (s *Spec) validate() error {
	if !namePattern.MatchString(s.Name) {
		return fieldErr("name", "%q: want a name of letters, digits, '_', '.', '-'", s.Name)
	}
	if s.Scaling != "" && s.Scaling != "aggressive" && s.Scaling != "conservative" {
		return fieldErr("scaling", "%q: want aggressive or conservative", s.Scaling)
	}
	if s.Goal != nil && s.Goal.Within < 0 {
		return fieldErr("goal.within", "%s: want a positive duration", s.Goal.Within.D())
	}
	if s.Goal != nil && s.Goal.Within > 0 && !s.Goal.By.IsZero() {
		return fieldErr("goal", "give either within or by, not both")
	}
	if s.Overwrite && IsRoot(s.Output) {
		return fieldErr("overwrite", "output %q is the root of a file system: overwriting it would remove everything on it", s.Output)
	}
	if err := s.Group.validate(); err != nil {
		return err
	}
	if len(s.Vertices) == 0 {
		return fieldErr("vertices", "a DAG needs at least one vertex")
	}
	seen := map[string]int{}
	for i := range s.Vertices {
		v := &s.Vertices[i]
		f := fmt.Sprintf("vertices[%d]", i)
		if !namePattern.MatchString(v.Name) {
			return fieldErr(f+".name", "%q: want a name of letters, digits, '_', '.', '-'", v.Name)
		}
		if j, dup := seen[v.Name]; dup {
			return fieldErr(f+".name", "%q is also the name of vertices[%d]", v.Name, j)
		}
		seen[v.Name] = i
		if err := v.validate(f, s.Group); err != nil {
			return err
		}
	}
	for i, e := range s.Edges {
		f := fmt.Sprintf("edges[%d]", i)
		from, ok := seen[e.From]
		if !ok {
			return fieldErr(f+".from", "unknown vertex %q (vertices are %s)", e.From, s.vertexNames())
		}
		to, ok := seen[e.To]
		if !ok {
			return fieldErr(f+".to", "unknown vertex %q (vertices are %s)", e.To, s.vertexNames())
		}
		if e.From == e.To {
			return fieldErr(f, "cycle: %s -> %s", e.From, e.To)
		}
		if e.Type == OneToOne && s.Vertices[from].Parallelism != s.Vertices[to].Parallelism {
			return fieldErr(f+".type", "one-to-one edge %s -> %s joins parallelism %d to %d: want equal parallelism",
				e.From, e.To, s.Vertices[from].Parallelism, s.Vertices[to].Parallelism)
		}
		for j := 0; j < i; j++ {
			if s.Edges[j].From == e.From && s.Edges[j].To == e.To {
				return fieldErr(f, "duplicate edge %s -> %s (also edges[%d])", e.From, e.To, j)
			}
		}
	}
	if cycle := s.findCycle(); cycle != nil {
		// Point at the edge that closes the cycle.
		field := "edges"
		for i, e := range s.Edges {
			if e.From == cycle[len(cycle)-2] && e.To == cycle[len(cycle)-1] {
				field = fmt.Sprintf("edges[%d]", i)
			}
		}
		return fieldErr(field, "cycle: %s", strings.Join(cycle, " -> "))
	}
	return s.validateStream()
}

func (g *GroupSpec) validate() error {
	if !namePattern.MatchString(g.Name) {
		return fieldErr("containerGroup.name", "%q: want a name of letters, digits, '_', '.', '-'", g.Name)
	}
	if g.WorkerMemoryMB < 0 {
		return fieldErr("containerGroup.workerMemoryMB", "%d: want a positive number of MB, or 0 (or no field) for ebb to size the workers", g.WorkerMemoryMB)
	}
	if g.WorkerVCores < 0 {
		return fieldErr("containerGroup.workerVCores", "%d: want 0 (default 1) or more", g.WorkerVCores)
	}
	if g.MaxWorkers < 0 {
		return fieldErr("containerGroup.maxWorkers", "%d: want 0 (unlimited) or more", g.MaxWorkers)
	}
	if err := validateResources("containerGroup.resources", g.Resources, "workerMemoryMB and workerVCores"); err != nil {
		return err
	}
	if g.NodeLabel != "" && !labelPattern.MatchString(g.NodeLabel) {
		return fieldErr("containerGroup.nodeLabel", "%q: want a YARN node label (letters, digits, '-', '_', starting with a letter or digit), or none for the default partition", g.NodeLabel)
	}
	return nil
}

// labelPattern is what YARN accepts as a node label's name.
var labelPattern = regexp.MustCompile(`^[0-9a-zA-Z][0-9a-zA-Z_-]{0,254}$`)

// validateResources checks other resource types (field: where they are).
func validateResources(field string, res map[string]int64, basics string) error {
	for _, name := range slices.Sorted(maps.Keys(res)) {
		f := field + "." + name
		switch {
		case name == "" || strings.ContainsAny(name, " ,="):
			return fieldErr(field, "%q: want a YARN resource type name (yarn.io/gpu)", name)
		case name == "memory-mb" || name == "vcores":
			return fieldErr(f, "memory and vcores are %s", basics)
		case res[name] < 1:
			return fieldErr(f, "%d: want 1 or more", res[name])
		}
	}
	return nil
}

func (v *VertexSpec) validate(f string, g GroupSpec) error {
	if len(v.Command) == 0 {
		return fieldErr(f+".command", "missing: want a command (string or list)")
	}
	if v.Parallelism <= 0 {
		return fieldErr(f+".parallelism", "%d: want at least 1 task", v.Parallelism)
	}
	if v.MemoryMB <= 0 {
		return fieldErr(f+".memoryMB", "%d: want a positive number of MB", v.MemoryMB)
	}
	if g.WorkerMemoryMB > 0 && v.MemoryMB > g.WorkerMemoryMB {
		return fieldErr(f+".memoryMB", "%d MB is more than a worker of group %s offers (containerGroup.workerMemoryMB = %d)",
			v.MemoryMB, g.Name, g.WorkerMemoryMB)
	}
	if v.VCores < 0 {
		return fieldErr(f+".vcores", "%d: want 0 (default 1) or more", v.VCores)
	}
	if err := validateResources(f+".resources", v.Resources, "memoryMB and vcores"); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(v.Resources)) {
		if have, ok := g.Resources[name]; ok && v.Resources[name] > have {
			return fieldErr(f+".resources."+name, "%d is more than a worker of group %s has (containerGroup.resources.%s = %d)",
				v.Resources[name], g.Name, name, have)
		}
	}
	for name, p := range map[string]*Profile{"profile": v.Profile, "shuffleProfile": v.ShuffleProfile, "reduceProfile": v.ReduceProfile} {
		if p == nil {
			continue
		}
		for r, x := range map[string]float64{"cpu": p.CPU, "memory": p.Memory, "io": p.IO} {
			if x < 0 || x > 1 {
				return fieldErr(f+"."+name+"."+r, "%g: want a fraction of a node from 0 to 1", x)
			}
		}
	}
	if v.SplitSize < 0 {
		return fieldErr(f+".splitSize", "%d: want a number of bytes, or 0 for near-equal ranges", v.SplitSize)
	}
	if v.SplitSize > 0 && v.RecordLength > 0 {
		return fieldErr(f+".splitSize", "give either splitSize or recordLength, not both")
	}
	if v.InputMode != "" && v.InputMode != InputStream && v.InputMode != InputFile {
		return fieldErr(f+".inputMode", "%q: want %s (the default: a named pipe fed while the task reads) or %s (a copy made before it starts)",
			v.InputMode, InputStream, InputFile)
	}
	if v.RecordLength < 0 {
		return fieldErr(f+".recordLength", "%d: want 0 (lines) or a record size in bytes", v.RecordLength)
	}
	if v.RecordLength > 0 && len(v.Inputs) == 0 {
		return fieldErr(f+".recordLength", "%d with no inputs: it says how to split inputs", v.RecordLength)
	}
	if n := len(v.SimDurations); n > 1 && n != v.Parallelism {
		return fieldErr(f+".simDurations", "%d durations for %d tasks: want one, or one per task", n, v.Parallelism)
	}
	return nil
}

func (s *Spec) vertexNames() string {
	names := make([]string, len(s.Vertices))
	for i, v := range s.Vertices {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}

// findCycle returns one cycle as a list of vertex names (first == last),
// or nil when the edges form a DAG.
func (s *Spec) findCycle() []string {
	out := map[string][]string{}
	for _, e := range s.Edges {
		out[e.From] = append(out[e.From], e.To)
	}
	const (
		unseen = iota
		onStack
		done
	)
	state := map[string]int{}
	var stack []string
	var cycle []string
	var visit func(v string) bool
	visit = func(v string) bool {
		state[v] = onStack
		stack = append(stack, v)
		for _, w := range out[v] {
			switch state[w] {
			case onStack:
				for i, x := range stack {
					if x == w {
						cycle = append(append([]string{}, stack[i:]...), w)
						return true
					}
				}
			case unseen:
				if visit(w) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[v] = done
		return false
	}
	for _, v := range s.Vertices {
		if state[v.Name] == unseen && visit(v.Name) {
			return cycle
		}
	}
	return nil
}

// Topo returns vertex indices in a topological order (producers first),
// stable with respect to the order vertices were written in.
func (s *Spec) Topo() []int {
	idx := map[string]int{}
	for i, v := range s.Vertices {
		idx[v.Name] = i
	}
	indeg := make([]int, len(s.Vertices))
	for _, e := range s.Edges {
		indeg[idx[e.To]]++
	}
	var order []int
	used := make([]bool, len(s.Vertices))
	for len(order) < len(s.Vertices) {
		progressed := false
		for i := range s.Vertices {
			if used[i] || indeg[i] > 0 {
				continue
			}
			used[i] = true
			order = append(order, i)
			progressed = true
			for _, e := range s.Edges {
				if e.From == s.Vertices[i].Name {
					indeg[idx[e.To]]--
				}
			}
		}
		if !progressed {
			break // a cycle; validate rejects these
		}
	}
	return order
}

// IsRoot says whether an output location is the root of its file system
// ("/", "hdfs://host:port/"): never a place to overwrite.
func IsRoot(location string) bool {
	p := location
	if _, rest, ok := strings.Cut(location, "://"); ok {
		p = "/"
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			p = rest[i:]
		}
	}
	return p != "" && strings.Trim(p, "/") == ""
}

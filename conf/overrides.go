package conf

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/viper"
)

// EnvName is the environment variable that overrides key: "EBB_" and the
// key upper-cased with '.' and '-' as '_', so
// mr3.auto.scale.out.threshold.percent is EBB_MR3_AUTO_SCALE_OUT_THRESHOLD_PERCENT
// and ebb.local.nodes is EBB_EBB_LOCAL_NODES. One rule, no exceptions.
func EnvName(key string) string {
	return "EBB_" + envReplacer.Replace(strings.ToUpper(key))
}

var envReplacer = strings.NewReplacer(".", "_", "-", "_")

// override is one value from the EBB_ environment or a --set flag.
type override struct {
	key, value string
	origin     origin
}

// readOverrides gathers the layers above the files. For table keys viper
// merges them: EBB_ variables enter as its config layer and --set values as
// its override layer, so viper's own precedence decides that a flag beats
// the environment. Two things stay outside viper: the lookup of the EBB_
// names (viper only reads the process environment, and Load must honour an
// injected Getenv), and --set of keys outside the table, because viper
// lower-cases keys and Hadoop's are case-sensitive (fs.defaultFS).
func readOverrides(getenv func(string) string, sets map[string]string) ([]override, error) {
	// A delimiter no key contains keeps dotted keys flat instead of nested.
	v := viper.NewWithOptions(viper.KeyDelimiter("\x00"))
	env := make(map[string]any)
	for _, k := range keys {
		if val := getenv(EnvName(k.Name)); val != "" {
			env[k.Name] = val
		}
	}
	if err := v.MergeConfigMap(env); err != nil {
		return nil, fmt.Errorf("conf: merging EBB_ environment: %w", err)
	}

	names := make([]string, 0, len(sets))
	for k := range sets {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []override
	for _, k := range names {
		if _, ok := keyIndex[k]; ok {
			v.Set(k, sets[k])
			continue
		}
		out = append(out, override{key: k, value: sets[k], origin: origin{kind: fromFlag}})
	}

	for _, k := range keys {
		if !v.IsSet(k.Name) {
			continue
		}
		o := origin{kind: fromEnv, env: EnvName(k.Name)}
		if _, flagged := sets[k.Name]; flagged {
			o = origin{kind: fromFlag}
		}
		out = append(out, override{key: k.Name, value: v.GetString(k.Name), origin: o})
	}
	return out, nil
}

// ParseSets turns repeated --set key=value flags into LoadOptions.Sets. A
// later flag for the same key wins, as on most command lines.
func ParseSets(flags []string) (map[string]string, error) {
	sets := make(map[string]string, len(flags))
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, &ValueError{File: "--set", Key: k, Value: f, Allowed: "key=value"}
		}
		sets[k] = v
	}
	return sets, nil
}

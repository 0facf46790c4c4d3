package conf_test

import (
	"fmt"

	"github.com/ebb-am/ebb/conf"
)

// A subsystem reads plain values and reports a rule spanning two keys in
// the same one-line form as conf's own errors.
func ExampleConfig_ErrorFor() {
	c := conf.Defaults()
	if err := c.Set("mr3.auto.scale.in.threshold.percent", "85"); err != nil {
		fmt.Println(err)
	}
	out, in := c.Int("mr3.auto.scale.out.threshold.percent"), c.Int("mr3.auto.scale.in.threshold.percent")
	if in >= out {
		fmt.Println(c.ErrorFor("mr3.auto.scale.in.threshold.percent",
			fmt.Sprintf("a value below mr3.auto.scale.out.threshold.percent (%d)", out)))
	}
	// Output:
	// set: mr3.auto.scale.in.threshold.percent = "85": want a value below mr3.auto.scale.out.threshold.percent (80)
}

func ExampleLoad() {
	c, warns, err := conf.Load(conf.LoadOptions{
		Getenv: func(string) string { return "" }, // no files, no EBB_ variables
		Sets:   map[string]string{"ebb.local.max.nodes": "8", "yarn.resourcemanager.hostname": "rm1"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range warns {
		fmt.Println("warning:", w)
	}
	fmt.Println(c.Int("ebb.local.max.nodes"), c.Origin("ebb.local.max.nodes"), c.RMSchedulerAddress())
	// Output:
	// 8 --set rm1:8030
}

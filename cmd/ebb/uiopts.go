package main

import (
	"path/filepath"

	"github.com/ebb-am/ebb/am/ui"
	"github.com/ebb-am/ebb/conf"
)

// localUIOptions configures the status UI of an AM in the local world:
// worker logs live under root/logs/<container>, and the UI serves them
// itself (there is no NodeManager to link to).
func localUIOptions(c *conf.Config, root string) ui.Options {
	return ui.Options{
		App:                ui.AppInfo{ID: "local", Name: "ebb local", World: "local", Queue: "-"},
		LocalLogDir:        filepath.Join(root, "logs"),
		PackingHighPercent: c.Int("ebb.packing.high.threshold.percent"),
	}
}

package main

import (
	"github.com/ebb-am/ebb/am/amconf"
	"github.com/ebb-am/ebb/am/core"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/packing"
)

// packingOptions and coreOptions are am/amconf's: the one place keys become
// the core's options.
func packingOptions(c *conf.Config) packing.Options { return amconf.PackingOptions(c) }

func coreOptions(c *conf.Config, idPrefix string) (core.CoreOptions, error) {
	return amconf.CoreOptions(c, idPrefix)
}

package main

import (
	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/conf"
)

// confFlags are the configuration flags every AM-starting command takes.
type confFlags struct {
	path string
	sets []string
}

func (f *confFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.path, "conf", "", "mr3-site.xml, or a directory holding it (default: $EBB_CONF_DIR, then $HADOOP_CONF_DIR)")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a configuration key: --set key=value (repeatable)")
}

// load reads the configuration and logs its warnings.
func (f *confFlags) load(log *logrus.Logger) (*conf.Config, error) {
	sets, err := conf.ParseSets(f.sets)
	if err != nil {
		return nil, err
	}
	c, warnings, err := conf.Load(conf.LoadOptions{ConfPath: f.path, Sets: sets})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		log.Warn(w.String())
	}
	return c, nil
}

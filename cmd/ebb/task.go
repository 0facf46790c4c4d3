package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ebb-am/ebb/task"
)

func newTaskCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "task NAME [flags]",
		Short:              "Run a built-in task program (" + strings.Join(task.Names(), ", ") + ")",
		Long:               "Built-in task programs for examples, tests and benchmarks. They follow the task contract: see task/doc.go.",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
				return fmt.Errorf("task: name one of %s", strings.Join(task.Names(), ", "))
			}
			if err := task.Main(args); err != nil {
				if errors.Is(err, task.ErrUsage) {
					return &exitError{code: 2, err: err}
				}
				return err
			}
			return nil
		},
	}
}

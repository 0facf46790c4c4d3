package main

import (
	"errors"

	"github.com/ebb-am/ebb/commit"
	"github.com/ebb-am/ebb/conf"
	"github.com/ebb-am/ebb/dag"
	"github.com/ebb-am/ebb/kerberos"
)

// docHint is the page of docs/ that explains what went wrong, for the
// errors a newcomer meets first: a missing cluster configuration, a
// Kerberos login, a DAG spec, a key, an output that holds results. main
// puts it at the end of the error's line ("" = none fits).
func docHint(err error) string {
	var (
		krb    *kerberos.Error
		spec   *dag.SpecError
		exists *commit.ExistsError
		value  *conf.ValueError
		key    *conf.UnknownKeyError
		xml    *conf.XMLError
	)
	switch {
	case errors.Is(err, conf.ErrNoYARNSite):
		return docsRef("getting-started.md#run-a-dag-on-yarn")
	case errors.As(err, &krb):
		return docsRef("operators.md#kerberos")
	case errors.As(err, &spec):
		return docsRef("dags.md")
	case errors.As(err, &exists):
		return docsRef("dags.md#outputs-and-the-commit")
	case errors.As(err, &value), errors.As(err, &key), errors.As(err, &xml):
		return docsRef("reference/config.md")
	}
	return ""
}

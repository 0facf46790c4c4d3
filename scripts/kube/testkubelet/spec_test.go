package main

import "testing"

func TestExpand(t *testing.T) {
	vars := map[string]string{"NODE": "kwok-node-1", "IP": "127.0.0.1"}
	for in, want := range map[string]string{
		"--node $(NODE)":       "--node kwok-node-1",
		"$(IP):$(NODE)":        "127.0.0.1:kwok-node-1",
		"$(UNSET) stays":       "$(UNSET) stays",
		"$$(NODE) escaped":     "$(NODE) escaped",
		"a $ b":                "a $ b",
		"open $(NODE":          "open $(NODE",
		"plain":                "plain",
		"$HOME is the shell's": "$HOME is the shell's",
	} {
		if got := expand(in, vars); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRewrite(t *testing.T) {
	mounts := []mount{{"/ebb/work/deep", "/d/deep"}, {"/ebb/work", "/d/work"}}
	for in, want := range map[string]string{
		"/ebb/work":            "/d/work",
		"/ebb/work/x/y":        "/d/work/x/y",
		"/ebb/work/deep/z":     "/d/deep/z",
		"--work-dir=/ebb/work": "--work-dir=/d/work",
		"/ebb/workshop":        "/ebb/workshop",
		"ls /ebb/work":         "ls /ebb/work",
		"worker":               "worker",
		"a=b":                  "a=b",
	} {
		if got := rewrite(in, mounts); got != want {
			t.Errorf("rewrite(%q) = %q, want %q", in, got, want)
		}
	}
}

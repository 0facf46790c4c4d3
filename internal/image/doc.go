// Package image holds the test of the repository's Dockerfile: with no
// registry and no container runtime on the build machines, it checks the
// image's one binary the way the Dockerfile makes and runs it.
package image

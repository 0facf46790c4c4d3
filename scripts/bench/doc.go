// Package bench holds the MapReduce-vs-ebb benchmark (issue #17): the
// script mr-vs-ebb.sh, its input generator (benchgen), its Java side (pom.xml:
// MapReduce's WordCount and the RM report reader AppReport) and, as this
// package's only Go code, the smoke test that runs the script's smallest
// case on the test run's minicluster.
//
// The benchmark itself is too slow for the test command; its results go in
// the README's "Benchmark: MapReduce vs ebb" section.
package bench

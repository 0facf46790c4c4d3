// Package bench holds the benchmarks that run MapReduce and ebb side by
// side on one YARN cluster: mr-vs-ebb.sh (issue #17: word count, with its
// input generator benchgen) and terasort.sh (issue #27: TeraGen, then
// MapReduce's TeraSort and ebb's tera-sample/tera-map/tera-reduce, each
// output checked by TeraValidate) and streaming.sh (issue #34: Hadoop
// Streaming vs ebb streaming, awk and Python word counts, outputs compared
// byte for byte), with lib.sh's shared steps and their
// Java side (pom.xml: hadoop-mapreduce-examples and the RM report reader
// AppReport). This package's only Go code is the smoke tests that run each
// script's smallest case on the test run's minicluster.
//
// The benchmarks themselves are too slow for the test command; their
// latest results go in docs/benchmarks.md.
package bench

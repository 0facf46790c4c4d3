// Package report owns the sim's figures of merit: from each policy's run
// (nodes and memory in use over time, job submit and finish times, node
// time and cost) it computes node-hours, cost, job completion times,
// slowdown against a reference run, goal attainment, utilisation and the
// distance to a lower bound, and writes them as a table for people, JSON
// for scripts (byte-identical for the same runs) and plots.
//
// Definitions:
//   - JCT (job completion time) = finish - submit, over completed jobs.
//   - Percentiles are nearest-rank: the p-th percentile of n sorted values
//     is the value at rank ceil(p/100 x n) (1-based), so it is always one
//     of the values.
//   - Slowdown of a job = its JCT under the policy / its JCT under the
//     reference run (the static cluster at peak size), over jobs completed
//     in both with a reference JCT above 0.
//   - Goal attainment = jobs that completed within their goal / jobs that
//     had one.
//   - Mean utilisation = sum of memory used by running tasks over all
//     samples / sum of the memory of the nodes in use over all samples
//     (for evenly spaced samples, the capacity-weighted time average).
//   - The lower bound on node-hours = sum of task memory x duration / node
//     memory / 3600: what perfectly packed nodes that appear and vanish
//     with the work would cost. ratio_to_lower_bound = node_hours / it.
//   - The bound of a latency target T on a run = T x max(1, the run's
//     cold-start floor); the dial, the frontier and the cost at the
//     default judge a policy's runs at several targets against it
//     (dial.go).
//
// A figure with nothing to measure (no reference, no goals, no completed
// jobs) is NaN in Go, "-" in the table and null in JSON.
//
// It imports no other ebb package.
package report

// Package rolllog owns a process's own log file in a container's log
// directory: a file that rolls by size, keeping a bounded number of rolled
// pieces, so that a long session cannot fill a NodeManager's log disk (the
// NM marks a full disk bad and kills every container on the node).
//
// Naming is part of the contract with YARN's rolling log aggregation: the
// file being written keeps its name (am.log, worker.log) and a rolled piece
// becomes NAME.NNNN, numbered upwards and never reused, so that an include
// pattern on the rolled names (see RolledPattern) lets the NodeManager
// upload each finished piece once while the application runs. The
// NodeManager deletes what it uploaded, so the pattern must never match
// the file still being written.
package rolllog

// Package shuffle is the keyed shuffle the worker runs for a vertex whose
// program speaks Hadoop Streaming's line protocol (a dag.StreamSpec): the
// program reads lines on stdin and writes key/value lines on stdout, and
// the framework, not the program, does the rest, as MapReduce does.
//
// On the producer's side the worker reads the program's stdout as lines
// (LF, CR or CRLF ends one, as Hadoop's LineReader), cuts each into a key
// and a value at the N-th separator (Splitter), picks its partition with
// Hadoop's HashPartitioner or KeyFieldBasedPartitioner (so a key goes to
// the reducer it goes to on Hadoop), buffers the records up to a memory
// budget, sorts them by partition and key (unsigned bytes, or a
// KeyFieldBasedComparator -k spec), spills the sorted buffer as a run
// (running the combiner command, if any, over each partition of it), and at
// the end merges the runs into one sorted file per partition (Collector).
//
// On the consumer's side the worker merges the sorted partition files of
// every producer into one stream and writes it to the program's stdin as
// "key TAB value" lines (Merge, FeedLines). A sink's stdout is written as
// Hadoop's TextOutputFormat writes records (TextWriter).
//
// A partition file is a sequence of records
//
//	uvarint(len(key)) key uvarint(len(value)) value
//
// sorted by the edge's comparator; records need no escaping.
//
// It imports no other ebb package.
package shuffle

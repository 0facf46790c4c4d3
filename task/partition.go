package task

import "hash/fnv"

// HashPartition is fnv32a(key) mod partitions: the same key goes to the
// same partition in every producer task, so one consumer sees all of it.
func HashPartition(key []byte, partitions int) int {
	h := fnv.New32a()
	_, _ = h.Write(key)
	return int(h.Sum32() % uint32(partitions))
}

// RangePartition is firstByte*partitions/256 (an empty line goes to 0):
// partitions hold increasing byte ranges, so concatenating sorted
// partitions in order is totally ordered.
func RangePartition(line []byte, partitions int) int {
	if len(line) == 0 {
		return 0
	}
	return int(line[0]) * partitions / 256
}

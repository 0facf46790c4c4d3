package fsys

// splitSlop is FileInputFormat's SPLIT_SLOP: a file's last split may be
// up to 10% larger than the others.
const splitSlop = 1.1

// HadoopSplits cuts one file of length bytes as Hadoop's FileInputFormat
// does, as [offset, length] pairs: chunks of size bytes while what remains
// is more than 1.1 sizes, then the rest; an empty file is one empty split.
func HadoopSplits(length, size int64) [][2]int64 {
	if length == 0 {
		return [][2]int64{{0, 0}}
	}
	var out [][2]int64
	rem := length
	for float64(rem)/float64(size) > splitSlop {
		out = append(out, [2]int64{length - rem, size})
		rem -= size
	}
	if rem > 0 {
		out = append(out, [2]int64{length - rem, rem})
	}
	return out
}

package task

// radixSortSlots sorts slots by key word, in place: a most-significant-
// byte-first radix sort (American flag sort), which moves each slot into
// its byte's bucket by following cycles of swaps, then sorts each bucket
// by the next byte. A table without long keys sorts this way: its key
// words order as its keys (keyword.go), and 16-byte slots compared one
// pair at a time cost a spill of the distinct input more than the rest of
// its work. It needs no memory but its stack (8 levels at most).
func radixSortSlots(s []slot) { radixSortFrom(s, 56) }

// smallBucket is where insertion sort beats another pass of counting.
const smallBucket = 32

func radixSortFrom(s []slot, shift uint) {
	if len(s) <= smallBucket {
		insertionSortSlots(s)
		return
	}
	var end [256]int
	for _, x := range s {
		end[byte(x.key>>shift)]++
	}
	var next [256]int
	sum := 0
	for b, n := range end {
		next[b] = sum
		sum += n
		end[b] = sum
	}
	start := next
	for b := range 256 {
		for next[b] < end[b] {
			// Carry the slot at next[b] to its bucket, and the one it
			// displaces to its own, until one belongs in bucket b.
			x := s[next[b]]
			for d := byte(x.key >> shift); int(d) != b; d = byte(x.key >> shift) {
				s[next[d]], x = x, s[next[d]]
				next[d]++
			}
			s[next[b]] = x
			next[b]++
		}
	}
	if shift == 0 {
		return
	}
	for b := range 256 {
		if end[b]-start[b] > 1 {
			radixSortFrom(s[start[b]:end[b]], shift-8)
		}
	}
}

func insertionSortSlots(s []slot) {
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for ; j > 0 && s[j-1].key > x.key; j-- {
			s[j] = s[j-1]
		}
		s[j] = x
	}
}

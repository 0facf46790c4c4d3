package shuffle

// numericCompare orders the digit strings a[s1..e1] and b[s2..e2] (both
// inclusive) as KeyFieldBasedComparator's numerical compare does, which
// is not a parse: an optional leading '-', leading zeros skipped, then
// digits compared by count and then by value, a '.' starting a fraction
// compared digit by digit; any other byte ends the number. "-0" equals
// "0"; "+1", " 1" and "1e3" are not numbers as strtod would read them.
// Only the sign of the result matters.
func numericCompare(a []byte, s1, e1 int, b []byte, s2, e2 int) int {
	i, j := s1, s2
	mul := 1
	fa, fb := a[i], b[j]
	if fa == '-' {
		if fb != '-' {
			return oneNegative(a, s1+1, e1, b, s2, e2)
		}
		i++
	}
	if fb == '-' {
		if fa != '-' {
			return -oneNegative(b, s2+1, e2, a, s1, e1)
		}
		j++
	}
	if fa == '-' && fb == '-' {
		mul = -1
	}
	for i <= e1 && a[i] == '0' {
		i++
	}
	for j <= e2 && b[j] == '0' {
		j++
	}
	// Equal digits are skipped; the first difference (or non-digit)
	// stops the scan.
	for i <= e1 && j <= e2 && isDigit(a[i]) && a[i] == b[j] {
		i++
		j++
	}
	if i <= e1 {
		fa = a[i]
	}
	if j <= e2 {
		fb = b[j]
	}
	first := int(int8(fa)) - int(int8(fb))
	if (fa == '.' && (!isDigit(fb) || j > e2)) || (fb == '.' && (!isDigit(fa) || i > e1)) {
		return mul * decimalCompare(a, i, e1, b, j, e2)
	}
	// More remaining integer digits is the larger number.
	na, nb := 0, 0
	for i <= e1 {
		d := isDigit(a[i])
		i++
		if !d {
			break
		}
		na++
	}
	for j <= e2 {
		d := isDigit(b[j])
		j++
		if !d {
			break
		}
		nb++
	}
	if na != nb {
		return mul * (na - nb)
	}
	return mul * first
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// decimalCompare compares what follows the integer parts when one of them
// stopped at a '.'.
func decimalCompare(a []byte, i, e1 int, b []byte, j, e2 int) int {
	if i > e1 {
		return -nonZeroDigit(b, j+1, e2)
	}
	if j > e2 {
		return nonZeroDigit(a, i+1, e1)
	}
	switch {
	case a[i] == '.' && b[j] == '.':
		for i <= e1 && j <= e2 {
			if a[i] != b[j] {
				switch {
				case isDigit(a[i]) && isDigit(b[j]):
					return int(a[i]) - int(b[j])
				case isDigit(a[i]):
					return 1
				case isDigit(b[j]):
					return -1
				}
				return 0
			}
			i++
			j++
		}
		switch {
		case i > e1 && j > e2:
			return 0
		case i > e1:
			return -nonZeroDigit(b, j, e2)
		default:
			return nonZeroDigit(a, i, e1)
		}
	case a[i] == '.':
		return nonZeroDigit(a, i+1, e1)
	case b[j] == '.':
		return -nonZeroDigit(b, j+1, e2)
	}
	return 0
}

// nonZeroDigit is 1 when a[i..end] holds a non-zero digit before its first
// non-digit, else 0.
func nonZeroDigit(a []byte, i, end int) int {
	for ; i <= end; i++ {
		switch {
		case a[i] == '0':
		case isDigit(a[i]):
			return 1
		default:
			return 0
		}
	}
	return 0
}

// oneNegative compares a negative a (its digits from s1) with a
// non-negative b: a is smaller unless both are zero.
func oneNegative(a []byte, s1, e1 int, b []byte, s2, e2 int) int {
	if !isZero(a, s1, e1) || !isZero(b, s2, e2) {
		return -1
	}
	return 0
}

// isZero says a[start..end] reads as zero: zeros, then perhaps a '.' and
// zeros; any other non-digit ends it.
func isZero(a []byte, start, end int) bool {
	i := start
	for ; i <= end; i++ {
		if a[i] != '0' {
			if a[i] != '.' && isDigit(a[i]) {
				return false
			}
			break
		}
	}
	if i != end+1 && a[i] == '.' {
		for i++; i <= end; i++ {
			if a[i] != '0' {
				if isDigit(a[i]) {
					return false
				}
				break
			}
		}
	}
	return true
}

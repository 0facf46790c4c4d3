package conf

// unknownKey returns an *UnknownKeyError when key is in conf's name space
// (mr3., ebb.) but not in the table, naming the nearest known key so a
// typo is one glance away from its fix.
func unknownKey(key string, o origin) *UnknownKeyError {
	if !checked(key) {
		return nil
	}
	if _, ok := keyIndex[key]; ok {
		return nil
	}
	file, line := o.nameWhere()
	return &UnknownKeyError{File: file, Line: line, Key: key, Suggestion: nearest(key), Unsupported: unsupportedK8s[key]}
}

// nearest returns the table key with the smallest edit distance to key,
// the first in table order on a tie.
func nearest(key string) string {
	best, bestD := "", -1
	for _, k := range keys {
		if d := editDistance(key, k.Name); bestD < 0 || d < bestD {
			best, bestD = k.Name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes (keys
// are ASCII), in one row of memory.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0] // row[i-1][j-1]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			next := min(row[j]+1, row[j-1]+1, diag+cost)
			diag, row[j] = row[j], next
		}
	}
	return row[len(b)]
}

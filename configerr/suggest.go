package configerr

// Closest returns the candidate nearest to name by Distance, or "" when none is within half
// of name's length (a suggestion that far off would mislead). It is what every front end
// suggests for a mistyped name: a rule, a category, a sub-directive, a key.
func Closest(name string, candidates []string) string {
	best, bestD := "", len(name)/2+1
	for _, c := range candidates {
		if d := Distance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the optimal string alignment distance between a and b, in bytes: Levenshtein's
// insertions, deletions and substitutions, plus the swap of two adjacent bytes, each one
// edit, since a swap is the commonest typo.
func Distance(a, b string) int {
	// Three rows of the matrix: a swap looks two rows back.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

package logreport

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestBoundedTablesKeepSmallestRanks: a counter and a violationTable fed keys in any order,
// with repeats, many more distinct keys than they keep, and keys that share a rank prefix
// of their text, keep exactly the MaxPaths (MaxViolations) keys a sort by rank would pick,
// with their exact counts, and count the rest as other: what lets parts of a log read by
// different workers merge into the sequential run's report.
func TestBoundedTablesKeepSmallestRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 35))
	for round := range 40 {
		distinct := []int{MaxPaths - 1, MaxPaths, MaxPaths + 1, 2 * MaxPaths, 7 * MaxPaths}[round%5]
		keys := make([]string, distinct)
		for i := range keys {
			keys[i] = "/p/" + strconv.Itoa(rng.IntN(1<<30)) + "/" + strconv.Itoa(i)
		}
		var stream []string
		want := map[string]int64{}
		for range 3 * distinct {
			k := keys[rng.IntN(len(keys))]
			stream = append(stream, k)
			want[k]++
		}

		var c counter
		var vt violationTable
		for _, k := range stream {
			c.add([]byte(k))
			vt.add(violationKey{path: k, line: 3, rule: "Disallow: /p/"}, Violation{Count: 1})
		}

		seen := slices.Collect(func(yield func(string) bool) {
			for k := range want {
				if !yield(k) {
					return
				}
			}
		})
		slices.SortFunc(seen, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b)) })
		keep := seen[:min(len(seen), MaxPaths)]
		var kept int64
		for _, k := range keep {
			kept += want[k]
			if p := c.n[k]; p == nil || *p != want[k] {
				t.Fatalf("round %d (%d distinct): counter: %q counted %v, want %d", round, distinct, k, p, want[k])
			}
		}
		if len(c.n) != len(keep) || c.other != int64(len(stream))-kept {
			t.Fatalf("round %d: counter keeps %d keys, other %d; want %d, %d", round, len(c.n), c.other, len(keep), int64(len(stream))-kept)
		}

		vkeys := slices.Collect(func(yield func(violationKey) bool) {
			for k := range want {
				if !yield(violationKey{path: k, line: 3, rule: "Disallow: /p/"}) {
					return
				}
			}
		})
		slices.SortFunc(vkeys, func(a, b violationKey) int {
			if a.before(a.rank(), b, b.rank()) {
				return -1
			}
			if b.before(b.rank(), a, a.rank()) {
				return 1
			}
			return 0
		})
		kept = 0
		for _, k := range vkeys[:min(len(vkeys), MaxViolations)] {
			kept += want[k.path]
			if r := vt.rows[k]; r == nil || r.Count != want[k.path] {
				t.Fatalf("round %d: violationTable: %v counted %v, want %d", round, k, r, want[k.path])
			}
		}
		if len(vt.rows) != min(len(vkeys), MaxViolations) || vt.other != int64(len(stream))-kept {
			t.Fatalf("round %d: violationTable keeps %d rows, other %d; want %d, %d", round, len(vt.rows), vt.other, min(len(vkeys), MaxViolations), int64(len(stream))-kept)
		}
	}
}

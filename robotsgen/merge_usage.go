package robotsgen

import (
	"maps"
	"slices"

	"github.com/sitepolicy/caddy-robots/usage"
)

// mergeUsage combines the preference rules of vocabulary v of the declared groups a crawler
// obeys (a) with those of the other file's (b), so that at every path the merged file states
// both files' preferences combined as the vocabulary combines statements (any n wins, else
// any y; draft-ietf-aipref-vocab, "Combining Preferences"), which is also how a backend's
// Content-Usage header is merged. Neither file's "n" is lost, and a "y" holds only where the
// other file does not say "n".
//
// Preferences are chosen by the longest matching path (attach-05). Where a rule x of one file
// and a rule y of the other can match the same path, one usually covers the other (y is a
// plain prefix of x's fixed start, such as "/" or "/blog/" for "/blog/2024/"): then x is the
// more specific, and it takes the preferences of the longest rule of the other file that
// covers it, combined with its own. The longest rule matching a path is then the more
// specific file's, carrying the other file's best rule there, which is exact. Where neither
// covers the other (wildcards in the middle, "$"), each takes the other's "n" values only
// (never its "y", which would grant what neither file grants there), and so does a rule's
// covering rule then: no "n" of either file is lost and no "y" appears where neither file
// gives one, but a "y" may not reach the paths of the overlap. The note says so.
func mergeUsage(v usage.Vocab, a, b []usage.Rule) ([]usage.Rule, []string) {
	if len(a) == 0 || len(b) == 0 {
		return slices.Concat(cloneUsage(a), cloneUsage(b)), nil
	}
	type prep struct {
		shape
		orig  string // as written
		path  string // as written; "" is "/"
		prefs usage.Prefs
	}
	prepare := func(r usage.Rule) prep {
		path := r.Path
		if path == "" {
			path = "/"
		}
		p := prep{orig: r.Path, path: path, shape: shapeOf(path)}
		p.prefs, _ = v.FromConfig(r.Preferences)
		return p
	}
	rules := [2][]prep{}
	for i, rs := range [2][]usage.Rule{a, b} {
		for _, r := range rs {
			rules[i] = append(rules[i], prepare(r))
		}
	}
	// covers: every path y matches, x matches (in both readings, see shape), and where both
	// match the matcher picks y (it is longer) or they tie on the same paths (the matcher
	// combines them). "/**" covers "/a" but is longer: that pair counts as overlapping.
	covers := func(x, y prep) bool {
		return x.prefixCovers(y.shape) && (x.size < y.size || x.same(y.shape))
	}
	var notes []string
	var out []usage.Rule
	for side := range 2 {
		for _, x := range rules[side] {
			folded := x.prefs
			best, bestSize := usage.Prefs{}, -1
			partial := false
			for _, y := range rules[1-side] {
				switch {
				case !x.overlaps(y.shape):
				case covers(y, x):
					// The longest covering rule decides for the other file on x's paths; rules
					// of the same length are combined, as the matcher combines them.
					if y.size > bestSize {
						best, bestSize = y.prefs, y.size
					} else if y.size == bestSize {
						best = usage.Combine(best, y.prefs)
					}
				case covers(x, y):
					// y is the more specific: it takes x's preferences.
				default:
					partial = true
					folded = usage.Combine(folded, disallowsOf(v, y.prefs))
					if side == 0 {
						notes = append(notes, v.String()+" rules for "+x.path+" and "+y.path+" share some paths and neither covers the other: each takes the other's n values, which errs towards n on the paths only one of them matches")
					}
				}
			}
			if partial {
				// Where x shares paths with a rule it does not cover, the covering rule may not
				// be the other file's answer there: carry only its "n" values.
				best = disallowsOf(v, best)
			}
			folded = usage.Combine(folded, best)
			r := usage.Rule{Path: x.orig, Preferences: folded.Map()}
			if !slices.ContainsFunc(out, func(o usage.Rule) bool { return sameUsageRule(o, r) }) {
				out = append(out, r)
			}
		}
	}
	return out, notes
}

func cloneUsage(rs []usage.Rule) []usage.Rule {
	var out []usage.Rule
	for _, r := range rs {
		out = append(out, usage.Rule{Path: r.Path, Preferences: maps.Clone(r.Preferences)})
	}
	return out
}

// groupUsage returns the preference rules of one vocabulary of f's groups sel, without exact
// duplicates.
func groupUsage(f *File, sel []int, v usage.Vocab) []usage.Rule {
	var rs []usage.Rule
	for _, gi := range sel {
		src := f.Groups[gi].ContentUsage
		if v == usage.ContentSignal {
			src = f.Groups[gi].ContentSignal
		}
		for _, r := range src {
			if !slices.ContainsFunc(rs, func(o usage.Rule) bool { return sameUsageRule(o, r) }) {
				rs = append(rs, r)
			}
		}
	}
	return rs
}

func sameUsageRule(a, b usage.Rule) bool {
	return a.Path == b.Path && maps.Equal(a.Preferences, b.Preferences)
}

// disallowsOf returns the disallow preferences of p.
func disallowsOf(v usage.Vocab, p usage.Prefs) usage.Prefs {
	m := p.Map()
	for k, val := range m {
		if val != v.Value(usage.Disallow) {
			delete(m, k)
		}
	}
	out, _ := v.FromConfig(m)
	return out
}

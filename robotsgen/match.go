package robotsgen

import (
	"sort"
	"strings"
)

// Matcher answers, for a File, whether a crawler may fetch a path (RFC 9309
// section 2.2 and draft-illyes-rep-purpose section 2). It is independent of
// parsing and rendering: it reads the model, never the text. A Matcher is
// safe for concurrent use; it copies what it needs, so later changes to the
// File do not affect it.
type Matcher struct {
	rules  []Rule        // copies of every rule, for Decision.Rule
	lines  []int         // the line of each rule in its Text; nil for a File alone
	groups [][]matchRule // per File group, its rules normalised
	groupIndex

	usage [2][][]usageMatchRule // per vocabulary, per File group: its preference rules
}

type matchRule struct {
	pat   string // normalised pattern without a final "$"
	end   bool   // pattern ended in "$": the match must reach the end
	size  int    // octets of the pattern as written, non-ASCII encoded: the specificity
	allow bool
	rule  int // index into Matcher.rules
}

// NewMatcher prepares f for Decide. f need not be valid: tokens are compared
// as given and patterns are normalised the same way as paths. Presets count
// as the user agents they render as (File.Expand).
func NewMatcher(f *File) *Matcher {
	return newMatcher(f, nil)
}

// newMatcher is NewMatcher, whose decisions carry the lines of their rules when lines (of a
// Text of f) is not nil.
func newMatcher(f *File, lines *fileLines) *Matcher {
	f = f.Expand(false)
	m := &Matcher{groupIndex: newGroupIndex(f.Groups)}
	m.groups = make([][]matchRule, len(f.Groups))
	for gi := range f.Groups {
		g := &f.Groups[gi]
		for i, r := range g.Rules {
			m.rules = append(m.rules, r)
			if lines != nil {
				m.lines = append(m.lines, lines.rule(gi, i))
			}
			if r.Path == "" {
				// An empty allow or disallow matches nothing (RFC 9309 2.2.2:
				// "disallow:" with no path allows all), though as a prefix it
				// would match every path. Validate refuses it; a File built
				// in Go may still hold one.
				continue
			}
			pat := normalise(r.Path, true)
			// Specificity counts the octets of the pattern as written, with
			// non-ASCII octets percent-encoded (RFC 9309 2.2.2), as Google's
			// parser does: a mid-pattern "$" is one octet, "%62" three.
			mr := matchRule{size: len(r.Path) + 2*nonASCII(r.Path), allow: r.Type == Allow, rule: len(m.rules) - 1}
			if strings.HasSuffix(pat, "$") {
				pat = pat[:len(pat)-1]
				mr.end = true
			}
			mr.pat = pat
			m.groups[gi] = append(m.groups[gi], mr)
		}
		for vi, u := range usageVocabs {
			if rs := g.usageRules(vi); len(rs) > 0 {
				if m.usage[u.v] == nil {
					m.usage[u.v] = make([][]usageMatchRule, len(f.Groups))
				}
				m.usage[u.v][gi] = prepareUsage(u.v, rs)
			}
		}
		// Most specific first, allow before disallow, then file order: the
		// first match in a group is that group's winner.
		rs := m.groups[gi]
		sort.SliceStable(rs, func(i, j int) bool {
			if rs[i].size != rs[j].size {
				return rs[i].size > rs[j].size
			}
			return rs[i].allow && !rs[j].allow
		})
	}
	return m
}

// lookup finds the groups for a token, ignoring ASCII case.
func lookup(idx map[string][]int, token string) []int {
	var buf [64]byte
	if len(token) <= len(buf) {
		b := buf[:len(token)]
		for i := 0; i < len(token); i++ {
			c := token[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[i] = c
		}
		return idx[string(b)]
	}
	return idx[strings.ToLower(token)]
}

// Decide says whether the crawler with productToken (and purpose, which may
// be empty) may fetch path, the URL path with its query as sent in the
// request (a "#fragment" is ignored; "" means "/").
//
// Group choice: the groups naming the product token (case-insensitive,
// merged); else, if purpose is set, the groups naming the purpose
// (case-insensitive, merged); else the "*" groups (merged); else none, and
// everything is allowed. Rule choice: the matching rule with the most octets
// in its pattern (as written, non-ASCII percent-encoded) wins; on a tie allow
// wins (then file order). An empty pattern matches nothing. "/robots.txt"
// (after normalisation, without a query) is always allowed.
func (m *Matcher) Decide(productToken, purpose, path string) Decision {
	sel, _ := m.groupsFor(productToken, purpose)
	if len(sel) == 0 {
		return Decision{Allowed: true, Group: -1}
	}
	d := Decision{Allowed: true, Group: sel[0]}
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		path = "/"
	}
	var buf [512]byte
	np := appendNormalised(buf[:0], path, false)
	// The exemption applies to the normalised path, so "/robots%2Etxt" and
	// "/%72obots.txt" are exempt too. It is for the file's own URI only:
	// "/robots.txt?x=1" is another URI, which a crawler never fetches to
	// read the rules, so rules apply to it (as they do to every path for
	// Google's parser, which has no exemption at all).
	if string(np) == "/robots.txt" {
		return d
	}
	best := -1
	bestSize, bestAllow := -1, false
	for _, gi := range sel {
		for i := range m.groups[gi] {
			r := &m.groups[gi][i]
			if r.size < bestSize || (r.size == bestSize && (bestAllow || !r.allow)) {
				break // sorted: nothing later in this group can win
			}
			if matchPattern(r.pat, r.end, np) {
				best, bestSize, bestAllow = r.rule, r.size, r.allow
				break
			}
		}
	}
	if best >= 0 {
		d.Allowed = bestAllow
		d.Rule = &m.rules[best]
		if m.lines != nil {
			d.Line = m.lines[best]
		}
	}
	return d
}

// Select returns the indexes of the groups of the File a crawler obeys, in file order, and
// how they were chosen: the groups Decide decides with.
func (m *Matcher) Select(productToken, purpose string) ([]int, SelectedBy) {
	return m.groupsFor(productToken, purpose)
}

// SelectedBy says how the groups a crawler obeys were chosen.
type SelectedBy uint8

// How Matcher.Select chose.
const (
	SelectedByNone         SelectedBy = iota // no group applies
	SelectedByProductToken                   // groups naming the product token
	SelectedByPurpose                        // groups naming the purpose
	SelectedByStar                           // the "*" groups
)

// matchPattern reports whether pat (with "*" wildcards) matches a prefix of
// s, or all of s when end is set. It backtracks only to the last "*", which
// is enough for glob patterns, so it runs in O(len(pat)*len(s)) without
// allocating.
func matchPattern(pat string, end bool, s []byte) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for {
		if p == len(pat) {
			if !end || i == len(s) {
				return true
			}
		} else if pat[p] == '*' {
			star, mark = p, i
			p++
			continue
		} else if i < len(s) && pat[p] == s[i] {
			p++
			i++
			continue
		}
		if star < 0 || mark >= len(s) {
			return false
		}
		mark++
		p, i = star+1, mark
	}
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// normalise brings a pattern or path to the form both are compared in
// (RFC 9309 section 2.2.2): escapes of unreserved characters decoded, other
// escapes with upper-case hex, octets outside printable ASCII escaped, a
// stray "%" escaped as %25. In a path, "*" and "$" are escaped (%2A, %24) so
// that a pattern's %2A and %24 match them (section 2.2.3, figure 6); in a
// pattern "*" stays a wildcard and a final "$" anchors the end, while a "$"
// before the end is a literal "$" and is escaped like a path's, so that it
// matches a "$" in the path as it does for Google's parser. (Google compares
// escapes literally: for it %24 matches only "%24" and "$" only "$"; we
// follow RFC 9309 and treat both spellings as the same octet.)
func normalise(s string, pattern bool) string {
	return string(appendNormalised(nil, s, pattern))
}

func appendNormalised(dst []byte, s string, pattern bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', upperHex[v>>4], upperHex[v&15])
			}
			i += 2
		case c == '%' || c <= ' ' || c >= 0x7f:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		case c == '*' && !pattern, c == '$' && !(pattern && i == len(s)-1):
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// groupIndex is how a crawler's groups are chosen, the one implementation of it: the
// Matcher's, and the merge's for each file it merges.
type groupIndex struct {
	byAgent   map[string][]int // lower-case product token -> group indexes
	byPurpose map[string][]int // lower-case purpose token -> group indexes
	star      []int            // groups naming "*"
}

// newGroupIndex indexes groups by the user agents and purposes they name (presets are not
// read: expand them first).
func newGroupIndex(groups []Group) groupIndex {
	ix := groupIndex{byAgent: map[string][]int{}, byPurpose: map[string][]int{}}
	for gi := range groups {
		g := &groups[gi]
		seen := map[string]bool{}
		for _, ua := range g.UserAgents {
			if ua == "*" {
				if !seen["*"] {
					ix.star = append(ix.star, gi)
				}
				seen["*"] = true
				continue
			}
			k := "a:" + strings.ToLower(ua)
			if !seen[k] {
				ix.byAgent[k[2:]] = append(ix.byAgent[k[2:]], gi)
			}
			seen[k] = true
		}
		for _, p := range g.Purposes {
			k := "p:" + strings.ToLower(p)
			if !seen[k] {
				ix.byPurpose[k[2:]] = append(ix.byPurpose[k[2:]], gi)
			}
			seen[k] = true
		}
	}
	return ix
}

// groupsFor returns the groups a crawler obeys, and how they were chosen: those naming its
// product token, else those naming its purpose, else the "*" groups (RFC 9309 §2.2.1,
// draft-illyes-rep-purpose).
func (ix *groupIndex) groupsFor(productToken, purpose string) ([]int, SelectedBy) {
	if productToken != "" && productToken != "*" {
		if sel := lookup(ix.byAgent, productToken); len(sel) > 0 {
			return sel, SelectedByProductToken
		}
	}
	if purpose != "" {
		if sel := lookup(ix.byPurpose, purpose); len(sel) > 0 {
			return sel, SelectedByPurpose
		}
	}
	if len(ix.star) > 0 {
		return ix.star, SelectedByStar
	}
	return nil, SelectedByNone
}

// Pattern is one robots.txt path pattern on its own ("*" any octets, a final "$" the end),
// matched as the Matcher matches rules (RFC 9309 section 2.2.2: pattern and path normalised
// alike): for formats that borrow robots.txt's patterns, such as TDMRep's tdmrep.json
// locations, where the first matching pattern decides rather than the longest.
type Pattern struct {
	pat string // normalised, without a final "$"
	end bool
}

// NewPattern compiles p. An empty p matches nothing.
func NewPattern(p string) Pattern {
	pat := normalise(p, true)
	end := strings.HasSuffix(pat, "$")
	if end {
		pat = pat[:len(pat)-1]
	}
	return Pattern{pat: pat, end: end}
}

// Match reports whether the pattern matches path (an absolute path, percent-encoded or
// not, without the query). It does not allocate for paths of up to 512 octets.
func (p Pattern) Match(path string) bool {
	if p.pat == "" && !p.end {
		return false
	}
	if path == "" {
		path = "/"
	}
	var buf [512]byte
	return matchPattern(p.pat, p.end, appendNormalised(buf[:0], path, false))
}

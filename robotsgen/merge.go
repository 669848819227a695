package robotsgen

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/usage"
)

// Merge combines the file of the declared config with another robots.txt
// that the site already has (a CMS's, read with Parse), so that neither
// file's restrictions are lost. Everything the declared file serves on its own
// is in the merged file: its presets are written out as the user agents Render
// writes for them (Expand), and its purposes, preference rules, records,
// sitemaps and comments are kept. For every crawler (product token and
// purpose) and every path, with decisions as Matcher takes them, and in
// Google's reading of patterns as well as RFC 9309's (see shape):
//
//  1. if declared disallows, the merged file disallows;
//  2. if other disallows, the merged file disallows, unless the group of
//     declared that applies to the crawler has an Allow rule matching the
//     path (an explicit allow in the config lifts the other file's
//     restriction);
//  3. otherwise the merged file allows.
//
// Put differently: where a rule of declared's applicable group matches the
// path, declared decides; elsewhere other decides.
//
// # How
//
// Crawlers obey one group (the merged groups naming their token, else their
// purpose, else "*"), so concatenating the files' groups would let the other
// file's Allow lines outrank declared's Disallow lines. Merge instead writes
// one group per product token named in either file, one per purpose named in
// either file and a "*" group (when either file has one; tokens or purposes
// whose groups come out the same share a group). Each group's rules combine
// the group declared applies to that crawler (A) with the one other applies
// (B); a token named in only one file gets the other file's "*" group, as
// the crawler would. In the combined list A's rules must outrank every rule
// of B they can match a path together with, while keeping their order among
// themselves: A's patterns are made more specific without changing what they
// match, by adding "*" wildcards ("/a" becomes "/a**", "/*.pdf$" becomes
// "/**.pdf$"; RFC 9309 and Google count specificity in octets as written).
// Rules of B that only match paths some plain-prefix rule of A also matches
// can never decide and are left out. Whether two patterns can match a common
// path is decided exactly on their normalised forms.
//
// # Where the encoding is inexact
//
// Some combinations have no exact longest-match encoding. Merge then errs
// towards disallow (it never breaks 1 or 2) and reports each with a
// Diagnostic (Line 0; Text names the merged group as "User-agent: token",
// "User-Agent-Purpose: token" or "User-agent: *"):
//   - A rule of declared that cannot be made more specific, i.e. a "$"
//     pattern without "*" (such as "/$" or "/a$"), or one at the line-length
//     limit, when other has an equally or more specific rule of the opposite
//     type that can match the same path. Declared "Allow: /a$" with other
//     "Disallow: /*a$": "/a" is disallowed although declared allows it.
//     Declared "Disallow: /a$" with other "Allow: /a*$" (and "Disallow: /"):
//     other's Allow is dropped, so "/ab" is disallowed although other allows
//     it and declared has no rule for it.
//   - An Allow of declared that would have to outrank such a fixed Disallow
//     of declared as well as a longer Disallow of other: declared "Allow: /a"
//     and "Disallow: /ab$" with other "Disallow: /*bc": "/abcd" is
//     disallowed although declared allows it ("/a" can grow to "/a*" only).
//   - A product token named in only one file while the other file has
//     User-Agent-Purpose groups: there the crawler's purpose picks its group,
//     in the merged file its token does, for every purpose. Unless the
//     groups come out the same for every purpose, the merged group keeps the
//     Disallow rules of every purpose (and of none) and no Allow rule.
//     Declared "User-Agent-Purpose: training / Disallow: /" with other
//     "User-agent: Googlebot / Disallow: /x": Googlebot is disallowed
//     everywhere. Naming the token in declared avoids this.
//   - Pairs of very long patterns whose common paths Merge does not work out
//     (more than a million state pairs) are taken to overlap.
//
// # Other lines
//
// Sitemaps are the union, in order, without duplicates; so are RSL Licenses (a declared path
// and the other file's absolute URL for it are written once: see File.Licenses). File-level records
// are kept, declared's first; a Host record (one per file) comes from
// declared when both have one. A merged group keeps the records of the
// groups it was made from, declared's first, without duplicates. Its
// Crawl-delay is declared's when the groups of declared it was made from set
// one (the config is the operator's decision), else other's; for the
// purpose-dependent groups above, that of crawlers without a purpose.
// Comments are declared's, then other's.
//
// Content-Usage and Content-Signal rules of both files are kept in the merged
// group, so that at every path the crawler reads both files' preferences
// combined as the vocabulary combines statements: any n wins, otherwise any
// y (as a backend's Content-Usage header is merged). A declared "n" always
// holds; a declared "y" holds where the other file does not say "n". Exact
// where one of two overlapping rules covers the other (a site-wide rule, a
// directory and its subdirectories); otherwise they exchange only their
// "n" values (no "n" lost, no "y" where neither file gives one, but a "y"
// may not reach the overlap), and a Diagnostic names them (see mergeUsage). As for records, the rules are those a crawler without a
// purpose reads.
//
// Merge compares the patterns of each group's two rule lists pairwise
// (quadratic in the number of rules; a few milliseconds for thousands).
// Both files should be valid (Parse's results are). The merged file is valid
// unless it is too large to render, which is reported too. Nil means an
// empty file.
func Merge(declared, other *File) (*File, []Diagnostic) {
	m, diags := MergeForMatching(declared, other)
	m = m.Renderable()
	if err := m.Validate(); err != nil {
		diags = append(diags, Diagnostic{Reason: "the merged file is not valid: " + err.Error()})
	}
	return m, diags
}

// MergeForMatching is Merge for deciding by User-Agent, as enforcement does: the presets of
// declared are written out with the names never written to robots.txt too (Expand(true)), and
// the merged file keeps a group for each of those names, decided as its declared group
// combined with the other file, exactly as a product token named only in declared. A name
// whose leading word either file names as a user agent is left out: that crawler reads
// robots.txt as that token. The file is not for rendering: Merge returns it without those
// names (Renderable), and Merge's diagnostics are these.
func MergeForMatching(declared, other *File) (*File, []Diagnostic) {
	if declared == nil {
		declared = &File{}
	}
	if other == nil {
		other = &File{}
	}
	declared = declared.Expand(true)
	other = other.Expand(true)
	ix := mergeInputs{declared: declared, other: other, di: newGroupIndex(declared.Groups), oi: newGroupIndex(other.Groups)}
	m := mergeFileLines(declared, other)
	tokens, purposes := mergeNames(declared, other)
	var mg mergedGroups
	for _, t := range tokens {
		// The purposes a crawler with this token may have that change the
		// group of a file not naming the token; "" is no (or another) purpose.
		qs := []string{""}
		if !namesToken(declared, t) || !namesToken(other, t) {
			qs = append(qs, purposes...)
		}
		g, notes := combine(&ix, t, qs)
		g.UserAgents = []string{t}
		mg.add(g, "User-agent: "+t, notes)
	}
	for _, p := range purposes {
		g, notes := combine(&ix, "", []string{p})
		g.Purposes = []string{p}
		mg.add(g, "User-Agent-Purpose: "+p, notes)
	}
	if len(ix.di.star)+len(ix.oi.star) > 0 {
		g, notes := combine(&ix, "", []string{""})
		g.UserAgents = []string{"*"}
		mg.add(g, "User-agent: *", notes)
	}
	m.Groups = mg.groups
	return m, mg.diags
}

// mergeFileLines returns the merged file's file-level lines: comments, sitemaps and licenses
// (each once, declared's first), records (declared's Host only).
func mergeFileLines(declared, other *File) *File {
	m := &File{}
	for _, f := range []*File{declared, other} {
		for _, c := range f.Comments {
			m.Comments = appendNew(m.Comments, c)
		}
	}
	for _, f := range []*File{declared, other} {
		for _, s := range f.Sitemaps {
			m.Sitemaps = appendNew(m.Sitemaps, s)
		}
	}
	for _, f := range []*File{declared, other} {
		for _, s := range f.Licenses {
			m.Licenses = appendNew(m.Licenses, s)
		}
	}
	m.Records = mergeRecords(nil, declared.Records)
	for _, r := range other.Records {
		if strings.EqualFold(r.Key, "host") && hasKey(declared.Records, "host") {
			continue // one Host per file: the declared one
		}
		m.Records = mergeRecords(m.Records, []Record{r})
	}
	return m
}

// mergeNames returns the product tokens and purposes the merged file has groups for: each
// named in either file, in its first spelling, declared's first. A name that is not a crawler
// token, whose leading word either file names as a user agent, is left out: that crawler
// reads robots.txt as the token it starts with.
func mergeNames(declared, other *File) (tokens, purposes []string) {
	written := map[string]bool{} // lower-case crawler tokens of either file
	for _, f := range []*File{declared, other} {
		for _, g := range f.Groups {
			for _, ua := range g.UserAgents {
				if crawlers.IsToken(ua) {
					written[strings.ToLower(ua)] = true
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, f := range []*File{declared, other} {
		for _, g := range f.Groups {
			for _, ua := range g.UserAgents {
				if !crawlers.IsToken(ua) && written[crawlers.LeadingToken(strings.ToLower(ua))] {
					continue
				}
				if k := "a:" + strings.ToLower(ua); ua != "*" && !seen[k] {
					seen[k] = true
					tokens = append(tokens, ua)
				}
			}
			for _, p := range g.Purposes {
				if k := "p:" + strings.ToLower(p); !seen[k] {
					seen[k] = true
					purposes = append(purposes, p)
				}
			}
		}
	}
	return tokens, purposes
}

// mergedGroups are the groups of a merged file, and the diagnostics of their making.
type mergedGroups struct {
	groups []Group
	diags  []Diagnostic
}

// add appends g, or joins it to an earlier group of the same kind that came out the same, so
// that the file stays short; notes become diagnostics naming header.
func (mg *mergedGroups) add(g Group, header string, notes []string) {
	for _, n := range notes {
		mg.diags = append(mg.diags, Diagnostic{Text: header, Reason: n})
	}
	for i := range mg.groups {
		o := &mg.groups[i]
		if (len(o.Purposes) > 0) == (len(g.Purposes) > 0) && !slices.Contains(o.UserAgents, "*") &&
			!slices.Contains(g.UserAgents, "*") && sameBody(o, &g) {
			o.UserAgents = append(o.UserAgents, g.UserAgents...)
			o.Purposes = append(o.Purposes, g.Purposes...)
			return
		}
	}
	mg.groups = append(mg.groups, g)
}

// Renderable returns f without the user agents that are never written to robots.txt (names
// that are not crawler tokens, such as a preset's "ChatGPT Agent", which Expand(true) and
// MergeForMatching add for matching by User-Agent), leaving out groups then without user
// agent or purpose. Without such names it returns f.
func (f *File) Renderable() *File {
	if !slices.ContainsFunc(f.Groups, func(g Group) bool {
		return slices.ContainsFunc(g.UserAgents, func(ua string) bool { return ua != "*" && !crawlers.IsToken(ua) })
	}) {
		return f
	}
	c := *f
	c.Groups = nil
	for _, g := range f.Groups {
		g.UserAgents = slices.DeleteFunc(slices.Clone(g.UserAgents), func(ua string) bool { return ua != "*" && !crawlers.IsToken(ua) })
		if len(g.UserAgents)+len(g.Purposes) > 0 {
			c.Groups = append(c.Groups, g)
		}
	}
	return &c
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func hasKey(rs []Record, key string) bool {
	for _, r := range rs {
		if strings.EqualFold(r.Key, key) {
			return true
		}
	}
	return false
}

// mergeRecords appends the records of add not yet in dst (keys compare
// without case, as parsers read them).
func mergeRecords(dst, add []Record) []Record {
	for _, r := range add {
		dup := false
		for _, d := range dst {
			if strings.EqualFold(d.Key, r.Key) && d.Value == r.Value {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, r)
		}
	}
	return dst
}

func sameBody(a, b *Group) bool {
	return a.CrawlDelay == b.CrawlDelay && slices.Equal(a.Rules, b.Rules) && slices.Equal(a.Records, b.Records) &&
		slices.EqualFunc(a.ContentUsage, b.ContentUsage, sameUsageRule) && slices.EqualFunc(a.ContentSignal, b.ContentSignal, sameUsageRule)
}

func namesToken(f *File, token string) bool {
	for _, g := range f.Groups {
		for _, ua := range g.UserAgents {
			if ua != "*" && strings.EqualFold(ua, token) {
				return true
			}
		}
	}
	return false
}

// mergeInputs are the two files of a merge, with the index that chooses their groups.
type mergeInputs struct {
	declared, other *File
	di, oi          groupIndex
}

// combine builds the merged group body for crawlers with token (or none) and
// any purpose in qs, and notes where it errs towards disallow.
func combine(ix *mergeInputs, token string, qs []string) (Group, []string) {
	declared, other := ix.declared, ix.other
	var g Group
	var notes []string
	var lists [][]Rule
	seen := map[string]int{}
	for i, q := range qs {
		sd, _ := ix.di.groupsFor(token, q)
		su, _ := ix.oi.groupsFor(token, q)
		if i == 0 {
			// Crawl-delay and records as a crawler without a purpose reads them.
			for _, gi := range sd {
				if g.CrawlDelay == 0 {
					g.CrawlDelay = declared.Groups[gi].CrawlDelay
				}
				g.Records = mergeRecords(g.Records, declared.Groups[gi].Records)
			}
			for _, gi := range su {
				if g.CrawlDelay == 0 {
					g.CrawlDelay = other.Groups[gi].CrawlDelay
				}
				g.Records = mergeRecords(g.Records, other.Groups[gi].Records)
			}
		}
		if i == 0 {
			// Usage preferences as a crawler without a purpose reads them, like the records.
			var n1, n2 []string
			g.ContentUsage, n1 = mergeUsage(usage.ContentUsage, groupUsage(declared, sd, usage.ContentUsage), groupUsage(other, su, usage.ContentUsage))
			g.ContentSignal, n2 = mergeUsage(usage.ContentSignal, groupUsage(declared, sd, usage.ContentSignal), groupUsage(other, su, usage.ContentSignal))
			notes = append(append(notes, n1...), n2...)
		}
		key := fmt.Sprint(sd, su)
		if _, ok := seen[key]; ok {
			continue
		}
		seen[key] = len(lists)
		rules, n := encodePriority(groupRules(declared, sd), groupRules(other, su))
		notes = append(notes, n...)
		lists = append(lists, rules)
	}
	same := true
	for _, l := range lists[1:] {
		same = same && slices.Equal(l, lists[0])
	}
	if same {
		g.Rules = lists[0]
		return g, notes
	}
	// The crawler's purpose picks different groups in a file that does not
	// name the token; one group must do for all purposes. Keep every
	// combination's Disallow rules: a path none of them matches is allowed
	// by each combination. So each crawler gets the restrictions of every
	// purpose, and no Allow rule can be kept in general.
	for _, l := range lists {
		for _, r := range l {
			if r.Type == Disallow {
				g.Rules = appendNewRule(g.Rules, r)
			}
		}
	}
	notes = append(notes, "the token is named in only one file and the other has User-Agent-Purpose groups, which the crawler's purpose would pick there; the merged group must serve every purpose, so it keeps the Disallow rules of every purpose and no Allow rule (erred towards disallow); name the token in the declared config to avoid this")
	return g, notes
}

func groupRules(f *File, sel []int) []Rule {
	var rs []Rule
	for _, gi := range sel {
		rs = append(rs, f.Groups[gi].Rules...)
	}
	return rs
}

func appendNewRule(rs []Rule, r Rule) []Rule {
	if slices.Contains(rs, r) {
		return rs
	}
	return append(rs, r)
}

// maxPatternSize is the largest specificity a valid pattern can have
// (checkPattern: the Disallow line must fit within maxLineLen).
const maxPatternSize = maxLineLen - len(disallowKey)

type prioRule struct {
	Rule
	shape
	allow  bool
	ell    int // specificity after padding (rules of A only)
	padMax int // largest ell padding can reach
	drop   bool
}

func prepRules(rs []Rule) []prioRule {
	var out []prioRule
	seen := map[Rule]bool{}
	for _, r := range rs {
		if r.Path == "" || seen[r] {
			continue // matches nothing, or a duplicate
		}
		seen[r] = true
		p := prioRule{Rule: r, allow: r.Type == Allow, shape: shapeOf(r.Path)}
		p.ell = p.size
		p.padMax = max(p.size, maxPatternSize)
		if p.ends && !strings.Contains(r.Path, "*") {
			p.padMax = p.size // "/a$" cannot take a wildcard without matching other paths
		}
		out = append(out, p)
	}
	return out
}

// shape is what Merge compares of a pattern, for its rules and its preference rules. Parsers
// read patterns two ways, and the merge must hold in both: RFC 9309 (section 2.2.2) treats a
// percent-escape of an unreserved character as that character ("/%7Ejane/" is "/~jane/"), and
// Google's parser compares escapes as written, only upper-casing their hex digits and
// escaping non-ASCII octets. Two patterns overlap when they can match a common path in either
// reading; one covers another only when it does in both.
type shape struct {
	size        int  // specificity as written (Matcher's and Google's measure: octets, non-ASCII percent-encoded)
	ends        bool // the pattern ends in "$"
	rfc, google reading
}

// reading is a pattern as one parser model reads it.
type reading struct {
	glob   string // normalised, anchored at both ends ("*" any octets); a pattern without "$" ends in "*"
	lit    string // the fixed start: glob up to its first "*"
	prefix string // for a plain prefix pattern ("/a", "/a*"), its prefix; else ""
}

func shapeOf(path string) shape {
	n := normalise(path, true)
	s := shape{size: len(path) + 2*nonASCII(path), ends: strings.HasSuffix(n, "$")}
	s.rfc = readingOf(n, s.ends)
	s.google = readingOf(googleNormalise(path), s.ends)
	return s
}

func readingOf(n string, ends bool) reading {
	var r reading
	if ends {
		r.glob = n[:len(n)-1]
	} else {
		if t := strings.TrimRight(n, "*"); !strings.Contains(t, "*") {
			r.prefix = t
		}
		r.glob = n + "*"
	}
	r.lit, _, _ = strings.Cut(r.glob, "*")
	return r
}

// googleNormalise is a pattern as Google's parser stores it and compares it with a path:
// octets from 0x80 percent-encoded, the hex digits of escapes upper-cased, nothing decoded.
// A "$" other than the last octet is a literal there.
func googleNormalise(p string) string {
	b := make([]byte, 0, len(p)+2*nonASCII(p))
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]):
			b = append(b, '%', upperHex[unhex(p[i+1])], upperHex[unhex(p[i+2])])
			i += 2
		case c >= 0x80:
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// overlaps reports whether the patterns can match a common path in either reading.
func (x shape) overlaps(y shape) bool {
	return coMatch(x.rfc.glob, y.rfc.glob) || coMatch(x.google.glob, y.google.glob)
}

// prefixCovers reports whether x is a plain prefix pattern that matches every path y
// matches, in both readings.
func (x shape) prefixCovers(y shape) bool {
	return x.rfc.prefix != "" && strings.HasPrefix(y.rfc.lit, x.rfc.prefix) &&
		x.google.prefix != "" && strings.HasPrefix(y.google.lit, x.google.prefix)
}

// same reports whether the patterns match the same paths in both readings.
func (x shape) same(y shape) bool {
	return x.rfc.glob == y.rfc.glob && x.google.glob == y.google.glob
}

// beats reports whether a rule of specificity l1 (allow a1) wins over one of
// l2 (allow a2) where both match: the longer wins, allow wins a tie.
func beats(l1 int, a1 bool, l2 int, a2 bool) bool {
	return l1 > l2 || l1 == l2 && a1 && !a2
}

// encodePriority returns rules deciding as A wherever a rule of A matches
// and as B elsewhere, and notes where they err towards disallow instead.
func encodePriority(ra, rb []Rule) ([]Rule, []string) {
	as, bs := prepRules(ra), prepRules(rb)
	dropCovered(as, bs)
	coAB, coAA := conflicts(as, bs)
	padRules(as, bs, coAB, coAA)
	notes := keepOrderWithinA(as, coAA)
	notes = append(notes, outrankB(as, bs, coAB)...)
	// Each rule once, in order; a set, not appendNewRule's scan: the other file may have
	// thousands of rules (a backend's robots.txt of up to MaxSize bytes).
	var out []Rule
	seen := make(map[Rule]bool, len(as)+len(bs))
	add := func(r Rule) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, a := range as {
		add(Rule{Type: a.Type, Path: padPattern(a.Path, a.ell-a.size)})
	}
	for _, b := range bs {
		if !b.drop {
			add(b.Rule)
		}
	}
	return out, notes
}

// dropCovered drops the B rules that match only paths a plain-prefix rule of A matches: they
// never decide, and leaving them out saves padding.
func dropCovered(as, bs []prioRule) {
	for j := range bs {
		b := &bs[j]
		for _, a := range as {
			if a.prefixCovers(b.shape) || a.same(b.shape) {
				b.drop = true
				break
			}
		}
	}
}

// conflicts returns which pairs of rules of opposite types can match a common path:
// coAB[i][j] for A's rule i and B's (kept) rule j, coAA[i][k] for two rules of A.
func conflicts(as, bs []prioRule) (coAB, coAA [][]bool) {
	coAB = make([][]bool, len(as))
	for i := range as {
		coAB[i] = make([]bool, len(bs))
		for j := range bs {
			coAB[i][j] = !bs[j].drop && as[i].allow != bs[j].allow && as[i].overlaps(bs[j].shape)
		}
	}
	coAA = make([][]bool, len(as))
	for i := range as {
		coAA[i] = make([]bool, len(as))
	}
	for i := range as {
		for k := i + 1; k < len(as); k++ {
			if as[i].allow != as[k].allow && as[i].overlaps(as[k].shape) {
				coAA[i][k], coAA[k][i] = true, true
			}
		}
	}
	return coAB, coAA
}

// padRules pads A's rules (sets ell) from the weakest up: each must outrank the B rules of
// the opposite type it meets, and stay above the A rules it beat. An Allow stays below every
// Disallow of A that beat it and cannot be padded past it.
func padRules(as, bs []prioRule, coAB, coAA [][]bool) {
	order := make([]int, len(as))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := as[order[x]], as[order[y]]
		return beats(b.size, b.allow, a.size, a.allow)
	})
	for oi, i := range order {
		x := &as[i]
		need, limit := x.size, x.padMax
		tieGap := 1
		if x.allow {
			tieGap = 0 // an allow wins a tie
		}
		for j := range bs {
			if coAB[i][j] {
				need = max(need, bs[j].size+tieGap)
			}
		}
		for _, k := range order[:oi] {
			if coAA[i][k] && beats(x.size, x.allow, as[k].size, as[k].allow) {
				need = max(need, as[k].ell+tieGap)
			}
		}
		if x.allow {
			for k := range as {
				if coAA[i][k] && beats(as[k].size, as[k].allow, x.size, x.allow) {
					limit = min(limit, as[k].padMax-1)
				}
			}
		}
		x.ell = max(x.size, min(need, limit))
	}
}

// keepOrderWithinA makes every Disallow of A that beat an Allow of A still beat it, lowering
// the Allow (a shorter Allow only disallows more), and notes the Allows that then no longer
// beat a Disallow of A they beat.
func keepOrderWithinA(as []prioRule, coAA [][]bool) []string {
	for changed := true; changed; {
		changed = false
		for i := range as {
			for k := range as {
				x, y := &as[i], &as[k]
				if coAA[i][k] && !x.allow && beats(x.size, false, y.size, true) && !beats(x.ell, false, y.ell, true) {
					y.ell = x.ell - 1
					changed = true
				}
			}
		}
	}
	var notes []string
	for i := range as {
		for k := range as {
			x, y := &as[i], &as[k]
			if coAA[i][k] && x.allow && beats(x.size, true, y.size, false) && !beats(x.ell, true, y.ell, false) {
				notes = append(notes, fmt.Sprintf("declared Allow %q cannot outrank both declared Disallow %q and the rules of the other file it must outrank: erred towards disallow", x.Path, y.Path))
			}
		}
	}
	return notes
}

// outrankB notes each rule of A that does not outrank a B rule of the opposite type it
// meets; where the A rule is a Disallow, that B Allow is dropped (erring towards disallow).
func outrankB(as, bs []prioRule, coAB [][]bool) []string {
	var notes []string
	for i := range as {
		for j := range bs {
			x, b := &as[i], &bs[j]
			if !coAB[i][j] || b.drop || beats(x.ell, x.allow, b.size, b.allow) {
				continue
			}
			if x.allow {
				notes = append(notes, fmt.Sprintf("declared Allow %q cannot be made more specific than the other file's Disallow %q: paths both match are disallowed (erred towards disallow)", x.Path, b.Path))
			} else {
				b.drop = true
				notes = append(notes, fmt.Sprintf("declared Disallow %q cannot be made more specific than the other file's Allow %q: that Allow is dropped (erred towards disallow)", x.Path, b.Path))
			}
		}
	}
	return notes
}

// padPattern adds n wildcards to p without changing the paths it matches:
// at the end, or, before a final "$", next to the last "*". Its caller
// knows p can take them.
func padPattern(p string, n int) string {
	if n <= 0 {
		return p
	}
	stars := strings.Repeat("*", n)
	if !strings.HasSuffix(p, "$") {
		return p + stars
	}
	i := strings.LastIndexByte(p, '*')
	return p[:i+1] + stars + p[i+1:]
}

// coMatch reports whether two normalised, anchored glob patterns ("*" any
// octets) match a common string, by searching the pairs of positions a
// string can bring both to. Over a million pairs are taken to match.
func coMatch(g1, g2 string) bool {
	// A common string starts with both literal prefixes: most pairs of
	// patterns differ there.
	l1, _, _ := strings.Cut(g1, "*")
	l2, _, _ := strings.Cut(g2, "*")
	if n := min(len(l1), len(l2)); l1[:n] != l2[:n] {
		return false
	}
	n1, n2 := len(g1)+1, len(g2)+1
	if n1*n2 > 1<<20 {
		return true
	}
	seen := make([]bool, n1*n2)
	stack := []int{0}
	seen[0] = true
	push := func(i, j int) {
		if k := i*n2 + j; !seen[k] {
			seen[k] = true
			stack = append(stack, k)
		}
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, j := k/n2, k%n2
		if i == len(g1) && j == len(g2) {
			return true
		}
		s1 := i < len(g1) && g1[i] == '*'
		s2 := j < len(g2) && g2[j] == '*'
		if s1 {
			push(i+1, j) // the wildcard ends
		}
		if s2 {
			push(i, j+1)
		}
		if i < len(g1) && j < len(g2) {
			switch {
			case s1 && s2: // both consume: no new pair
			case s1:
				push(i, j+1)
			case s2:
				push(i+1, j)
			case g1[i] == g2[j]:
				push(i+1, j+1)
			}
		}
	}
	return false
}

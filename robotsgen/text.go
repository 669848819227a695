package robotsgen

import (
	"bytes"
	"sort"
	"strings"
)

// Text is a robots.txt as a crawler reads it: the bytes, the File Parse reads from them, and
// where in the bytes each group and rule comes from. It is the one place that finds "the line
// of a rule in the served file", for `robots check` and for the log of a crawler that fetched
// a disallowed path. It is safe for concurrent reads.
type Text struct {
	body []byte
	// File is what Parse reads from the text, and Diagnostics what it skipped or changed.
	File        *File
	Diagnostics []Diagnostic
	// Matcher decides over File.
	Matcher *Matcher
	ends    []int // ends[k-1] is the offset just past line k and its line break
}

// ReadText parses body (see Parse) and indexes its lines.
func ReadText(body []byte) *Text {
	t := &Text{body: body}
	t.File, t.Diagnostics = Parse(body)
	t.Matcher = NewMatcher(t.File)
	// Lines end at LF, CRLF or CR, as Parse splits them.
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\n':
			t.ends = append(t.ends, i+1)
		case '\r':
			if i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			t.ends = append(t.ends, i+1)
		}
	}
	if n := len(body); n > 0 && (len(t.ends) == 0 || t.ends[len(t.ends)-1] != n) {
		t.ends = append(t.ends, n)
	}
	return t
}

// firstLine returns the first line k (1-based) such that reading the file up to and
// including line k satisfies ok, or 0. Parse reads line by line, so what a prefix yields
// only grows with the prefix: the first group g and its first i rules come from the first
// lines that produce them, found by bisection (a logarithmic number of parses of prefixes).
func (t *Text) firstLine(ok func(*File) bool) int {
	k := sort.Search(len(t.ends), func(k int) bool {
		f, _ := Parse(t.body[:t.ends[k]])
		return ok(f)
	})
	if k == len(t.ends) {
		return 0
	}
	return k + 1
}

// RuleLine returns the line (1-based) of rule i of group g of File, 0 if there is none.
func (t *Text) RuleLine(g, i int) int {
	return t.firstLine(func(f *File) bool { return len(f.Groups) > g && len(f.Groups[g].Rules) > i })
}

// GroupLine returns the line of the header line that made group g of File.
func (t *Text) GroupLine(g int) int {
	return t.firstLine(func(f *File) bool { return len(f.Groups) > g })
}

// LineText returns line k without its line break, "" if there is no line k.
func (t *Text) LineText(k int) string {
	if k < 1 || k > len(t.ends) {
		return ""
	}
	start := 0
	if k > 1 {
		start = t.ends[k-2]
	}
	return string(bytes.TrimRight(t.body[start:t.ends[k-1]], "\r\n"))
}

// SelectedBy says how the groups a crawler obeys were chosen.
type SelectedBy uint8

// How Select chose.
const (
	SelectedByNone         SelectedBy = iota // no group applies
	SelectedByProductToken                   // groups naming the product token
	SelectedByPurpose                        // groups naming the purpose
	SelectedByStar                           // the "*" groups
)

// Select returns the indexes of the groups of f a crawler obeys, in file order, chosen as
// Matcher.Decide chooses them, and how.
func (f *File) Select(token, purpose string) (groups []int, by SelectedBy) {
	has := func(list []string, v string) bool {
		for _, s := range list {
			if strings.EqualFold(s, v) {
				return true
			}
		}
		return false
	}
	pick := func(field func(*Group) []string, v string) []int {
		var out []int
		for i := range f.Groups {
			if has(field(&f.Groups[i]), v) {
				out = append(out, i)
			}
		}
		return out
	}
	uas := func(g *Group) []string { return g.UserAgents }
	if token != "" && token != "*" {
		if groups = pick(uas, token); len(groups) > 0 {
			return groups, SelectedByProductToken
		}
	}
	if purpose != "" {
		if groups = pick(func(g *Group) []string { return g.Purposes }, purpose); len(groups) > 0 {
			return groups, SelectedByPurpose
		}
	}
	if groups = pick(uas, "*"); len(groups) > 0 {
		return groups, SelectedByStar
	}
	return nil, SelectedByNone
}

// DecidingRule finds rule, which Matcher.Decide chose among groups (Select's), in the text:
// the first rule equal to it in those groups in file order (Decide keeps the first of equal
// rules). It returns the group and rule indexes and the rule's line; ok is false when no
// rule of those groups equals it.
func (t *Text) DecidingRule(groups []int, rule Rule) (g, i, line int, ok bool) {
	for _, g := range groups {
		for i, r := range t.File.Groups[g].Rules {
			if r == rule {
				return g, i, t.RuleLine(g, i), true
			}
		}
	}
	return 0, 0, 0, false
}

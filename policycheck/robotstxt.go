package policycheck

import (
	"bytes"
	"sort"
	"strings"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// robotsText is a robots.txt as a crawler reads it: the text, the file robotsgen.Parse reads
// from it, and a matcher over that file. Deciding on the parsed text (not on the config's
// model) keeps the answer to what crawlers are sent, and gives line numbers.
type robotsText struct {
	body  []byte
	file  *robotsgen.File
	diags []robotsgen.Diagnostic
	m     *robotsgen.Matcher
	ends  []int // ends[k-1] is the offset just past line k and its line break
}

func readRobots(body []byte) *robotsText {
	t := &robotsText{body: body}
	t.file, t.diags = robotsgen.Parse(body)
	t.m = robotsgen.NewMatcher(t.file)
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
// lines that produce them, found by bisection.
func (t *robotsText) firstLine(ok func(*robotsgen.File) bool) int {
	k := sort.Search(len(t.ends), func(k int) bool {
		f, _ := robotsgen.Parse(t.body[:t.ends[k]])
		return ok(f)
	})
	if k == len(t.ends) {
		return 0
	}
	return k + 1
}

// ruleLine returns the line of rule i of group g.
func (t *robotsText) ruleLine(g, i int) int {
	return t.firstLine(func(f *robotsgen.File) bool { return len(f.Groups) > g && len(f.Groups[g].Rules) > i })
}

// groupLine returns the line of the header line that made group g.
func (t *robotsText) groupLine(g int) int {
	return t.firstLine(func(f *robotsgen.File) bool { return len(f.Groups) > g })
}

// lineText returns line k without its line break.
func (t *robotsText) lineText(k int) string {
	if k < 1 || k > len(t.ends) {
		return ""
	}
	start := 0
	if k > 1 {
		start = t.ends[k-2]
	}
	return string(bytes.TrimRight(t.body[start:t.ends[k-1]], "\r\n"))
}

// selected returns the groups a crawler obeys, and how they were chosen, as
// robotsgen.Matcher.Decide chooses them.
func selected(f *robotsgen.File, token, purpose string) (groups []int, by, matched string) {
	has := func(list []string, v string) bool {
		for _, s := range list {
			if strings.EqualFold(s, v) {
				return true
			}
		}
		return false
	}
	if token != "" && token != "*" {
		for i := range f.Groups {
			if has(f.Groups[i].UserAgents, token) {
				groups = append(groups, i)
			}
		}
		if len(groups) > 0 {
			return groups, MatchedByProductToken, token
		}
	}
	if purpose != "" {
		for i := range f.Groups {
			if has(f.Groups[i].Purposes, purpose) {
				groups = append(groups, i)
			}
		}
		if len(groups) > 0 {
			return groups, MatchedByPurpose, purpose
		}
	}
	for i := range f.Groups {
		if has(f.Groups[i].UserAgents, "*") {
			groups = append(groups, i)
		}
	}
	if len(groups) > 0 {
		return groups, MatchedByStar, "*"
	}
	return nil, "", ""
}

// How a group was chosen (GroupInfo.MatchedBy).
const (
	MatchedByProductToken = "product_token" // a user-agent line names the crawler's product token
	MatchedByPurpose      = "purpose"       // a User-Agent-Purpose line names the crawler's purpose
	MatchedByStar         = "star"          // no group names the crawler: the "*" groups apply
)

// decide answers for a crawler and a path (with its query), with the group and rule lines.
func (t *robotsText) decide(token, purpose, path string) RobotsDecision {
	d := t.m.Decide(token, purpose, path)
	out := RobotsDecision{Served: true, Path: path, Allowed: d.Allowed}
	if out.Path == "" {
		out.Path = "/"
	}
	sel, by, matched := selected(t.file, token, purpose)
	if d.Group < 0 || len(sel) == 0 {
		out.Reason = "no group applies to this crawler (none names it, and there is no * group): everything is allowed"
		return out
	}
	g := &t.file.Groups[sel[0]]
	gi := &GroupInfo{
		Index: sel[0], Line: t.groupLine(sel[0]),
		UserAgents: g.UserAgents, Purposes: g.Purposes,
		MatchedBy: by, Matched: matched,
	}
	for _, other := range sel[1:] {
		gi.MergedLines = append(gi.MergedLines, t.groupLine(other))
	}
	out.Group = gi
	switch by {
	case MatchedByProductToken:
		out.Reason = "the group names the product token " + quote(matched)
	case MatchedByPurpose:
		out.Reason = "no group names the product token; the group names the purpose " + quote(matched)
	default:
		if token == "" || token == "*" {
			out.Reason = "the * group applies to every crawler"
		} else {
			out.Reason = "no group names " + quote(token) + ": the * group applies"
		}
	}
	if len(gi.MergedLines) > 0 {
		out.Reason += " (several groups name it: their rules are merged)"
	}
	if d.Rule == nil {
		if out.Path == "/robots.txt" {
			out.Reason += "; /robots.txt itself is always allowed"
		} else {
			out.Reason += "; no rule matches the path, so it is allowed"
		}
		return out
	}
	// The winner is the first rule equal to d.Rule in the chosen groups, in file order
	// (Decide keeps the first of equal rules).
	for _, gx := range sel {
		for i, r := range t.file.Groups[gx].Rules {
			if r == *d.Rule {
				line := t.ruleLine(gx, i)
				out.Rule = &RuleInfo{Type: string(r.Type), Path: r.Path, Line: line, Text: strings.TrimSpace(t.lineText(line))}
				break
			}
		}
		if out.Rule != nil {
			break
		}
	}
	if d.Allowed {
		out.Reason += "; the longest matching rule allows the path"
	} else {
		out.Reason += "; the longest matching rule disallows the path"
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }

package policycheck

import (
	"strings"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// robotsText is a robots.txt as a crawler reads it (robotsgen.Text): deciding on the parsed
// text (not on the config's model) keeps the answer to what crawlers are sent, and gives
// line numbers.
type robotsText struct {
	*robotsgen.Text
	file  *robotsgen.File
	diags []robotsgen.Diagnostic
	m     *robotsgen.Matcher
}

func readRobots(body []byte) *robotsText {
	t := robotsgen.ReadText(body)
	return &robotsText{Text: t, file: t.File, diags: t.Diagnostics, m: t.Matcher}
}

// selected returns the groups a crawler obeys, and how they were chosen: those
// robotsgen.Matcher.Decide decides with.
func (t *robotsText) selected(token, purpose string) (groups []int, by, matched string) {
	groups, sb := t.m.Select(token, purpose)
	switch sb {
	case robotsgen.SelectedByProductToken:
		return groups, MatchedByProductToken, token
	case robotsgen.SelectedByPurpose:
		return groups, MatchedByPurpose, purpose
	case robotsgen.SelectedByStar:
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
	sel, by, matched := t.selected(token, purpose)
	if d.Group < 0 || len(sel) == 0 {
		out.Reason = "no group applies to this crawler (none names it, and there is no * group): everything is allowed"
		return out
	}
	g := &t.file.Groups[sel[0]]
	gi := &GroupInfo{
		Index: sel[0], Line: t.GroupLine(sel[0]),
		UserAgents: g.UserAgents, Purposes: g.Purposes,
		MatchedBy: by, Matched: matched,
	}
	for _, other := range sel[1:] {
		gi.MergedLines = append(gi.MergedLines, t.GroupLine(other))
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
	r := d.Rule
	out.Rule = &RuleInfo{Type: string(r.Type), Path: r.Path, Line: d.Line, Text: strings.TrimSpace(t.LineText(d.Line))}
	if d.Allowed {
		out.Reason += "; the longest matching rule allows the path"
	} else {
		out.Reason += "; the longest matching rule disallows the path"
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }

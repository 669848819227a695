package policycheck

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// WriteText writes the report for people: the crawler, the robots.txt decision, the
// response's tags, then what else applies (preferences, enforcement, identity, signals that
// disagree, notes).
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	rep.writeAgent(p)
	p("")
	rep.RobotsTxt.write(p)
	p("")
	rep.writeResponse(p)
	rep.writeRest(p)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAgent writes the lines saying what was checked: the URL, the crawler, its purpose and
// identity.
func (rep *Report) writeAgent(p func(format string, args ...any)) {
	agent := rep.ProductToken
	if agent == "*" {
		agent = "any crawler (*)"
	}
	p("URL:      %s", rep.URL)
	if rep.AgentNote != "" {
		p("Crawler:  %s (%s)", agent, rep.AgentNote)
	} else {
		p("Crawler:  %s", agent)
	}
	if rep.Purpose != "" {
		p("Purpose:  %s", rep.Purpose)
	}
	if rep.Verification != nil {
		p("Identity: %s", rep.identityLine())
	}
}

// write writes the robots.txt decision: the verdict and the file read, the group and rule
// that decided, why, and the file's diagnostics.
func (rd *RobotsDecision) write(p func(format string, args ...any)) {
	verdict := "ALLOWED"
	if !rd.Allowed {
		verdict = "DISALLOWED"
	}
	switch {
	case !rd.Served:
		p("robots.txt: %s (%s)", verdict, rd.Reason)
	case rd.Source == "config":
		p("robots.txt: %s for %s (file from %s, as served at %s/robots.txt)", verdict, rd.Path, rd.Location, rd.Origin)
	default:
		p("robots.txt: %s for %s (file %s)", verdict, rd.Path, rd.Source)
	}
	if g := rd.Group; g != nil {
		p("  group:  line %d (%s)", g.Line, groupWho(g))
		if len(g.MergedLines) > 0 {
			p("          merged with the groups at lines %s", joinInts(g.MergedLines))
		}
	}
	if r := rd.Rule; r != nil {
		p("  rule:   line %d: %s", r.Line, r.Text)
	} else if rd.Served {
		p("  rule:   none matches")
	}
	if rd.Served {
		p("  why:    %s", rd.Reason)
	}
	for _, d := range rd.Diagnostics {
		p("  note:   %s", d)
	}
}

// writeResponse writes the tags of the response: which routes apply, the fields sent and
// the rules they give the crawler.
func (rep *Report) writeResponse(p func(format string, args ...any)) {
	rt := &rep.Response
	var where []string
	for _, l := range rt.Routes {
		where = append(where, l.String())
	}
	switch {
	case rt.RobotsTxtResponder:
		p("Response tags: none (the robots.txt responder answers this URL itself)")
	case len(where) > 0:
		p("Response tags (robots_tag at %s):", strings.Join(where, ", "))
	case len(rt.BackendHeaders) > 0:
		p("Response tags (no robots_tag applies; the backend's only):")
	default:
		p("Response tags: none (no robots_tag applies to this URL)")
	}
	for _, h := range rt.BackendHeaders {
		p("  backend sends   %s", h)
	}
	if rt.RobotsTag != "" {
		p("  Robots-Tag:     %s", rt.RobotsTag)
	}
	for _, x := range rt.XRobotsTag {
		p("  X-Robots-Tag:   %s", x)
	}
	if rt.Meta != "" {
		p("  HTML <head>:    %s", rt.Meta)
	}
	if rt.RobotsTag != "" {
		rules := strings.Join(rt.RulesForAgent, ", ")
		if rules == "" {
			rules = "none"
		}
		p("  rules for %s: %s", rep.ProductToken, rules)
	}
	if rt.ContentUsage != "" {
		p("  Content-Usage:  %s", rt.ContentUsage)
	}
	if rt.TDMReservation != "" {
		p("  tdm-reservation: %s", rt.TDMReservation)
	}
	if rt.TDMPolicy != "" {
		p("  tdm-policy:     %s", rt.TDMPolicy)
	}
}

// writeRest writes the sections a report has only when they apply, each after an empty
// line: robots.txt preferences, enforcement, the signature, the crawler lists, signals that
// disagree, and the notes.
func (rep *Report) writeRest(p func(format string, args ...any)) {
	if pr := rep.Preferences; len(pr.ContentUsage)+len(pr.ContentSignal) > 0 {
		p("")
		p("robots.txt preferences for %s at %s:", rep.ProductToken, rep.RobotsTxt.Path)
		if len(pr.ContentUsage) > 0 {
			p("  Content-Usage:  %s", formatPrefs(pr.ContentUsage))
		}
		if len(pr.ContentSignal) > 0 {
			p("  Content-Signal: %s", formatPrefs(pr.ContentSignal))
		}
	}
	if e := rep.Enforcement; e.Configured {
		p("")
		if e.Blocked {
			p("Enforcement: BLOCKED with %d (%s)", e.Status, e.Message)
		} else {
			p("Enforcement: passes (robots.txt is enforced, but not against this request)")
		}
	}
	if rep.Payment != nil {
		p("")
		rep.Payment.write(p)
	}
	if v := rep.Verification; v != nil && v.Signature != nil {
		p("")
		v.Signature.write(p, rep)
	}
	if v := rep.Verification; v != nil && !v.signaturesOnly {
		p("")
		v.writeLists(p)
	}
	if len(rep.SignalConflicts) > 0 {
		p("")
		p("Signals that disagree for %s at %s:", rep.ProductToken, rep.RobotsTxt.Path)
		for _, c := range rep.SignalConflicts {
			p("  %s: %s says %s (%s), %s says %s (%s)", c.Use, c.Allows.Signal, c.Allows.Value, c.Allows.Location, c.Refuses.Signal, c.Refuses.Value, c.Refuses.Location)
		}
	}
	for _, n := range rep.Notes {
		p("")
		p("Note: %s", n)
	}
}

// WriteJSON writes the report as indented JSON (the schema is Report's).
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// formatPrefs writes preferences as "key=value" pairs in key order.
func formatPrefs(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, ", ")
}

func prefixAll(prefix string, list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, prefix+s)
	}
	return out
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// maxGroupWho is how many of a group's lines the text report names before summing up the rest
// (a preset group has one user-agent line per crawler of its categories).
const maxGroupWho = 6

// groupWho names a group's user-agent and purpose lines, the one that matched always among
// them, the rest counted when there are many. The JSON report lists them all.
func groupWho(g *GroupInfo) string {
	who := append(prefixAll("User-agent: ", g.UserAgents), prefixAll("User-Agent-Purpose: ", g.Purposes)...)
	if len(who) <= maxGroupWho {
		return strings.Join(who, ", ")
	}
	shown := who[: maxGroupWho-1 : maxGroupWho-1]
	for _, w := range who[maxGroupWho-1:] {
		if g.Matched != "" && g.Matched != "*" && strings.EqualFold(w[strings.IndexByte(w, ' ')+1:], g.Matched) {
			shown = append(shown, w)
			break
		}
	}
	return fmt.Sprintf("%s and %d more lines", strings.Join(shown, ", "), len(who)-len(shown))
}

package policycheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// WriteText writes the report for people: the robots.txt decision, then the response's tags.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
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
	p("")
	rd := &rep.RobotsTxt
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
	p("")
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
	if pr := rep.Preferences; len(pr.ContentUsage)+len(pr.ContentSignal) > 0 {
		p("")
		p("robots.txt preferences for %s at %s:", rep.ProductToken, rd.Path)
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
	for _, n := range rep.Notes {
		p("")
		p("Note: %s", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as indented JSON (the schema is Report's).
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// LintResult is the JSON output of lint.
type LintResult struct {
	// Findings are the findings, sorted by place; [] when there are none.
	Findings []Finding `json:"findings"`
	// Failed is true when a finding is a warning or an error (lint exits 1).
	Failed bool `json:"failed"`
}

// NewLintResult wraps findings.
func NewLintResult(findings []Finding) LintResult {
	r := LintResult{Findings: findings}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	for _, f := range findings {
		r.Failed = r.Failed || f.Severity.AtLeastWarning()
	}
	return r
}

// WriteText writes one finding per paragraph, then a count.
func (r LintResult) WriteText(w io.Writer) error {
	var b strings.Builder
	counts := map[Severity]int{}
	for _, f := range r.Findings {
		b.WriteString(f.String())
		b.WriteString("\n")
		counts[f.Severity]++
	}
	if len(r.Findings) == 0 {
		b.WriteString("no findings\n")
	} else {
		fmt.Fprintf(&b, "%s, %s, %s\n", plural(counts[SeverityError], "error"), plural(counts[SeverityWarning], "warning"), plural(counts[SeverityInfo], "info"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the result as indented JSON.
func (r LintResult) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
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

// Exit statuses of the check and lint commands.
const (
	ExitOK    = 0 // check: allowed; lint: no finding at warning level or above
	ExitFail  = 1 // check: disallowed; lint: a warning or an error
	ExitUsage = 2 // a usage or config error
)

// RunCheck writes rep in format ("text" or "json") and returns the exit status.
func RunCheck(w io.Writer, rep *Report, format string) (int, error) {
	var err error
	if format == "json" {
		err = rep.WriteJSON(w)
	} else {
		err = rep.WriteText(w)
	}
	if err != nil {
		return ExitUsage, err
	}
	if !rep.Allowed {
		return ExitFail, nil
	}
	return ExitOK, nil
}

// RunLint lints the sites, writes the findings in format ("text" or "json") and returns the
// exit status.
func RunLint(w io.Writer, sites []*Site, format string) (int, error) {
	var all []Finding
	for _, s := range sites {
		f, err := Lint(s)
		if err != nil {
			return ExitUsage, err
		}
		all = append(all, f...)
	}
	r := NewLintResult(all)
	var err error
	if format == "json" {
		err = r.WriteJSON(w)
	} else {
		err = r.WriteText(w)
	}
	if err != nil {
		return ExitUsage, err
	}
	if r.Failed {
		return ExitFail, nil
	}
	return ExitOK, nil
}

// ErrorReport is what check and lint print on standard output with --format json when they
// fail with status 2, so that a script reading their output always gets JSON.
type ErrorReport struct {
	// Error is the whole message, as printed on standard error.
	Error string `json:"error"`
	// Problems are the errors in it: one per config error, with its field path
	// (configerr.Error) or, for a Caddyfile, its line; a usage error or an unreadable file is
	// one problem with neither.
	Problems []Problem `json:"problems"`
}

// Problem is one config error of an ErrorReport.
type Problem struct {
	// Path names the field at fault in the JSON form of the config, e.g.
	// "robots_txt.groups[0].user_agents[1]". For a Caddyfile it is the field of the
	// directive's handler (as "caddy adapt" writes the handler), e.g. "groups[0].rules[1].path",
	// when the problem concerns one; "" otherwise (an unknown sub-directive, a missing
	// argument).
	Path string `json:"path"`
	// Value is the offending value as written: for a Caddyfile, the token at fault (the
	// misspelt sub-directive, the argument that is not a duration); "" when the problem is a
	// missing value or concerns the whole field.
	Value string `json:"value"`
	// Problem says what is wrong and what is allowed.
	Problem string `json:"problem"`
	// Suggestion is a likely intended value (the closest known name to a misspelt one), if
	// there is one.
	Suggestion string `json:"suggestion,omitempty"`
	// Location is where in the config file the problem is, for a config with lines (a
	// Caddyfile): the file as given and the line (json_path is absent, as the adapter
	// produced no JSON). Absent for JSON, whose Path says where.
	Location *Location `json:"location,omitempty"`
}

// FileError is a config error whose problems the loader of a config file (the Caddyfile
// adapter) knew one by one with their lines, although its message does not carry them:
// WriteErrorJSON reports Problems instead of reading the message.
type FileError struct {
	Err      error
	Problems []Problem
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// WriteErrorJSON writes err as an ErrorReport.
func WriteErrorJSON(w io.Writer, err error) error {
	r := ErrorReport{Error: err.Error(), Problems: []Problem{}}
	var fe *FileError
	if errors.As(err, &fe) && len(fe.Problems) > 0 {
		r.Problems = append(r.Problems, fe.Problems...)
	} else {
		for _, e := range configerr.All(err) {
			r.Problems = append(r.Problems, Problem{Path: e.Path, Value: e.Value, Problem: e.Problem, Suggestion: e.Suggestion})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// CheckFormat returns an error unless format is "text" or "json".
func CheckFormat(format string) error {
	if format != "text" && format != "json" {
		if c := configerr.Closest(strings.ToLower(format), []string{"text", "json"}); c != "" {
			return fmt.Errorf("--format %q: want text or json (did you mean %q?)", format, c)
		}
		return fmt.Errorf("--format %q: want text or json", format)
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
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

package robotsgen

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// keyOf is a line as its key is matched: without a byte order mark and surrounding space,
// lower case.
func keyOf(line string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimPrefix(line, "\ufeff")))
}

// bisectLine is how the lines were found before Parse recorded them, kept as a witness: the
// first line k such that parsing the file up to and including line k satisfies ok (Parse reads
// line by line, so what a prefix yields only grows with it), or 0.
func bisectLine(txt *Text, ok func(*File) bool) int {
	k := sort.Search(len(txt.ends), func(k int) bool {
		f, _ := Parse(txt.body[:txt.ends[k]])
		return ok(f)
	})
	if k == len(txt.ends) {
		return 0
	}
	return k + 1
}

// FuzzTextLines: for any bytes, every rule of the parsed file is recorded at a line that is
// an allow or disallow line, the first line at which Parse reads the rule (the prefixes of the
// file, bisected); every group at a user-agent or purpose line, the first at which Parse reads
// the group unless the group is one Parse split off for Content-Usage lines between user-agent
// lines (splitRuns: it is then at its first user-agent line, after the group it was split
// from); later rules of a group at later lines; the Matcher's decisions carry the lines of
// their rules.
func FuzzTextLines(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /a\n\n# c\nUser-agent: B\r\nAllow: /b\rDisallow: /\n"))
	f.Add([]byte("user-agent: a\nuser-agent: b\ndisallow: /x\nsitemap: https://e/s\nallow: /x/y"))
	f.Add([]byte("User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n"))
	f.Add([]byte("# c\nUser-agent: robotsgen-purpose-groups\nUser-Agent-Purpose: training\nDisallow: /\nUser-agent: Foo.Bot\nUser-agent: Bar\nAllow: /a\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 4096 {
			return
		}
		checkTextLines(t, ReadText(body))
	})
}

func checkTextLines(t *testing.T, txt *Text) {
	t.Helper()
	for g, grp := range txt.File.Groups {
		gk := txt.GroupLine(g)
		if gl := keyOf(txt.LineText(gk)); !strings.HasPrefix(gl, "user") { // user-agent, useragent, user agent, user-agent-purpose
			t.Fatalf("group %d at line %d %q", g, gk, gl)
		}
		// A group split off: no rules, names that an earlier group (the one it was split
		// from, which keeps every name) names too.
		split := false
		for o := range g {
			og := &txt.File.Groups[o]
			split = split || len(grp.Rules) == 0 && txt.GroupLine(o) <= gk && isSubset(grp.UserAgents, og.UserAgents) &&
				isSubset(grp.Purposes, og.Purposes) && len(og.UserAgents)+len(og.Purposes) > len(grp.UserAgents)+len(grp.Purposes)
		}
		if want := bisectLine(txt, func(f *File) bool { return len(f.Groups) > g }); gk != want && !split {
			t.Fatalf("group %d at line %d, first read at line %d", g, gk, want)
		}
		prev := 0
		for i, r := range grp.Rules {
			k := txt.RuleLine(g, i)
			line := keyOf(txt.LineText(k))
			if want := map[RuleType]string{Allow: "allow", Disallow: "di"}[r.Type]; !strings.HasPrefix(line, want) { // disallow and its misspellings
				t.Fatalf("rule %d of group %d (%s) at line %d %q", i, g, r.Type, k, line)
			}
			if k < prev || k < gk {
				t.Fatalf("rule %d of group %d at line %d, before %d or the group's %d", i, g, k, prev, gk)
			}
			if want := bisectLine(txt, func(f *File) bool { return len(f.Groups) > g && len(f.Groups[g].Rules) > i }); k != want {
				t.Fatalf("rule %d of group %d at line %d, first read at line %d", i, g, k, want)
			}
			prev = k
		}
	}
	// Every rule a decision can carry: for each group's first user agent, the paths of its
	// rules.
	for g, grp := range txt.File.Groups {
		for _, ua := range grp.UserAgents {
			for _, r := range grp.Rules {
				path := strings.TrimSuffix(strings.ReplaceAll(r.Path, "*", "x"), "$")
				d := txt.Matcher.Decide(ua, "", path)
				if d.Rule == nil {
					continue
				}
				sel, _ := txt.Matcher.Select(ua, "")
				if d.Line != firstEqualRuleLine(txt, sel, *d.Rule) || d.Line == 0 {
					t.Fatalf("group %d, %q %q: decided by %+v at line %d, the first such rule of its groups is at line %d", g, ua, path, *d.Rule, d.Line, firstEqualRuleLine(txt, sel, *d.Rule))
				}
			}
		}
	}
}

func isSubset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// firstEqualRuleLine is the line of the first rule equal to rule in groups sel, in file order.
func firstEqualRuleLine(txt *Text, sel []int, rule Rule) int {
	for _, g := range sel {
		for i, r := range txt.File.Groups[g].Rules {
			if r == rule {
				return txt.RuleLine(g, i)
			}
		}
	}
	return 0
}

// served is a robots.txt as an independent parser reads it (grobotstxt's, Google's port):
// what it hands its handler, by line.
type served struct {
	byLine map[int]parseEvent
	events []parseEvent
}

func readServed(body []byte) *served {
	var gf googleFile
	grobotstxt.Parse(string(body), &gf)
	s := &served{byLine: map[int]parseEvent{}, events: gf.events}
	for _, e := range gf.events {
		s.byLine[e.line] = e
	}
	return s
}

// header returns the user-agent values (User-Agent-Purpose lines too: Google's parser reads
// them as user-agent lines) of the group that line is in: the run of them above it.
func (s *served) header(line int) []string {
	i := slices.IndexFunc(s.events, func(e parseEvent) bool { return e.line == line })
	for i >= 0 && s.events[i].kind != 'u' {
		i--
	}
	var out []string
	for ; i >= 0 && s.events[i].kind == 'u'; i-- {
		out = append(out, s.events[i].value)
	}
	return out
}

// ruleText is how a rule is written.
func ruleText(r Rule) string {
	return map[RuleType]string{Allow: "Allow: ", Disallow: "Disallow: "}[r.Type] + encodePattern(r.Path)
}

// TestTextLinesProperty: over generated files (presets, purposes, sitemaps, licenses written
// once per origin, preference lines) and merges of them, rendered (File.RenderText) and read
// back (ReadText), the line each group, rule and decision carries is the line where the
// served bytes have it: a line with the rule as written, which Google's parser reads as an
// allow or disallow line in a group naming the crawler (or "*"), and a user-agent line naming
// the group.
// Rendered and read back, the lines agree.
func TestTextLinesProperty(t *testing.T) {
	files := 2000
	if testing.Short() || raceEnabled {
		files = 200
	}
	r := rand.New(rand.NewPCG(33, 4))
	decisions := 0
	for n := range files {
		f := genFile(r)
		if n%2 == 1 {
			d, u := genMergePair(r)
			f, _ = Merge(d, u)
		}
		origin := pick(r, []string{"https://example.com", "https://other.example"})
		txt, err := f.RenderText(origin)
		if err != nil {
			continue
		}
		body := txt.Bytes()
		if out, _ := f.Render(origin); string(out) != string(body) {
			t.Fatalf("RenderText and Render write different files:\n%s\n---\n%s", body, out)
		}
		s := readServed(body)
		lines := strings.Split(string(body), "\n")
		read := ReadText(body)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("file %d: "+format+"\n--- served\n%s", append(append([]any{n}, args...), body)...)
		}
		for g, grp := range txt.File.Groups {
			gl := txt.GroupLine(g)
			e, ok := s.byLine[gl]
			names := append(slices.Clone(grp.UserAgents), grp.Purposes...)
			if !ok || e.kind != 'u' || !strings.EqualFold(e.value, names[0]) && !strings.HasPrefix(strings.ToLower(e.value), strings.ToLower(names[0])) {
				fail("group %d (%v) at line %d, which reads %+v", g, names, gl, e)
			}
			for i, rl := range grp.Rules {
				k := txt.RuleLine(g, i)
				e, ok := s.byLine[k]
				if !ok || e.kind != map[RuleType]byte{Allow: 'a', Disallow: 'd'}[rl.Type] || lines[k-1] != ruleText(rl) {
					fail("rule %d of group %d (%+v) at line %d, which reads %+v", i, g, rl, k, e)
				}
				if !slices.ContainsFunc(s.header(k), func(v string) bool { return strings.EqualFold(v, names[0]) }) {
					fail("rule %d of group %d at line %d, under %v, not %q", i, g, k, s.header(k), names[0])
				}
			}
		}
		// Decisions carry the line of their rule, in the group of the crawler (or "*").
		for range 20 {
			agent, path := pick(r, mergeAgents), genPath(r)
			d := txt.Matcher.Decide(agent, "", path)
			if d.Rule == nil {
				if d.Line != 0 {
					fail("%s %s: no rule, line %d", agent, path, d.Line)
				}
				continue
			}
			decisions++
			e, ok := s.byLine[d.Line]
			if !ok || e.kind != map[RuleType]byte{Allow: 'a', Disallow: 'd'}[d.Rule.Type] || lines[d.Line-1] != ruleText(*d.Rule) {
				fail("%s %s: decided by %+v at line %d, which reads %+v", agent, path, *d.Rule, d.Line, e)
			}
			sel, by := txt.Matcher.Select(agent, "")
			want := agent
			if by == SelectedByStar {
				want = "*"
			}
			if len(sel) == 0 || !slices.ContainsFunc(s.header(d.Line), func(v string) bool { return strings.EqualFold(v, want) }) {
				fail("%s %s: line %d is under %v, not %q", agent, path, d.Line, s.header(d.Line), want)
			}
			// Read back, the served file decides by the same line.
			if rd := read.Matcher.Decide(agent, "", path); rd.Line != d.Line || rd.Rule == nil || rd.Rule.Path != encodePattern(d.Rule.Path) {
				fail("%s %s: rendered, line %d (%+v); read back, line %d (%+v)", agent, path, d.Line, *d.Rule, rd.Line, rd.Rule)
			}
		}
	}
	if decisions < files {
		t.Errorf("only %d decisions by a rule in %d files", decisions, files)
	}
}

package robotsgen

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/usage"
)

func cu(path string, kv ...string) usage.Rule {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return usage.Rule{Path: path, Preferences: m}
}

// TestUsageRender: the example renders inside its group, after the rules, with
// paths encoded as Allow/Disallow patterns are, and parses back to itself.
func TestUsageRender(t *testing.T) {
	f := &File{Groups: []Group{{
		UserAgents:    []string{"*"},
		Rules:         []Rule{{Disallow, "/private/"}},
		CrawlDelay:    2,
		ContentUsage:  []usage.Rule{cu("", "train-ai", "n", "search", "y"), cu("/open-data/", "train-ai", "y"), cu("/données/", "+ai-use", "n")},
		ContentSignal: []usage.Rule{cu("", "search", "yes", "ai-input", "yes", "ai-train", "no")},
	}, {
		Purposes:     []string{"training"},
		Rules:        []Rule{{Allow, "/"}},
		ContentUsage: []usage.Rule{cu("/blog/*.html$", "train-ai", "n")},
	}}}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	want := "# " + PurposeSentinelComment + `
User-agent: robotsgen-purpose-groups
User-Agent-Purpose: training
Allow: /
Content-Usage: /blog/*.html$ train-ai=n

User-agent: *
Disallow: /private/
Content-Usage: train-ai=n, search=y
Content-Usage: /open-data/ train-ai=y
Content-Usage: /donn%C3%A9es/ ai-use=n
Content-Signal: search=yes, ai-input=yes, ai-train=no
Crawl-delay: 2
`
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	roundTripCheck(t, f, "")
}

// TestUsageValidate: every problem is named by its field path, with the preferences' own
// paths re-rooted under the rule.
func TestUsageValidate(t *testing.T) {
	f := &File{Groups: []Group{{
		UserAgents: []string{"*"},
		ContentUsage: []usage.Rule{
			cu("", "train-ai", "n"),
			cu("", "train-ia", "n"),
			cu("open-data/", "search", "y"),
			cu("*.pdf", "search", "y"),
			cu("/a#b", "search", "y"),
			cu("/a b", "search", "y"),
			cu("/100%zz", "search", "y"),
			cu(""),
			cu("/x", "train-ai", "yes"),
			cu("/ok"), // a path without preferences: every preference unknown there
		},
		ContentSignal: []usage.Rule{cu("", "train-ai", "no"), cu("/x", "+ai-use", "no")},
		Records:       []Record{{"Content-Usage", "train-ai=n"}},
	}}}
	got := map[string]string{}
	for _, e := range configerr.All(f.Validate()) {
		got[e.Path] = e.Error()
	}
	for path, part := range map[string]string{
		`groups[0].content_usage[1].preferences["train-ia"]`:  `did you mean "train-ai"`,
		`groups[0].content_usage[2].path`:                     `a pattern starts with "/" or "*"`,
		`groups[0].content_usage[3].path`:                     `starts with "/"`,
		`groups[0].content_usage[4].path`:                     `must not contain "#"`,
		`groups[0].content_usage[5].path`:                     "whitespace",
		`groups[0].content_usage[6].path`:                     `"%" must start a percent-escape`,
		`groups[0].content_usage[7].preferences`:              "no preferences",
		`groups[0].content_usage[8].preferences["train-ai"]`:  `did you mean "y"`,
		`groups[0].content_signal[0].preferences["train-ai"]`: `did you mean "ai-train"`,
		`groups[0].records[0].key`:                            "content_usage field",
	} {
		if !strings.Contains(got[path], part) {
			t.Errorf("%s: got %q, want ...%s", path, got[path], part)
		}
		delete(got, path)
	}
	for path, e := range got {
		t.Errorf("unexpected error at %s: %s", path, e)
	}
	// A file-level Content-Usage record is what Parse keeps of a line outside any group.
	ok := &File{Records: []Record{{"Content-Usage", "train-ai=n"}}}
	if err := ok.Validate(); err != nil {
		t.Error(err)
	}
}

// TestUsageParse: Parse reads both lines into the group they are in, in canonical form,
// and reports what it changes. The vocabulary's examples (duplicate keys, parameters,
// upper-case keys, values that are not Tokens) are vectors.
func TestUsageParse(t *testing.T) {
	type want struct {
		cu, cs []usage.Rule
		diags  []string // parts of the diagnostics, in order
	}
	for _, c := range []struct {
		name, lines string
		want
	}{
		{"attach example", "Allow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n",
			want{cu: []usage.Rule{cu("", "train-ai", "n"), cu("/ai-ok/", "train-ai", "y")}}},
		{"between rules, any case", "content-usage: search=y\nDisallow: /x\nCONTENT-SIGNAL: ai-train=no, search=yes\n",
			want{cu: []usage.Rule{cu("", "search", "y")}, cs: []usage.Rule{cu("", "search", "yes", "ai-train", "no")}}},
		{"comment and spaces", "Content-Usage:   /a\tsearch=y   # why\n",
			want{cu: []usage.Rule{cu("/a", "search", "y")}}},
		{"path only", "Content-Usage: /a\n", want{cu: []usage.Rule{cu("/a")}}},
		{"non-ASCII path encoded", "Content-Usage: /é train-ai=n\n", want{cu: []usage.Rule{cu("/%C3%A9", "train-ai", "n")}}},
		{"duplicate keys: the last wins", "Content-Usage: train-ai=y, train-ai=n\n", want{cu: []usage.Rule{cu("", "train-ai", "n")}}},
		{"duplicate keys: the last is a Boolean", "Content-Usage: /p train-ai=y, train-ai, search=n\n",
			want{cu: []usage.Rule{cu("/p", "search", "n")}, diags: []string{"train-ai (its value is not y or n)"}}},
		{"parameters ignored", "Content-Usage: train-ai;allow=n, train-ai=y;q=1\n",
			want{cu: []usage.Rule{cu("", "train-ai", "y")}, diags: []string{"the parameters of train-ai"}}},
		{"upper-case key: all unknown, path kept", "Content-Usage: /p Train-AI=n\n",
			want{cu: []usage.Rule{cu("/p")}, diags: []string{"not a Structured Field Dictionary"}}},
		{"upper-case key without path: changes nothing", "Content-Usage: TRAIN-AI=y\n",
			want{diags: []string{"Content-Usage skipped: Content-Usage value \"TRAIN-AI=y\" is not a Structured Field Dictionary"}}},
		{"values that are not Tokens", "Content-Usage: /p train-ai=\"n\", search=yes\n",
			want{cu: []usage.Rule{cu("/p")}, diags: []string{"train-ai (its value is not y or n); search (its value is not y or n)"}}},
		// ai-use is vocab-08's, no longer an extension.
		{"extensions kept", "Content-Usage: train-ai=n, ai-use=y, x-use=n\nContent-Signal: foo=no\n",
			want{cu: []usage.Rule{cu("", "train-ai", "n", "ai-use", "y", "+x-use", "n")}, cs: []usage.Rule{cu("", "+foo", "no")}}},
		{"Content-Signal values are yes/no", "Content-Signal: ai-train=n, search=yes\n",
			want{cs: []usage.Rule{cu("", "search", "yes")}, diags: []string{"ai-train (its value is not yes or no)"}}},
		{"path no pattern can say", "Content-Usage: /100%zz train-ai=n\n",
			want{diags: []string{"Content-Usage skipped: its path"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, diags := Parse([]byte("User-agent: a\n" + c.lines + "Disallow: /z\n\nUser-agent: b\nDisallow: /\n"))
			if len(f.Groups) != 2 || !reflect.DeepEqual(f.Groups[1], Group{UserAgents: []string{"b"}, Rules: []Rule{{Disallow, "/"}}}) {
				t.Fatalf("groups %+v", f.Groups)
			}
			g := f.Groups[0]
			if !reflect.DeepEqual(g.ContentUsage, c.cu) || !reflect.DeepEqual(g.ContentSignal, c.cs) {
				t.Errorf("got %+v / %+v, want %+v / %+v", g.ContentUsage, g.ContentSignal, c.cu, c.cs)
			}
			if len(diags) != len(c.diags) {
				t.Fatalf("diagnostics %v, want %q", diags, c.diags)
			}
			for i, d := range diags {
				if !strings.Contains(d.Reason, c.diags[i]) {
					t.Errorf("diagnostic %q, want ...%s", d.Reason, c.diags[i])
				}
			}
			if err := f.Validate(); err != nil {
				t.Errorf("parsed file invalid: %v", err)
			}
			roundTripCheck(t, f, "")
		})
	}
	// Outside any group: kept where it was, as a file-level record; Warnings reports it.
	f, diags := Parse([]byte("Content-Usage: train-ai=n\nUser-agent: *\nDisallow: /x\n"))
	if !reflect.DeepEqual(f.Records, []Record{{"Content-Usage", "train-ai=n"}}) || len(diags) != 0 || len(f.Groups[0].ContentUsage) != 0 {
		t.Errorf("records %v, diags %v", f.Records, diags)
	}
	if w := f.Warnings(); len(w) != 1 || w[0].Path != "records[0].key" || !strings.Contains(w[0].Problem, "applies to no crawler") {
		t.Errorf("warnings %v", w)
	}
}

// TestPreferences: the matcher answers for crawlable paths only, by longest match among
// the obeyed groups' rules, combining rules of the same path.
func TestPreferences(t *testing.T) {
	body := `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y
Content-Usage: /ai-ok/ search=n
Content-Usage: /mixed/ train-ai=y
Content-Usage: /mixed/ train-ai=n, search=y
Content-Usage: /never/ train-ai=y
Content-Usage: /unknown/
Content-Signal: search=yes, ai-train=no

User-agent: GPTBot
Disallow: /private/
Content-Usage: search=y

User-Agent-Purpose: training
Disallow:
Content-Usage: /*.pdf$ train-ai=n
`
	f, diags := Parse([]byte(body))
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	m := NewMatcher(f)
	CU, CS := usage.ContentUsage, usage.ContentSignal
	for _, c := range []struct {
		v                    usage.Vocab
		agent, purpose, path string
		want                 string
	}{
		{CU, "OtherBot", "", "/", "train-ai=n"},
		{CU, "OtherBot", "", "/article", "train-ai=n"},
		{CU, "OtherBot", "", "/ai-ok/x", "train-ai=y, search=n"}, // identical paths combined
		{CU, "OtherBot", "", "/mixed/", "train-ai=n, search=y"},  // any n wins
		{CU, "OtherBot", "", "/never/x", ""},                     // disallowed: no preferences
		{CU, "OtherBot", "", "/unknown/x", ""},                   // longest match says nothing
		{CU, "OtherBot", "", "/ai-ok/x#frag", "train-ai=y, search=n"},
		{CU, "OtherBot", "", "/%61i-ok/x", "train-ai=y, search=n"}, // normalised like Decide
		{CS, "OtherBot", "", "/ai-ok/x", "search=yes, ai-train=no"},
		{CU, "gptbot", "", "/x", "search=y"}, // its own group, not *'s
		{CU, "GPTBot", "", "/private/x", ""},
		{CS, "GPTBot", "", "/x", ""},
		{CU, "NewBot", "training", "/a.pdf", "train-ai=n"},
		{CU, "NewBot", "training", "/a.pdf?x", ""},
		{CU, "NewBot", "search", "/a.pdf", "train-ai=n"}, // no such purpose: *
	} {
		if got := m.Preferences(c.v, c.agent, c.purpose, c.path).String(); got != c.want {
			t.Errorf("%v %s/%s %s: %q, want %q", c.v, c.agent, c.purpose, c.path, got, c.want)
		}
	}
	if got := NewMatcher(&File{}).Preferences(CU, "a", "", "/"); !got.IsEmpty() {
		t.Errorf("empty file: %v", got)
	}
}

// TestUsageWarnings: a preference rule for a path its group disallows is reported, unless an
// Allow rule of the group reopens part of it.
func TestUsageWarnings(t *testing.T) {
	f := &File{Groups: []Group{{
		UserAgents: []string{"*"},
		Rules:      []Rule{{Disallow, "/private/"}, {Disallow, "/x$"}, {Disallow, "/drafts/"}, {Allow, "/drafts/public/"}},
		ContentUsage: []usage.Rule{
			cu("", "train-ai", "n"),                   // allowed
			cu("/private/", "train-ai", "y"),          // reported
			cu("/private/sub/*.pdf", "train-ai", "y"), // reported
			cu("/x", "train-ai", "y"),                 // only /x itself is disallowed
			cu("/drafts/", "train-ai", "y"),           // reopened below
		},
		ContentSignal: []usage.Rule{cu("/private/a", "ai-train", "yes")},
	}, {
		UserAgents:   []string{"GPTBot"},
		Rules:        []Rule{{Disallow, "/"}},
		ContentUsage: []usage.Rule{cu("", "train-ai", "n")},
	}}}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range f.Warnings() {
		got = append(got, w.Path)
		if !strings.Contains(w.Problem, "has no effect") {
			t.Errorf("%v", w)
		}
	}
	want := []string{"groups[0].content_usage[1]", "groups[0].content_usage[2]", "groups[0].content_signal[0]", "groups[1].content_usage[0]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings at %q, want %q", got, want)
	}
}

// TestUsageWarningsSound: over thousands of generated files of one to three groups (some
// naming the same crawler, which merges them), a rule that Warnings reports as having no
// effect really has none: for every crawler that reads its group, every path the rule
// matches (its pattern instantiated with random strings for "*", and random tails when it
// is not "$"-anchored) is disallowed. Enough rules are reported for the check to mean
// something.
func TestUsageWarningsSound(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	fill := func() string {
		var b strings.Builder
		for range r.IntN(3) {
			if r.IntN(4) == 0 {
				b.WriteByte('/')
			} else {
				b.WriteString(segments[r.IntN(len(segments))])
			}
		}
		return b.String()
	}
	agents, purposes := []string{"*", "FooBot", "foobot", "BarBot"}, []string{"training", "Training"}
	reported, checked := 0, 0
	for c := range 4000 {
		f := &File{}
		for range 1 + r.IntN(3) {
			var g Group
			if r.IntN(5) == 0 {
				g.Purposes = []string{purposes[r.IntN(len(purposes))]}
			} else {
				g.UserAgents = []string{agents[r.IntN(len(agents))]}
				if r.IntN(4) == 0 {
					g.UserAgents = append(g.UserAgents, agents[r.IntN(len(agents))])
				}
			}
			for range 1 + r.IntN(5) {
				typ := Disallow
				if r.IntN(3) == 0 {
					typ = Allow
				}
				g.Rules = append(g.Rules, Rule{Type: typ, Path: genPattern(r)})
			}
			for range r.IntN(3) {
				p := genPattern(r)
				if p[0] != '/' {
					p = "/" + p
				}
				g.ContentUsage = append(g.ContentUsage, cu(p, "train-ai", "n"))
			}
			f.Groups = append(f.Groups, g)
		}
		if f.Validate() != nil {
			continue
		}
		m := NewMatcher(f)
		for _, w := range f.Warnings() {
			var gi, i int
			if _, err := fmt.Sscanf(w.Path, "groups[%d].content_usage[%d]", &gi, &i); err != nil {
				t.Fatalf("warning at %s: %v", w.Path, w)
			}
			reported++
			g := f.Groups[gi]
			pat := g.ContentUsage[i].Path
			anchored := strings.HasSuffix(pat, "$")
			pat = strings.TrimSuffix(pat, "$")
			for range 20 {
				var b strings.Builder
				for j, part := range strings.Split(pat, "*") {
					if j > 0 {
						b.WriteString(fill())
					}
					b.WriteString(part)
				}
				if !anchored {
					b.WriteString(fill())
				}
				path := b.String()
				if strings.HasPrefix(path, "/robots.txt") {
					continue // always allowed (RFC 9309 2.2.2), whatever the rules say
				}
				var readers [][2]string
				for _, ua := range g.UserAgents {
					readers = append(readers, [2]string{ua, ""})
				}
				for _, p := range g.Purposes {
					readers = append(readers, [2]string{"", p})
				}
				for _, rd := range readers {
					checked++
					if d := m.Decide(rd[0], rd[1], path); d.Allowed {
						t.Fatalf("case %d: %s reported (%s), but %q, which it matches, may be crawled by %q/%q (rule %+v)\ngroups %+v",
							c, w.Path, w.Problem, path, rd[0], rd[1], d.Rule, f.Groups)
					}
				}
			}
		}
	}
	t.Logf("%d rules reported, %d paths they match checked", reported, checked)
	if reported < 200 {
		t.Fatalf("only %d rules reported: the generator no longer exercises Warnings", reported)
	}
}

// TestUsageWarningsMergedGroups: a crawler named by two groups reads them merged, so a
// rule is not reported when another group naming the same crawler reopens its path, and is
// when every crawler of its group is kept out.
func TestUsageWarningsMergedGroups(t *testing.T) {
	f := &File{Groups: []Group{{
		UserAgents:   []string{"FooBot"},
		Rules:        []Rule{{Disallow, "/x/"}},
		ContentUsage: []usage.Rule{cu("/x/", "train-ai", "y")}, // reopened by group 1
	}, {
		UserAgents: []string{"foobot"},
		Rules:      []Rule{{Allow, "/x/"}},
	}, {
		UserAgents:   []string{"BarBot", "BazBot"},
		Rules:        []Rule{{Disallow, "/y/"}},
		ContentUsage: []usage.Rule{cu("/y/", "train-ai", "y")}, // BazBot reads it, and group 3 reopens /y/ for BazBot
	}, {
		UserAgents: []string{"BazBot"},
		Rules:      []Rule{{Allow, "/y/a"}},
	}, {
		Purposes:     []string{"training"},
		Rules:        []Rule{{Disallow, "/"}},
		ContentUsage: []usage.Rule{cu("", "train-ai", "n")}, // every reader disallowed
	}, {
		UserAgents:   []string{"QuxBot"},
		Rules:        []Rule{{Disallow, "/q/"}},
		ContentUsage: []usage.Rule{cu("/q/*.pdf", "train-ai", "y")},
	}}}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range f.Warnings() {
		got = append(got, w.Path)
	}
	if want := []string{"groups[4].content_usage[0]", "groups[5].content_usage[0]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("warnings at %q, want %q", got, want)
	}
}

// TestUsageParseBetweenUserAgents: a preference line between two user-agent lines is read
// differently by draft-ietf-aipref-attach (a rule, ending the group above it) and by RFC
// 9309 parsers (skipped: one group). Parse keeps the RFC 9309 grouping, so allow/disallow
// decisions stay Google's, and reports the line; after a rule, or before a group that a rule
// line started, there is nothing to report.
func TestUsageParseBetweenUserAgents(t *testing.T) {
	for _, c := range []struct {
		name, body string
		agents     [][]string // per group
		diagLines  []int
	}{
		// The rules stay with every agent; each run of agents gets a group of its own with its
		// preference rules whole and the other runs' n values (TestUsageBetweenAgentsProperty).
		{"between agents", "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /\n",
			[][]string{{"a", "b"}, {"a"}, {"b"}}, []int{2}},
		{"both vocabularies, two agents after", "User-agent: a\nContent-Signal: ai-train=no\nContent-Usage: /x train-ai=n\nUser-agent: b\nUser-agent: c\nAllow: /\n",
			[][]string{{"a", "b", "c"}, {"a"}, {"b", "c"}}, []int{2, 3}},
		{"after a rule", "User-agent: a\nDisallow: /p\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /\n",
			[][]string{{"a"}, {"b"}}, nil},
		{"before the rules, no agent after", "User-agent: a\nUser-agent: b\nContent-Usage: train-ai=n\nDisallow: /p\n\nUser-agent: c\nDisallow: /\n",
			[][]string{{"a", "b"}, {"c"}}, nil},
		{"skipped line is not reported twice", "User-agent: a\nContent-Usage: TRAIN-AI=n\nUser-agent: b\nDisallow: /\n",
			[][]string{{"a", "b"}}, []int{2}},
		// A line that does not parse still ends the agents above it (attach-05): b's y is
		// not a's.
		{"skipped line ends the run", "User-agent: a\nContent-Usage: Train-AI=n\nUser-agent: b\nContent-Usage: train-ai=y\nDisallow: /\n",
			[][]string{{"a", "b"}, {"b"}}, []int{2}},
		{"unknown preferences end the run", "User-agent: *\nContent-Usage: foo=bar\nUser-agent: b\nContent-Usage: train-ai=y\nDisallow: /\n",
			[][]string{{"*", "b"}, {"b"}}, []int{2, 2}},
		{"a path no pattern expresses ends the run", "User-agent: *\nContent-Usage: /a% train-ai=n\nUser-agent: b\nContent-Usage: train-ai=y\nDisallow: /\n",
			[][]string{{"*", "b"}, {"b"}}, []int{2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, diags := Parse([]byte(c.body))
			var agents [][]string
			for _, g := range f.Groups {
				agents = append(agents, g.UserAgents)
			}
			if !reflect.DeepEqual(agents, c.agents) {
				t.Errorf("groups %v, want %v", agents, c.agents)
			}
			var lines []int
			for _, d := range diags {
				lines = append(lines, d.Line)
				switch {
				case strings.Contains(d.Reason, " rewritten without "):
				case strings.Contains(d.Reason, "skipped"):
					if !strings.Contains(d.Reason, "ends the user-agent lines above it") || strings.Contains(d.Reason, "changes nothing") {
						t.Errorf("diagnostic of a skipped line %v", d)
					}
				case !strings.Contains(d.Reason, "between user-agent lines"):
					t.Errorf("diagnostic %v", d)
				}
			}
			if !reflect.DeepEqual(lines, c.diagLines) {
				t.Errorf("diagnostics at lines %v, want %v: %v", lines, c.diagLines, diags)
			}
		})
	}
}

// TestUsageBetweenAgentsProperty: a preference line between user-agent lines is read two ways
// (draft-ietf-aipref-attach: it ends the group, so it is only the agents' above; RFC 9309
// parsers: one group with every line). For generated files, every crawler's preferences at
// every path, with RFC 9309's and Google's reading of the patterns, hold every "n" of either
// reading and a "y" only where both readings give it.
func TestUsageBetweenAgentsProperty(t *testing.T) {
	t.Parallel() // a long property test: the others run beside it
	files := 3000
	if testing.Short() || raceEnabled {
		files = 300
	}
	if raceEnabled {
		// Under the race detector only races are looked for: the first 75 cases of the
		// same seed, all of which the full-size run without -race (./test.sh) checks too.
		files = 75
	}
	r := rand.New(rand.NewPCG(5, 1))
	agents := []string{"A", "B", "C", "*"}
	ask := []string{"A", "B", "C", "Other"}
	paths := []string{"/", "/a", "/a/", "/a/b", "/%61/b", "/b", "/x.html"}
	cuLine := func() string {
		var b strings.Builder
		b.WriteString("Content-Usage: ")
		if r.IntN(6) == 0 {
			// Lines that do not parse, or say nothing: attach-05 still reads each as a rule.
			return b.String() + pick(r, []string{"Train-AI=n", "train-ai=maybe", "/a TRAIN-AI=y", "/a% train-ai=n", "train-ai=y;x=(", ""})
		}
		if r.IntN(3) != 0 {
			b.WriteString(pick(r, []string{"/a", "/a/", "/a/b", "/%61/", "/b", "/*.html", "/a*b"}) + " ")
		}
		keys := []string{"train-ai", "search"}
		for i, k := range keys[:1+r.IntN(2)] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "=" + pick(r, []string{"y", "n"}))
		}
		return b.String()
	}
	type item struct {
		ua   string // a user-agent line, or
		line string // a preference line
	}
	ambiguous, checked := 0, 0
	for c := 0; c < files; c++ {
		var orig, one, all strings.Builder
		for range 1 + r.IntN(3) {
			header := []item{{ua: pick(r, agents)}}
			for range r.IntN(5) {
				if r.IntN(2) == 0 {
					header = append(header, item{ua: pick(r, agents)})
				} else {
					header = append(header, item{line: cuLine()})
				}
			}
			var tail []string
			for range r.IntN(3) {
				tail = append(tail, cuLine())
			}
			rule := "Disallow: /zz\n"
			for _, it := range header {
				if it.ua != "" {
					orig.WriteString("User-agent: " + it.ua + "\n")
				} else {
					orig.WriteString(it.line + "\n")
				}
			}
			orig.WriteString(rule) // without a rule the next group's user agents would join this one
			for _, l := range tail {
				orig.WriteString(l + "\n")
			}
			orig.WriteString("\n")
			// Every line in one group.
			var lines []string
			for _, it := range header {
				if it.ua != "" {
					all.WriteString("User-agent: " + it.ua + "\n")
				} else {
					lines = append(lines, it.line)
				}
			}
			all.WriteString(rule + strings.Join(append(lines, tail...), "\n") + "\n\n")
			// attach-05: a preference line ends the user agents above it.
			var run, pending []string
			for _, it := range header {
				if it.ua != "" {
					if len(pending) > 0 {
						one.WriteString(strings.Join(run, "\n") + "\n" + rule + strings.Join(pending, "\n") + "\n\n")
						run, pending = nil, nil
						ambiguous++
					}
					run = append(run, "User-agent: "+it.ua)
					continue
				}
				pending = append(pending, it.line)
			}
			one.WriteString(strings.Join(run, "\n") + "\n" + rule + strings.Join(append(pending, tail...), "\n") + "\n\n")
		}
		got, _ := Parse([]byte(orig.String()))
		f1, d1 := Parse([]byte(one.String()))
		f2, d2 := Parse([]byte(all.String()))
		if slices.ContainsFunc(append(d1, d2...), func(d Diagnostic) bool { return strings.Contains(d.Reason, "between user-agent lines") }) {
			t.Fatalf("file %d: the readings are not unambiguous: %v %v\n%s---\n%s", c, d1, d2, one.String(), all.String())
		}
		// The round trip through Render must keep it.
		rt, _ := Parse([]byte(mustRender(t, withoutRules(got))))
		for _, f := range []*File{got, rt} {
			for _, agent := range ask {
				for _, path := range paths {
					for _, google := range []bool{false, true} {
						prefs := func(f *File) usage.Prefs {
							f = withoutRules(f)
							if google {
								return googlePrefs(f, agent, usage.ContentUsage, path)
							}
							return NewMatcher(f).Preferences(usage.ContentUsage, agent, "", path)
						}
						g, p1, p2 := prefs(f), prefs(f1), prefs(f2)
						for _, k := range usage.ContentUsage.Keys() {
							gv, v1, v2 := g.Get(k), p1.Get(k), p2.Get(k)
							if (v1 == usage.Disallow || v2 == usage.Disallow) && gv != usage.Disallow ||
								gv == usage.Allow && (v1 != usage.Allow || v2 != usage.Allow) {
								t.Fatalf("file %d, %s %s (google %v): %s=%v, readings %v and %v\n%s--- read as\n%s--- attach-05\n%s--- one group\n%s",
									c, agent, path, google, k, gv, v1, v2, orig.String(), mustRender(t, withoutRules(got)), one.String(), all.String())
							}
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d files, %d ambiguous runs, %d checks", files, ambiguous, checked)
	if ambiguous < files/2 {
		t.Fatalf("too few ambiguous lines: %d", ambiguous)
	}
}

// withoutRules is f without allow and disallow rules: preferences then depend only on the
// preference lines and the groups.
func withoutRules(f *File) *File {
	c := *f
	c.Groups = slices.Clone(f.Groups)
	for i := range c.Groups {
		c.Groups[i].Rules = nil
	}
	return &c
}

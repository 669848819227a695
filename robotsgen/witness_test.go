package robotsgen

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
	"github.com/temoto/robotstxt"

	"github.com/sitepolicy/caddy-robots/internal/fieldcover"
	"github.com/sitepolicy/caddy-robots/usage"
)

// Pools for generated files. Agents include case variants (matching is
// case-insensitive) and "Foo", a prefix of "FooBot" (temoto matches agents by
// prefix). Purposes include digits (as the draft's examples do) and, rarely,
// a token equal to a product token (Google's parser reads User-Agent-Purpose
// lines as User-agent lines, so such a collision is a listed exception).
var (
	genAgents   = []string{"FooBot", "foobot", "BarBot", "Baz_bot", "qux-crawler", "Foo", "*"}
	askAgents   = []string{"FooBot", "FOOBOT", "foo", "BarBot", "baz_BOT", "qux-crawler", "OtherBot", "FooBotX"}
	genPurposes = []string{"EXAMPLE-PURPOSE-1", "example-purpose-2", "Training", "search_index"}
	askPurposes = []string{"", "EXAMPLE-PURPOSE-1", "EXAMPLE-purpose-2", "training", "search_index", "Unknown-3"}
	segments    = []string{"a", "b", "ab", "x.html", "index.html", "%2F", "%3A", "é", "%E3%83%84", "~u", "q?x=1", "-", "_"}
)

func genPattern(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteByte('*')
	} else {
		b.WriteByte('/')
	}
	n := r.IntN(4)
	for i := 0; i < n; i++ {
		switch r.IntN(10) {
		case 0:
			b.WriteByte('*')
		case 1:
			b.WriteByte('/')
		default:
			b.WriteString(segments[r.IntN(len(segments))])
		}
	}
	if r.IntN(6) == 0 {
		b.WriteByte('$')
	}
	return b.String()
}

// genPath returns a path in the form crawlers send (non-ASCII escaped with
// upper-case hex), which is the form both witnesses compare verbatim.
func genPath(r *rand.Rand) string {
	if r.IntN(40) == 0 {
		return "/robots.txt"
	}
	var b strings.Builder
	b.WriteByte('/')
	n := r.IntN(5)
	for i := 0; i < n; i++ {
		if r.IntN(4) == 0 {
			b.WriteByte('/')
		}
		b.WriteString(segments[r.IntN(len(segments))])
	}
	return normalise(b.String(), false)
}

func genFile(r *rand.Rand) *File {
	f := &File{}
	ng := 1 + r.IntN(6)
	for i := 0; i < ng; i++ {
		var g Group
		switch r.IntN(6) {
		case 0: // purpose-only
			for k := 0; k < 1+r.IntN(2); k++ {
				g.Purposes = append(g.Purposes, genPurposes[r.IntN(len(genPurposes))])
			}
		case 1: // mixed
			g.UserAgents = append(g.UserAgents, genAgents[r.IntN(len(genAgents))])
			g.Purposes = append(g.Purposes, genPurposes[r.IntN(len(genPurposes))])
		default:
			for k := 0; k < 1+r.IntN(2); k++ {
				g.UserAgents = append(g.UserAgents, genAgents[r.IntN(len(genAgents))])
			}
		}
		if r.IntN(200) == 0 {
			g.Purposes = append(g.Purposes, "FooBot") // collision, see exceptions
		}
		if r.IntN(10) == 0 {
			// A preset: its crawlers are written out as user agents (Expand).
			g.Presets = append(g.Presets, pick(r, []string{"ai-training", "ai-search", "ai-assistants", "ai-all"}))
			if r.IntN(3) == 0 {
				g.Except = genExcept(r, g.Presets[0], nil)
			}
		}
		nr := r.IntN(6)
		if r.IntN(4) == 0 {
			nr = 0
		}
		for k := 0; k < nr; k++ {
			t := Allow
			if r.IntN(2) == 0 {
				t = Disallow
			}
			g.Rules = append(g.Rules, Rule{Type: t, Path: genPattern(r)})
		}
		if r.IntN(5) == 0 {
			g.CrawlDelay = float64(r.IntN(20)) / 4
		}
		if r.IntN(6) == 0 {
			g.Records = append(g.Records, Record{Key: "Clean-param", Value: "ref /a"})
		}
		if r.IntN(3) == 0 {
			g.ContentUsage = genUsage(r, usage.ContentUsage)
		}
		if r.IntN(4) == 0 {
			g.ContentSignal = genUsage(r, usage.ContentSignal)
		}
		f.Groups = append(f.Groups, g)
	}
	if r.IntN(3) == 0 {
		f.Sitemaps = append(f.Sitemaps, "/sitemap.xml")
	}
	if r.IntN(4) == 0 {
		f.Sitemaps = append(f.Sitemaps, "https://cdn.example.net/s.xml")
	}
	if r.IntN(4) == 0 {
		f.Records = append(f.Records, Record{Key: "Host", Value: "example.com"})
	}
	// RSL License lines: a path, the same URL written absolute (written once), another host's.
	for _, l := range []string{"/license.xml", "https://example.com/license.xml", "https://rights.example.org/rsl.xml"} {
		if r.IntN(3) == 0 {
			f.Licenses = append(f.Licenses, l)
		}
	}
	if r.IntN(4) == 0 {
		f.Comments = append(f.Comments, "generated")
	}
	return f
}

// genUsage returns 1 to 3 preference rules of v, with or without a path, sometimes with
// an extension key.
func genUsage(r *rand.Rand, v usage.Vocab) []usage.Rule {
	var out []usage.Rule
	for range 1 + r.IntN(3) {
		var rule usage.Rule
		if r.IntN(3) != 0 {
			rule.Path = genPattern(r)
			if rule.Path[0] != '/' {
				rule.Path = "/" + rule.Path
			}
		}
		rule.Preferences = map[string]string{}
		words := [2]string{"y", "n"}
		if v == usage.ContentSignal {
			words = [2]string{"yes", "no"}
		}
		for _, k := range v.Keys() {
			if c := r.IntN(3); c < 2 {
				rule.Preferences[k] = words[c]
			}
		}
		if r.IntN(8) == 0 {
			rule.Preferences["+x-ext"] = words[r.IntN(2)]
		}
		if rule.Path == "" && len(rule.Preferences) == 0 {
			rule.Preferences[v.Keys()[0]] = words[1]
		}
		out = append(out, rule)
	}
	return out
}

// oraclePrefs is the test's own reading of attach-05 for an allowed path: the longest
// matching rule of the obeyed groups (a rule without a path is a rule for "/"), rules of
// the same length combined.
func oraclePrefs(f *File, groups []int, v usage.Vocab, path string) usage.Prefs {
	return prefsIn(f, groups, v, path, false)
}

// googlePrefs is oraclePrefs in Google's reading of patterns: escapes compared as written
// (googlePattern, grobotstxt.Matches), as a parser built on Google's library would read them.
func googlePrefs(f *File, agent string, v usage.Vocab, path string) usage.Prefs {
	groups, _ := oracleGroups(f, agent, "")
	return prefsIn(f, groups, v, path, true)
}

func prefsIn(f *File, groups []int, v usage.Vocab, path string, google bool) usage.Prefs {
	np := []byte(normalise(path, false))
	var out usage.Prefs
	best := -1
	for _, gi := range groups {
		rules := f.Groups[gi].ContentUsage
		if v == usage.ContentSignal {
			rules = f.Groups[gi].ContentSignal
		}
		for _, rl := range rules {
			p := rl.Path
			if p == "" {
				p = "/"
			}
			pat := normalise(p, true)
			end := strings.HasSuffix(pat, "$")
			if google {
				if !grobotstxt.Matches(path, googlePattern(p)) {
					continue
				}
			} else if !matchPattern(strings.TrimSuffix(pat, "$"), end, np) {
				continue
			}
			prefs, err := v.FromConfig(rl.Preferences)
			if err != nil {
				panic(err)
			}
			switch {
			case len(pat) > best:
				out, best = prefs, len(pat)
			case len(pat) == best:
				out = usage.Combine(out, prefs)
			}
		}
	}
	return out
}

// withoutUsage returns f without its preference rules.
func withoutUsage(f *File) *File {
	c := *f
	c.Groups = append([]Group(nil), f.Groups...)
	for i := range c.Groups {
		c.Groups[i].ContentUsage, c.Groups[i].ContentSignal = nil, nil
	}
	return &c
}

// oracle is the test's own statement of which groups a crawler obeys,
// written from RFC 9309 2.2.1 and the purpose draft independently of Matcher.
func oracleGroups(f *File, agent, purpose string) (groups []int, mode int) {
	for i, g := range f.Groups {
		for _, ua := range g.UserAgents {
			if ua != "*" && strings.EqualFold(ua, agent) {
				groups = append(groups, i)
				break
			}
		}
	}
	if len(groups) > 0 {
		return groups, byProductToken
	}
	if purpose != "" {
		for i, g := range f.Groups {
			for _, p := range g.Purposes {
				if strings.EqualFold(p, purpose) {
					groups = append(groups, i)
					break
				}
			}
		}
		if len(groups) > 0 {
			return groups, byPurposeToken
		}
	}
	for i, g := range f.Groups {
		for _, ua := range g.UserAgents {
			if ua == "*" {
				groups = append(groups, i)
				break
			}
		}
	}
	return groups, byStar
}

const (
	byProductToken = iota
	byPurposeToken
	byStar
)

// matchingRules returns the rules of groups that match path, and the largest
// specificity among them.
func matchingRules(f *File, groups []int, path string) (rules []Rule, best int) {
	np := []byte(normalise(path, false))
	best = -1
	for _, gi := range groups {
		for _, r := range f.Groups[gi].Rules {
			pat := normalise(r.Path, true)
			end := strings.HasSuffix(pat, "$")
			if matchPattern(strings.TrimSuffix(pat, "$"), end, np) {
				rules = append(rules, r)
				if len(pat) > best {
					best = len(pat)
				}
			}
		}
	}
	return rules, best
}

type exceptionCounts map[string]int

// Exceptions where the specification leaves a choice or a witness departs
// from RFC 9309; every skipped comparison is counted under one of these.
const (
	exDigitName     = "google: a name with digits is read only up to its first digit (\"AI\" of AI2Bot, syntax.GoogleAgentToken), so Google's parser addresses its group to another name"
	exRobotsTxt     = "both: /robots.txt is implicitly allowed (RFC 9309 2.2.2); neither witness special-cases it"
	exPurposeAgent  = "google: a purpose token equal to the product token; Google's parser reads User-Agent-Purpose lines as user-agent lines"
	exIndexHTM      = "google: Allow patterns ending in /index.htm(l) also allow the directory (Google-specific normalisation)"
	exEscapes       = "google compares escapes as written: %62 is not b, %24 is not $, %2a is not %2A (RFC 9309 2.2.2 and figure 6 say they are)"
	exTemotoPrefix  = "temoto: agents are matched by prefix (\"foo\" group for \"FooBot\" crawler); RFC 9309 2.2.1 matches the product token"
	exTemotoWild    = "temoto: patterns with * or $ become unanchored regexps whose specificity is the regexp length"
	exTemotoTie     = "temoto: equal-length allow and disallow: the first listed wins; RFC 9309 says allow SHOULD win"
	exTemotoNoMatch = "temoto: the purpose draft is unknown to temoto, so only product-token/\"*\" decisions are compared"
)

func TestWitnesses(t *testing.T) {
	t.Parallel() // a long property test: the others run beside it
	configs := 10000
	if testing.Short() || raceEnabled {
		configs = 1000
	}
	if raceEnabled {
		// Under the race detector only races are looked for: the first 250 cases of the
		// same seed, all of which the full-size run without -race (./test.sh) checks too.
		configs = 250
	}
	r := rand.New(rand.NewPCG(9309, 2024))
	ex := exceptionCounts{}
	compared := map[string]int{}
	set := fieldcover.Set{}
	defer func() {
		if missing := set.Missing(reflect.TypeFor[File]()); len(missing) > 0 && !t.Failed() {
			t.Errorf("the generator never sets %q", missing)
		}
	}()
	for c := 0; c < configs; c++ {
		f := genFile(r)
		set.Add(f)
		body, err := f.Render("https://example.com")
		if err != nil {
			t.Fatalf("config %d: %v\n%#v", c, err, f)
		}
		// Round trip on the same configs.
		want, _ := f.canonical("https://example.com")
		got, diags := Parse(body)
		if len(diags) > 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("config %d: round trip\n%s\ndiags %v\ngot  %#v\nwant %#v", c, body, diags, got, want)
		}
		f = f.Expand(false) // the oracles read user agents; Render wrote the presets out
		m := NewMatcher(f)
		tr, err := robotstxt.FromBytes(body)
		if err != nil {
			t.Fatalf("config %d: temoto rejects our file: %v\n%s", c, err, body)
		}
		sbody := string(body)
		// The same file without lines that RFC 9309 parsers ignore: its Content-Usage and
		// Content-Signal lines, its RSL License lines. Every legacy parser must decide the same
		// on each.
		type variant struct{ lines, body string }
		var without []variant
		render := func(f *File) string {
			pb, err := f.Render("https://example.com")
			if err != nil {
				t.Fatal(err)
			}
			return string(pb)
		}
		if hasUsage(f) {
			without = append(without, variant{"preference lines", render(withoutUsage(f))})
		}
		if len(f.Licenses) > 0 {
			nf := *f
			nf.Licenses = nil
			without = append(without, variant{"License lines", render(&nf)})
			if strings.Count("\n"+sbody, "\nLicense: https://example.com/license.xml\n") > 1 {
				t.Fatalf("config %d: a license written twice\n%s", c, body)
			}
		}
		// lineRules maps rendered line numbers to the rule written there.
		lineRules := map[int]*Rule{}
		for i, l := range strings.Split(sbody, "\n") {
			if v, ok := strings.CutPrefix(l, "Allow: "); ok {
				lineRules[i+1] = &Rule{Allow, v}
			} else if v, ok := strings.CutPrefix(l, "Disallow:"); ok {
				lineRules[i+1] = &Rule{Disallow, strings.TrimPrefix(v, " ")}
			}
		}
		for a := 0; a < 3; a++ {
			agent := askAgents[r.IntN(len(askAgents))]
			purpose := askPurposes[r.IntN(len(askPurposes))]
			purposeClash := false
			for _, g := range f.Groups {
				for _, p := range g.Purposes {
					if strings.EqualFold(p, agent) {
						purposeClash = true
					}
				}
			}
			for p := 0; p < 2; p++ {
				path := genPath(r)
				d := m.Decide(agent, purpose, path)
				groups, mode := oracleGroups(f, agent, purpose)
				wantGroup := -1
				if len(groups) > 0 {
					wantGroup = groups[0]
				}
				if d.Group != wantGroup {
					t.Fatalf("config %d %s/%s %s: group %d, oracle %d\n%s", c, agent, purpose, path, d.Group, wantGroup, body)
				}
				for _, v := range []usage.Vocab{usage.ContentUsage, usage.ContentSignal} {
					want := usage.Prefs{}
					if d.Allowed {
						want = oraclePrefs(f, groups, v, path)
					}
					if got := m.Preferences(v, agent, purpose, path); got.String() != want.String() {
						t.Fatalf("config %d %s/%s %s: %v %q, oracle %q\n%s", c, agent, purpose, path, v, got, want, body)
					}
					compared["preferences"]++
				}
				for _, wo := range without {
					for _, w := range allWitnesses {
						if w.allowed(sbody, agent, path) != w.allowed(wo.body, agent, path) ||
							w.allowed(sbody, purpose, path) != w.allowed(wo.body, purpose, path) {
							t.Fatalf("config %d %s/%s %s: %s decides differently without the %s\n%s", c, agent, purpose, path, w.name, wo.lines, body)
						}
						compared[w.name+" unchanged by "+wo.lines]++
					}
				}
				if path == "/robots.txt" {
					if !d.Allowed {
						t.Fatalf("/robots.txt disallowed")
					}
					ex[exRobotsTxt]++
					continue
				}
				rules, best := matchingRules(f, groups, path)
				// Google also reads "Allow: /d/index.htm..." as "Allow: /d/$"
				// when the pattern itself does not match.
				indexHTM := false
				np := []byte(path)
				for _, gi := range groups {
					for _, rl := range f.Groups[gi].Rules {
						pat := encodePattern(rl.Path)
						if s := strings.LastIndexByte(pat, '/'); rl.Type == Allow && s >= 0 && strings.HasPrefix(pat[s:], "/index.htm") &&
							matchPattern(pat[:s+1], true, np) {
							indexHTM = true
						}
					}
				}
				// Google: legacy crawlers directly; purpose crawlers through
				// the draft's equivalence: a purpose line is a user-agent line,
				// so when no product group matches, Google asked with the
				// purpose token as agent must agree with us.
				gAgent := agent
				if mode == byPurposeToken {
					gAgent = purpose
				}
				purposeClashG := purposeClash
				if gAgent != agent {
					purposeClashG = productNamed(f, gAgent)
				}
				switch {
				case purposeClashG:
					ex[exPurposeAgent]++
				case indexHTM:
					ex[exIndexHTM]++
				default:
					gm, ok := googleRead(sbody).match(gAgent, "http://example.com"+path)
					g := ok && !gm.Disallowed()
					if g != d.Allowed {
						t.Fatalf("config %d %s/%s %s: ours %v, google(%s) %v, rule %v\n%s", c, agent, purpose, path, d.Allowed, gAgent, g, d.Rule, body)
					}
					compared["google"]++
					// Which rule decided: Google reports the line; the rule
					// there must have our rule's type and specificity (rules
					// of equal type and length are interchangeable).
					gr := lineRules[gm.MatchingLine()]
					switch {
					case gr == nil || gr.Path == "":
						if d.Rule != nil {
							t.Fatalf("config %d %s/%s %s: ours decided by %v, google by no rule (line %d)\n%s", c, agent, purpose, path, d.Rule, gm.MatchingLine(), body)
						}
					case d.Rule == nil || d.Rule.Type != gr.Type || len(normalise(d.Rule.Path, true)) != len(gr.Path):
						t.Fatalf("config %d %s/%s %s: ours decided by %v, google by %v (line %d)\n%s", c, agent, purpose, path, d.Rule, gr, gm.MatchingLine(), body)
					default:
						compared["google rule"]++
					}
				}
				// temoto: legacy crawlers only.
				if mode == byPurposeToken {
					ex[exTemotoNoMatch]++
					continue
				}
				if mode != byProductToken && prefixGroup(f, agent) {
					ex[exTemotoPrefix]++
					continue
				}
				wild, tie := false, false
				for _, gi := range groups {
					for _, rl := range f.Groups[gi].Rules {
						if strings.ContainsAny(rl.Path, "*$") {
							wild = true
						}
					}
				}
				var seenA, seenD bool
				for _, rl := range rules {
					if len(normalise(rl.Path, true)) == best {
						seenA = seenA || rl.Type == Allow
						seenD = seenD || rl.Type == Disallow
					}
				}
				tie = seenA && seenD
				switch {
				case wild:
					ex[exTemotoWild]++
				case tie:
					ex[exTemotoTie]++
				default:
					tt := tr.TestAgent(path, agent)
					if tt != d.Allowed {
						t.Fatalf("config %d %s %s: ours %v, temoto %v, rule %v\n%s", c, agent, path, d.Allowed, tt, d.Rule, body)
					}
					compared["temoto"]++
				}
			}
		}
	}
	t.Logf("configs: %d; compared: %v", configs, compared)
	for k, v := range ex {
		t.Logf("exception %6d × %s", v, k)
	}
	if compared["google"] < configs || compared["temoto"] < configs/2 || compared["grobotstxt unchanged by preference lines"] < configs/2 || compared["temoto unchanged by License lines"] < configs/2 {
		t.Fatalf("too few comparisons: %v", compared)
	}
}

func hasUsage(f *File) bool {
	for _, g := range f.Groups {
		if len(g.ContentUsage)+len(g.ContentSignal) > 0 {
			return true
		}
	}
	return false
}

// productNamed reports whether some group names token as product token.
func productNamed(f *File, token string) bool {
	for _, g := range f.Groups {
		for _, ua := range g.UserAgents {
			if strings.EqualFold(ua, token) {
				return true
			}
		}
	}
	return false
}

// prefixGroup reports whether a group's product token is a proper prefix of
// agent (ignoring case), which temoto would select.
func prefixGroup(f *File, agent string) bool {
	la := strings.ToLower(agent)
	for _, g := range f.Groups {
		for _, ua := range g.UserAgents {
			lu := strings.ToLower(ua)
			if ua != "*" && lu != la && strings.HasPrefix(la, lu) {
				return true
			}
		}
	}
	return false
}

type witness struct {
	name    string
	allowed func(body, agent, path string) bool
}

// allWitnesses wraps the two parsers; temoto's whole-file errors count as
// "allowed" (a crawler using it would fetch without rules), which the
// measurement test below reports separately.
var allWitnesses = []witness{
	{"grobotstxt", func(body, agent, path string) bool {
		return googleRead(body).allowed(agent, "http://example.com"+path)
	}},
	{"temoto", func(body, agent, path string) bool {
		r := readOnce(&temotoFiles, body, func(body string) *robotstxt.RobotsData {
			r, err := robotstxt.FromString(body)
			if err != nil {
				return nil
			}
			return r
		})
		return r == nil || r.TestAgent(path, agent)
	}},
}

// temotoFiles holds temoto's reading of the files asked about, nil for one it refuses whole.
var temotoFiles onceCache[*robotstxt.RobotsData]

// TestWitnessMeasurements records the witness behaviour that the rendering
// choices in doc.go rest on, so that the choices stay justified.
func TestWitnessMeasurements(t *testing.T) {
	google := allWitnesses[0].allowed
	temoto := allWitnesses[1].allowed

	// 1. An empty "Disallow:" closes a group and allows all in both, and
	//    adds nothing when merged with another group for the same token.
	emptyDisallow := "User-agent: GoodBot\nDisallow:\n\nUser-agent: *\nDisallow: /\n"
	merged := "User-agent: GoodBot\nDisallow:\n\nUser-agent: GoodBot\nDisallow: /\n"
	for _, w := range allWitnesses {
		if !w.allowed(emptyDisallow, "GoodBot", "/x") || w.allowed(emptyDisallow, "OtherBot", "/x") {
			t.Errorf("%s: empty Disallow does not keep GoodBot apart", w.name)
		}
		if w.allowed(merged, "GoodBot", "/x") {
			t.Errorf("%s: empty Disallow changes the merged group", w.name)
		}
	}
	// Without any rule line the groups merge (the hazard).
	noRule := "User-agent: GoodBot\n\nUser-agent: *\nDisallow: /\n"
	for _, w := range allWitnesses {
		if w.allowed(noRule, "GoodBot", "/x") {
			t.Errorf("%s: header-only group no longer merges with the next", w.name)
		}
	}

	// 2. A purpose-only group after another group: temoto attaches its rules
	//    to that group.
	after := "User-agent: FooBot\nAllow: /a\n\nUser-Agent-Purpose: EXAMPLE-PURPOSE-1\nDisallow: /\n"
	if temoto(after, "FooBot", "/x") {
		t.Error("temoto no longer attaches purpose rules to the previous group")
	}
	if !google(after, "FooBot", "/x") {
		t.Error("google: FooBot should be allowed")
	}
	// Google reads the purpose line as a user-agent line.
	if google(after, "EXAMPLE-PURPOSE-1", "/x") {
		t.Error("google no longer reads User-Agent-Purpose as a user-agent line")
	}

	// 3. A purpose-only group first, unguarded: temoto rejects the file.
	if _, err := robotstxt.FromString("User-Agent-Purpose: EXAMPLE-PURPOSE-1\nDisallow: /\n\nUser-agent: *\nDisallow: /a\n"); err == nil {
		t.Error("temoto no longer rejects rules before the first user-agent")
	}

	// 4. Our layout: guard line first. temoto accepts the file and no agent
	//    sees the purpose rules; Google sees them only for the purpose token.
	f := &File{Groups: []Group{
		{UserAgents: []string{"FooBot"}, Rules: []Rule{{Allow, "/a"}}},
		{Purposes: []string{"EXAMPLE-PURPOSE-1"}, Rules: []Rule{{Disallow, "/"}}},
		{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/a"}}},
	}}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	body := string(out)
	if _, err := robotstxt.FromString(body); err != nil {
		t.Fatalf("temoto rejects our layout: %v", err)
	}
	for _, w := range allWitnesses {
		if !w.allowed(body, "FooBot", "/x") || !w.allowed(body, "OtherBot", "/x") || w.allowed(body, "OtherBot", "/a") {
			t.Errorf("%s: purpose group leaks into product groups:\n%s", w.name, body)
		}
		if !w.allowed(body, "robotsgen", "/x") {
			t.Errorf("%s: the guard token matched a prefix agent", w.name)
		}
	}
	if google(body, "EXAMPLE-PURPOSE-1", "/x") {
		t.Error("google: purpose group not seen as the purpose token's group")
	}
}

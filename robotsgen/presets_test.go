package robotsgen

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/usage"
)

func categoryNames(t *testing.T, cat string) (writable, uaOnly []string) {
	t.Helper()
	cs, err := crawlers.Category(cat)
	if err != nil {
		t.Fatal(err)
	}
	return crawlers.RobotsTxtNames(cs)
}

// A preset group renders one User-agent line per writable catalogue name; names that are not
// product tokens never reach the file; Parse reads the expansion back, and Google's parser
// port and the Matcher agree on every name.
func TestPresetRendersCatalogue(t *testing.T) {
	f := &File{Groups: []Group{
		{Presets: []string{"ai-training"}, Rules: []Rule{{Disallow, "/"}}},
		{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/admin/"}}},
	}}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	writable, uaOnly := categoryNames(t, "ai-training")
	body := string(out)
	for _, n := range writable {
		if !strings.Contains(body, "User-agent: "+n+"\n") {
			t.Errorf("no line for %s", n)
		}
	}
	for _, n := range uaOnly {
		if strings.Contains(body, n) {
			t.Errorf("UA-only name %q written", n)
		}
	}
	if got := strings.Count(body, "User-agent: "); got != len(writable)+1 {
		t.Errorf("%d user-agent lines, want %d", got, len(writable)+1)
	}
	back, diags := Parse(out)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if want, _ := f.canonical(""); !reflect.DeepEqual(back, want) {
		t.Errorf("parsed back %+v, want %+v", back, want)
	}
	m := NewMatcher(f)
	for _, n := range append(writable, "Googlebot", "Bingbot") {
		blocked := n != "Googlebot" && n != "Bingbot"
		if d := m.Decide(n, "", "/page"); d.Allowed == blocked {
			t.Errorf("%s /page: %+v", n, d)
		}
		if crawlers.Classify(n) == crawlers.TokenProduct {
			if g := grobotstxt.AgentAllowed(body, n, "/page"); g == blocked {
				t.Errorf("grobotstxt %s /page allowed=%v", n, g)
			}
		}
		if d := m.Decide(n, "", "/admin/x"); d.Allowed {
			t.Errorf("%s /admin/x allowed", n)
		}
	}
}

// An explicitly named crawler keeps its own group: the preset leaves it out, in whatever
// spelling. Presets in one group are deduplicated; two preset groups sharing crawlers both
// list them, and crawlers merge the groups.
func TestPresetExplicitAgentOverrides(t *testing.T) {
	f := &File{Groups: []Group{
		{Presets: []string{"ai-training", "ai-all"}, UserAgents: []string{"ExampleBot"}, Rules: []Rule{{Disallow, "/"}}},
		{UserAgents: []string{"gptbot"}, Rules: []Rule{{Disallow, "/private/"}}},
		{Presets: []string{"ai-search"}, Rules: []Rule{{Disallow, "/search-only/"}}},
	}}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	e := f.Expand(false)
	g0 := e.Groups[0].UserAgents
	if g0[0] != "ExampleBot" || slices.ContainsFunc(g0, func(s string) bool { return strings.EqualFold(s, "GPTBot") }) {
		t.Errorf("group 0 agents %v", g0)
	}
	all, _ := categoryNames(t, "ai-all")
	if len(g0) != len(all)+1-1 { // + ExampleBot - GPTBot
		t.Errorf("group 0: %d agents, want %d", len(g0), len(all))
	}
	m := NewMatcher(f)
	if d := m.Decide("GPTBot", "", "/page"); !d.Allowed {
		t.Errorf("GPTBot overridden: %+v", d)
	}
	if d := m.Decide("GPTBot", "", "/private/x"); d.Allowed {
		t.Errorf("GPTBot /private/: %+v", d)
	}
	// PerplexityBot is in ai-all (group 0) and ai-search (group 2): merged.
	if d := m.Decide("PerplexityBot", "", "/search-only/x"); d.Allowed || d.Group != 0 {
		t.Errorf("PerplexityBot: %+v", d)
	}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	if !grobotstxt.AgentAllowed(string(out), "GPTBot", "/page") || grobotstxt.AgentAllowed(string(out), "PerplexityBot", "/page") {
		t.Errorf("grobotstxt disagrees:\n%s", out)
	}
	// With uaOnly, the UA-only names join their groups for User-Agent matching.
	u := f.Expand(true)
	if !slices.Contains(u.Groups[0].UserAgents, "ChatGPT Agent") {
		t.Errorf("ChatGPT Agent missing from %v", u.Groups[0].UserAgents)
	}
	if d := NewMatcher(u).Decide("ChatGPT Agent", "", "/x"); d.Allowed || d.Group != 0 {
		t.Errorf("ChatGPT Agent: %+v", d)
	}
	// A UA-only name whose leading word the file writes is left to that token: the crawler
	// reads the file as it ("MistralAI-User/1.0" and MistralAI-User, "iaskspider/2.0" and
	// iaskspider, named explicitly or through another preset).
	f2 := &File{Groups: []Group{
		{Presets: []string{"ai-assistants", "ai-search"}, Rules: []Rule{{Disallow, "/"}}},
		{UserAgents: []string{"iaskspider"}, Rules: []Rule{{Allow, "/"}}},
	}}
	u2 := f2.Expand(true).Groups[0].UserAgents
	for _, n := range []string{"MistralAI-User/1.0", "iaskspider/2.0", "quillbot.com"} {
		if slices.Contains(u2, n) {
			t.Errorf("%s in %v", n, u2)
		}
	}
	if !slices.Contains(u2, "ChatGPT Agent") || !slices.Contains(u2, "MistralAI-User") {
		t.Errorf("agents %v", u2)
	}
	// f itself is unchanged.
	if f.Groups[0].Presets == nil || len(f.Groups[0].UserAgents) != 1 {
		t.Errorf("Expand modified f: %+v", f.Groups[0])
	}
}

// Names with digits are accepted, warned about, rendered, and read back whole.
func TestDigitTokens(t *testing.T) {
	f := &File{Groups: []Group{{UserAgents: []string{"AI2Bot", "360Spider", "GoodBot"}, Rules: []Rule{{Disallow, "/"}}}}}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	w := f.Warnings()
	if len(w) != 2 || w[0].Path != "groups[0].user_agents[0]" || w[1].Value != "360Spider" || !strings.Contains(w[0].Problem, "first digit") {
		t.Errorf("warnings %v", w)
	}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	back, diags := Parse(out)
	if len(diags) != 0 || !reflect.DeepEqual(back.Groups[0].UserAgents, f.Groups[0].UserAgents) {
		t.Errorf("parsed back %v, %v", back.Groups[0].UserAgents, diags)
	}
	if d := NewMatcher(back).Decide("ai2bot", "", "/x"); d.Allowed {
		t.Errorf("ai2bot allowed")
	}
	// A preset's names with digits are the catalogue's: no warning.
	if w := (&File{Groups: []Group{{Presets: []string{"ai-all"}, Rules: []Rule{{Disallow, "/"}}}}}).Warnings(); len(w) != 0 {
		t.Errorf("preset warnings %v", w)
	}
}

// TestEmptyPresetGroupWarned: a preset group with nothing in it allows every path to a whole
// category, which is almost always a forgotten block (found by review: "preset ai-training"
// without "{ disallow / }" loaded silently); a group that says anything is not warned about.
func TestEmptyPresetGroupWarned(t *testing.T) {
	w := (&File{Groups: []Group{{Presets: []string{"ai-training", "ai-search"}}}}).Warnings()
	if len(w) != 1 || w[0].Path != "groups[0].presets" || w[0].Value != "ai-training ai-search" || !strings.Contains(w[0].Problem, "add disallow /") {
		t.Errorf("warnings %v", w)
	}
	for _, g := range []Group{
		{Presets: []string{"ai-training"}, Rules: []Rule{{Allow, "/"}}},
		{Presets: []string{"ai-training"}, CrawlDelay: 5},
		{Presets: []string{"ai-training"}, ContentUsage: []usage.Rule{{Preferences: map[string]string{"train-ai": "n"}}}},
		{UserAgents: []string{"Googlebot"}}, // an exemption from the * group, often meant
	} {
		if w := (&File{Groups: []Group{g}}).Warnings(); len(w) != 0 {
			t.Errorf("%+v: warnings %v", g, w)
		}
	}
}

// A preset group's Except leaves those crawlers out of it, in any spelling: they read the
// groups that still address them, here "*", as both witnesses confirm on the rendered file,
// while the preset's other crawlers stay disallowed. A crawler left out of one preset group
// keeps another that addresses it.
func TestPresetExcept(t *testing.T) {
	f := &File{Groups: []Group{
		{Presets: []string{"ai-training"}, Except: []string{"googleother", "Meta-ExternalAgent"}, Rules: []Rule{{Disallow, "/"}}},
		{Presets: []string{"ai-search"}, Except: []string{"Applebot"}, Rules: []Rule{{Disallow, "/answers/"}}},
		{Presets: []string{"ai-all"}, Except: []string{"GoogleOther", "Applebot"}, Rules: []Rule{{Disallow, "/all/"}}},
		{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/private/"}}},
	}}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	body := string(out)
	for _, gone := range []string{"User-agent: GoogleOther\n", "User-agent: Applebot\n", "User-agent: meta-externalagent\n"} {
		if strings.Contains(body, gone) {
			t.Errorf("%q written:\n%s", gone, body)
		}
	}
	// A name that only shares a prefix with an excluded one stays (Applebot-Extended).
	if !strings.Contains(body, "User-agent: Applebot-Extended\n") || !strings.Contains(body, "User-agent: GPTBot\n") {
		t.Errorf("preset crawlers missing:\n%s", body)
	}
	back, diags := Parse(out)
	if want, _ := f.canonical(""); len(diags) != 0 || !reflect.DeepEqual(back, want) {
		t.Errorf("parsed back %+v (%v), want %+v", back, diags, want)
	}
	m := NewMatcher(f)
	for _, c := range []struct {
		agent, path string
		allowed     bool
	}{
		{"GoogleOther", "/page", true},          // left out of ai-training and ai-all: "*"
		{"GoogleOther", "/private/x", false},    // "*"
		{"GoogleOther", "/all/x", true},         // left out of ai-all too
		{"GPTBot", "/page", false},              // still in ai-training
		{"meta-externalagent", "/page", true},   // left out of ai-training in either spelling
		{"Meta-ExternalAgent", "/all/x", false}, // but not of ai-all
		{"Applebot", "/answers/x", true},        // left out of ai-search and ai-all
		{"Applebot", "/private/x", false},
		{"PerplexityBot", "/answers/x", false}, // ai-search and ai-all, merged
		{"PerplexityBot", "/all/x", false},
		{"PerplexityBot", "/private/x", true}, // its groups do not include "*"
	} {
		if d := m.Decide(c.agent, "", c.path); d.Allowed != c.allowed {
			t.Errorf("matcher: %s %s: %+v, want allowed=%v", c.agent, c.path, d, c.allowed)
		}
		for _, w := range allWitnesses {
			if got := w.allowed(body, c.agent, c.path); got != c.allowed {
				t.Errorf("%s: %s %s allowed=%v, want %v", w.name, c.agent, c.path, got, c.allowed)
			}
		}
	}

	// A crawler left out of one preset group keeps another that addresses it: GoogleOther is
	// in ai-training's group, not ai-all's.
	f2 := &File{Groups: []Group{
		{Presets: []string{"ai-all"}, Except: []string{"GoogleOther"}, Rules: []Rule{{Disallow, "/"}}},
		{Presets: []string{"ai-training"}, Rules: []Rule{{Disallow, "/training/"}}},
	}}
	body2 := string(mustRender(t, f2))
	m2 := NewMatcher(f2)
	for _, c := range []struct {
		agent, path string
		allowed     bool
	}{{"GoogleOther", "/page", true}, {"GoogleOther", "/training/x", false}, {"GPTBot", "/page", false}, {"PerplexityBot", "/page", false}} {
		if d := m2.Decide(c.agent, "", c.path); d.Allowed != c.allowed {
			t.Errorf("f2 matcher: %s %s: %+v", c.agent, c.path, d)
		}
		for _, w := range allWitnesses {
			if got := w.allowed(body2, c.agent, c.path); got != c.allowed {
				t.Errorf("f2 %s: %s %s allowed=%v", w.name, c.agent, c.path, got)
			}
		}
	}
	if d := m2.Decide("GoogleOther", "", "/training/x"); d.Group != 1 {
		t.Errorf("GoogleOther decided by group %d, want 1", d.Group)
	}

	// For enforcement (Expand(true)): a name never written to robots.txt can be left out, and
	// leaving out a crawler's token leaves out its other names that a parser reads as that
	// token (MistralAI-User/1.0 reads robots.txt as MistralAI-User).
	f3 := &File{Groups: []Group{{Presets: []string{"ai-assistants"}, Except: []string{"chatgpt agent", "MistralAI-User"}, Rules: []Rule{{Disallow, "/"}}}}}
	if err := f3.Validate(); err != nil {
		t.Fatal(err)
	}
	u := f3.Expand(true).Groups[0].UserAgents
	for _, n := range []string{"ChatGPT Agent", "MistralAI-User", "MistralAI-User/1.0"} {
		if slices.Contains(u, n) {
			t.Errorf("%s in %v", n, u)
		}
	}
	if !slices.Contains(u, "ChatGPT-User") {
		t.Errorf("ChatGPT-User missing from %v", u)
	}
	if d := NewMatcher(f3.Expand(true)).Decide("MistralAI-User/1.0", "", "/x"); !d.Allowed || d.Group != -1 {
		t.Errorf("MistralAI-User/1.0: %+v", d)
	}
	// f itself is unchanged.
	if len(f.Groups[0].Except) != 2 || f.Expand(false).Groups[0].Except != nil {
		t.Errorf("Expand: %+v", f.Groups[0])
	}
}

// Except errors name the field, the presets searched and the closest crawler of them; a name
// the group addresses itself contradicts the exclusion.
func TestPresetExceptErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		g    Group
		want []string
	}{
		{"misspelt", Group{Presets: []string{"ai-training"}, Except: []string{"GPTBot", "GoogleOthr"}},
			[]string{`groups[0].except[1] "GoogleOthr": no crawler of the presets (ai-training) has this name`, `(did you mean "GoogleOther"?)`}},
		{"lower case suggestion keeps the catalogue's spelling", Group{Presets: []string{"ai-search", "ai-assistants"}, Except: []string{"aplebot"}},
			[]string{`groups[0].except[0] "aplebot": no crawler of the presets (ai-search, ai-assistants)`, `(did you mean "Applebot"?)`}},
		{"in another category", Group{Presets: []string{"ai-training"}, Except: []string{"applebot"}},
			[]string{`groups[0].except[0] "applebot": Applebot is a crawler of ai-all, ai-search, not of the presets it would be left out of (ai-training)`}},
		{"not a crawler at all", Group{Presets: []string{"ai-training"}, Except: []string{"Googlebot"}},
			[]string{`groups[0].except[0] "Googlebot": this is not a crawler of the AI catalogue (it is the well-known bot google-crawler), so no preset addresses it`}},
		{"no preset", Group{UserAgents: []string{"GPTBot"}, Except: []string{"GPTBot"}},
			[]string{`groups[0].except[0] "GPTBot": except leaves crawlers out of the presets beside it, and there are none here`}},
		{"own user agent", Group{UserAgents: []string{"gptbot"}, Presets: []string{"ai-training"}, Except: []string{"GPTBot"}},
			[]string{`groups[0].except[0] "GPTBot": the group names this crawler as its own user agent too (user_agents[0])`}},
		{"everything left out", Group{Presets: []string{"ai-training"}, Except: trainingNames(t)},
			[]string{"groups[0].presets: the presets add no crawler", "left out by except"}},
	} {
		c.g.Rules = []Rule{{Disallow, "/"}}
		err := (&File{Groups: []Group{c.g}}).Validate()
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant %q", c.name, err, w)
			}
		}
		if c.name == "not a crawler at all" && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%s: suggestion in %v", c.name, err)
		}
	}
	// An unknown preset is reported once, for the preset: its names cannot be searched.
	err := (&File{Groups: []Group{{Presets: []string{"ai-trainnig"}, Except: []string{"GPTBot"}, Rules: []Rule{{Disallow, "/"}}}}}).Validate()
	if err == nil || strings.Contains(err.Error(), "except") {
		t.Errorf("unknown preset: %v", err)
	}
	// Excluding a crawler another group names is redundant, not an error; so is a repeat.
	if err := (&File{Groups: []Group{
		{Presets: []string{"ai-training"}, Except: []string{"GPTBot", "gptbot"}, Rules: []Rule{{Disallow, "/"}}},
		{UserAgents: []string{"GPTBot"}, Rules: []Rule{{Disallow, "/x/"}}},
	}}).Validate(); err != nil {
		t.Error(err)
	}
}

func trainingNames(t *testing.T) []string {
	w, u := categoryNames(t, "ai-training")
	return append(w, u...)
}

// genExcept returns one to three names of the category's crawlers for Group.Except: names of
// prefer that the category holds, when it holds any, and now and then any of its names (those
// never written to robots.txt included), sometimes in lower case.
func genExcept(r *rand.Rand, category string, prefer []string) []string {
	cs, err := crawlers.Category(category)
	if err != nil {
		panic(err)
	}
	writable, uaOnly := crawlers.RobotsTxtNames(cs)
	all := append(writable, uaOnly...)
	var pool []string
	for _, p := range prefer {
		if slices.ContainsFunc(all, func(n string) bool { return strings.EqualFold(n, p) }) {
			pool = append(pool, p)
		}
	}
	if len(pool) == 0 || r.IntN(4) == 0 {
		pool = all
	}
	var out []string
	for range 1 + r.IntN(3) {
		n := pick(r, pool)
		if r.IntN(5) == 0 {
			n = strings.ToLower(n)
		}
		out = append(out, n)
	}
	return out
}

// exceptAgents are crawlers the exclusion property test leaves out and asks about: in one
// category or several, and one in none.
var exceptAgents = []string{"GoogleOther", "Applebot", "GPTBot", "PerplexityBot", "ClaudeBot", "ChatGPT-User", "CCBot", "Meta-ExternalAgent", "OtherBot"}

// exceptOracle is the test's own statement of the groups a crawler obeys in a file with
// presets and exclusions, read from the config, not from Expand: the groups naming it, else
// the preset groups holding it that do not leave it out, else "*".
func exceptOracle(f *File, agent string) []int {
	var named, presets, star []int
	for gi, g := range f.Groups {
		if slices.ContainsFunc(g.UserAgents, func(ua string) bool { return strings.EqualFold(ua, agent) }) {
			named = append(named, gi)
		}
		if slices.Contains(g.UserAgents, "*") {
			star = append(star, gi)
		}
		if slices.ContainsFunc(g.Except, func(e string) bool { return strings.EqualFold(e, agent) }) {
			continue
		}
		for _, p := range g.Presets {
			cs, _ := crawlers.Category(p)
			if slices.ContainsFunc(cs, func(c crawlers.Crawler) bool { return strings.EqualFold(c.Name, agent) }) {
				presets = append(presets, gi)
				break
			}
		}
	}
	switch {
	case len(named) > 0:
		return named
	case len(presets) > 0:
		return presets
	}
	return star
}

// TestPresetExceptProperty: over generated files of preset groups with exclusions, groups
// naming catalogue crawlers and "*" groups, every crawler asked about (left out or not)
// obeys exactly the groups exceptOracle gives: the Matcher picks them, and on the rendered
// file both witnesses decide as they do on a file holding only those groups' rules for that
// crawler (so the witnesses' own readings of patterns cancel out).
func TestPresetExceptProperty(t *testing.T) {
	t.Parallel() // a long property test: the others run beside it
	configs := 2000
	if testing.Short() || raceEnabled {
		configs = 200
	}
	if raceEnabled {
		// Under the race detector only races are looked for: the first 50 cases of the
		// same seed, all of which the full-size run without -race (./test.sh) checks too.
		configs = 50
	}
	r := rand.New(rand.NewPCG(9309, 7))
	n := map[string]int{}
	genRules := func() []Rule {
		var rs []Rule
		for range r.IntN(4) {
			rs = append(rs, Rule{[]RuleType{Allow, Disallow, Disallow}[r.IntN(3)], genPattern(r)})
		}
		return rs
	}
	for c := range configs {
		f := &File{}
		for range 1 + r.IntN(4) {
			var g Group
			switch r.IntN(4) {
			case 0, 1:
				g.Presets = []string{pick(r, presetCategories)}
				if r.IntN(3) == 0 {
					g.Presets = append(g.Presets, pick(r, presetCategories))
				}
				if r.IntN(4) != 0 {
					g.Except = genExcept(r, pick(r, g.Presets), exceptAgents)
				}
				if r.IntN(4) == 0 {
					g.UserAgents = []string{"FooBot"}
				}
			case 2:
				g.UserAgents = []string{pick(r, exceptAgents)}
			default:
				g.UserAgents = []string{"*"}
			}
			g.Rules = genRules()
			f.Groups = append(f.Groups, g)
		}
		if err := f.Validate(); err != nil {
			n["configs refused"]++ // every crawler of a preset left out or named elsewhere
			continue
		}
		body := string(mustRender(t, f))
		m := NewMatcher(f)
		expanded := f.Expand(false)
		for _, agent := range exceptAgents {
			groups := exceptOracle(f, agent)
			ref := &File{}
			for _, gi := range groups {
				ref.Groups = append(ref.Groups, Group{UserAgents: []string{agent}, Rules: f.Groups[gi].Rules})
			}
			rm := NewMatcher(ref)
			refBody := string(mustRender(t, ref))
			excluded := slices.ContainsFunc(f.Groups, func(g Group) bool {
				return slices.ContainsFunc(g.Except, func(e string) bool { return strings.EqualFold(e, agent) })
			})
			for range 4 {
				path := genPath(r)
				d := m.Decide(agent, "", path)
				want := -1
				if len(groups) > 0 {
					want = groups[0]
				}
				if d.Group != want || d.Allowed != rm.Decide(agent, "", path).Allowed {
					t.Fatalf("config %d: %s %s: %+v, want group %d allowed %v\n%s", c, agent, path, d, want, rm.Decide(agent, "", path).Allowed, body)
				}
				for _, w := range allWitnesses {
					if w.name == "temoto" && prefixGroup(expanded, agent) {
						n["temoto: a prefix of the name has a group"]++
						continue
					}
					if got, ref := w.allowed(body, agent, path), w.allowed(refBody, agent, path); got != ref {
						t.Fatalf("config %d: %s: %s %s allowed=%v, but %v with only its groups' rules\n%s\n--- only its groups\n%s", c, w.name, agent, path, got, ref, body, refBody)
					}
					n[w.name+" compared"]++
					if excluded {
						n[w.name+" compared for a crawler left out"]++
						if !d.Allowed && len(groups) > 0 && slices.Contains(f.Groups[groups[0]].UserAgents, "*") {
							n["left out, then disallowed by *"]++
						}
					}
				}
			}
		}
	}
	t.Logf("configs: %d; %v", configs, n)
	if n["grobotstxt compared for a crawler left out"] < configs || n["temoto compared for a crawler left out"] < configs/2 || n["configs refused"] > configs/10 {
		t.Errorf("too few interesting comparisons: %v", n)
	}
}

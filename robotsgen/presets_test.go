package robotsgen

import (
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

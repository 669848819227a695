package tagemit

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// A preset key gives its rules to every writable name of the category, one member each,
// joined with the rules a token has otherwise; names with digits are accepted everywhere a
// token is, with a warning for those a user writes.
func TestPresetKey(t *testing.T) {
	p, err := NewPolicy(map[string][]string{
		"preset:AI-Training": {"noindex"},
		"GPTBot":             {"nosnippet"},
		"AI2Bot":             {"noarchive"},
		"*":                  {"noimageindex"},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := crawlers.Category("ai-training")
	writable, uaOnly := crawlers.RobotsTxtNames(cs)
	rules := p.Rules()
	for _, n := range writable {
		if r := rules[strings.ToLower(n)]; len(r) == 0 || r[0] != "noindex" {
			t.Errorf("%s: %v", n, r)
		}
	}
	for _, n := range uaOnly {
		if _, ok := rules[strings.ToLower(n)]; ok {
			t.Errorf("UA-only %q became a token", n)
		}
	}
	if got := strings.Join(rules["gptbot"], ","); got != "noindex,nosnippet" {
		t.Errorf("gptbot: %s", got)
	}
	if got := strings.Join(rules["ai2bot"], ","); got != "noindex,noarchive" {
		t.Errorf("ai2bot: %s", got)
	}
	if len(rules) != len(writable)+1 {
		t.Errorf("%d tokens, want %d", len(rules), len(writable)+1)
	}
	// The header reads back to the same policy, tokens with digits included.
	q, errs := ParseRobotsTag([]string{p.RobotsTag()})
	if len(errs) != 0 || !q.Equal(p) {
		t.Errorf("re-parse: %v %v", q, errs)
	}
	if !strings.Contains(p.RobotsTag(), "ai2bot;noindex;noarchive") {
		t.Errorf("header %s", p.RobotsTag())
	}
	w := Warnings(map[string][]string{"AI2Bot": {"noindex"}, "preset:ai-all": {"noindex"}, "GPTBot": {"noindex"}, "360Spider": {"noindex"}})
	if len(w) != 2 || w[0].Path != `["360Spider"]` || w[1].Value != "AI2Bot" || !strings.Contains(w[0].Problem, "first digit") {
		t.Errorf("warnings %v", w)
	}
}

// NewPolicyExcept leaves the named crawlers out of every preset, in any spelling: they keep
// only the rules of their own token and of "*". CheckExcept refuses a name no preset holds,
// and one that is never a token.
func TestPresetExcept(t *testing.T) {
	rules := map[string][]string{
		"preset:ai-search":   {"noindex"},
		"preset:ai-training": {"noarchive"},
		"googleother":        {"nosnippet"},
		"*":                  {"max-image-preview=large"},
	}
	except := []string{"Applebot", "GoogleOther", "gptbot"}
	if err := CheckExcept(rules, except); err != nil {
		t.Fatal(err)
	}
	p, err := NewPolicyExcept(rules, except)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Rules()
	for tok, want := range map[string]string{
		"applebot":      "", // no member: "*" only
		"gptbot":        "",
		"googleother":   "nosnippet", // its own rules, not the preset's
		"perplexitybot": "noindex",   // ai-search
		"ccbot":         "noarchive", // ai-training
	} {
		if r := strings.Join(got[tok], ","); r != want {
			t.Errorf("%s: %q, want %q", tok, r, want)
		}
	}
	all, err := NewPolicy(rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Rules())-len(got) != 2 { // applebot and gptbot; googleother keeps a member
		t.Errorf("%d tokens with exclusions, %d without", len(got), len(all.Rules()))
	}
	for _, c := range []struct {
		except []string
		want   string
	}{
		{[]string{"GPTBot", "Aplebot"}, `[1] "Aplebot": no crawler of the presets (ai-search, ai-training) has this name: except takes crawler names as the catalogue writes them (case aside) (did you mean "Applebot"?)`},
		{[]string{"ChatGPT-User"}, `[0] "ChatGPT-User": ChatGPT-User is a crawler of ai-all, ai-assistants, not of the presets it would be left out of (ai-search, ai-training)`},
		{[]string{"Kangaroo Bot"}, `[0] "Kangaroo Bot": this name is never a Robots-Tag token`},
	} {
		if err := CheckExcept(rules, c.except); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v\nwant %s", c.except, err, c.want)
		}
	}
	if err := CheckExcept(map[string][]string{"*": {"noindex"}}, []string{"GPTBot"}); err == nil || !strings.Contains(err.Error(), "there are none here") {
		t.Errorf("without presets: %v", err)
	}
}

// A route's preset and a robots.txt group's expand to the same crawlers (crawlers
// .PresetCrawlers, the one expansion): for random categories and exclusions, the tokens a
// "preset:" key gives rules to are the user agents robotsgen writes for a group with that
// preset and except, as tokens (lower case).
func TestPresetExpandsAsRobotsTxt(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	all := crawlers.All()
	for range 200 {
		cat := crawlers.Categories()[r.IntN(len(crawlers.Categories()))]
		var except []string
		for range r.IntN(5) {
			n := all[r.IntN(len(all))].Name
			if r.IntN(2) == 0 {
				n = strings.ToUpper(crawlers.LeadingToken(n))
			}
			except = append(except, n)
		}
		p, err := NewPolicyExcept(map[string][]string{PresetPrefix + cat: {"noindex"}}, except)
		if err != nil {
			t.Fatal(err)
		}
		var tokens []string
		for tok := range p.Rules() {
			tokens = append(tokens, tok)
		}
		f := (&robotsgen.File{Groups: []robotsgen.Group{{Presets: []string{cat}, Except: except}}}).Expand(false)
		var agents []string
		for _, ua := range f.Groups[0].UserAgents {
			agents = append(agents, strings.ToLower(ua))
		}
		slices.Sort(tokens)
		slices.Sort(agents)
		if len(tokens) == 0 || !slices.Equal(tokens, agents) {
			t.Fatalf("preset %s except %q: Robots-Tag tokens %q, robots.txt user agents %q", cat, except, tokens, agents)
		}
	}
}

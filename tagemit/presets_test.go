package tagemit

import (
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
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

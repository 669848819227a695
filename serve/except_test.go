package serve_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/fixture"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
)

// TestEnforcePresetExcept: the crawlers a preset leaves out are not in the served file's
// preset group and are not refused by its rules, alone and merged with the CMS's file (where
// the CMS's own group for one of them is enforced); the preset's other crawlers still are.
func TestEnforcePresetExcept(t *testing.T) {
	for _, withCMS := range []bool{false, true} {
		rt := fixture.PresetExcept(t)
		if withCMS {
			rt.MergeFile = newMergeFile(t, cmsRobots).path
		}
		s := startH1(t, frontEnd(mustCore(t, policy.Config{RobotsTxt: rt}), http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
		resp, body := s.do(t, "GET", "/robots.txt")
		if resp.StatusCode != 200 || !strings.Contains(string(body), "User-agent: GPTBot\n") {
			t.Fatalf("robots.txt %d:\n%s", resp.StatusCode, body)
		}
		for _, gone := range []string{"GoogleOther\n", "Kangaroo"} {
			if strings.Contains(string(body), gone) {
				t.Errorf("with CMS %v: %q in the served file:\n%s", withCMS, gone, body)
			}
		}
		if got := strings.Contains(string(body), "User-agent: CCBot\n"); got != withCMS {
			t.Errorf("with CMS %v: CCBot in the served file %v:\n%s", withCMS, got, body)
		}
		for _, c := range fixture.ExceptCases {
			want := c.Alone
			if withCMS {
				want = c.WithCMS
			}
			resp, _ := s.do(t, "GET", c.Path, "User-Agent", c.UA)
			if got := resp.StatusCode == 403; got != want {
				t.Errorf("with CMS %v: %q %s: status %d, want refused %v", withCMS, c.UA, c.Path, resp.StatusCode, want)
			}
		}
	}
}

// A name the preset does not hold is refused when the config loads, at its field, with the
// closest crawler of the presets searched.
func TestPresetExceptConfigError(t *testing.T) {
	rt := fixture.PresetExcept(t)
	rt.Groups[0].Except = append(rt.Groups[0].Except, "GoogleOthr")
	_, err := serve.New(policy.Config{RobotsTxt: rt}, serve.Options{})
	var ce *configerr.Error
	if !errors.As(err, &ce) || ce.Path != "robots_txt.groups[0].except[3]" || ce.Suggestion != "GoogleOther" || !strings.Contains(ce.Problem, "(ai-training)") {
		t.Fatalf("error %v (%+v)", err, ce)
	}
}

// TestRobotsTagPresetExcept: a robots_tag route's except leaves crawlers out of its presets'
// members: Applebot reads only the "*" rules, GoogleOther only its own, while the presets'
// other crawlers get theirs; a name no preset holds is refused at robots_tag[i].except[j].
func TestRobotsTagPresetExcept(t *testing.T) {
	tags := policy.Tags{
		Rules:  map[string][]string{"preset:ai-search": {"noindex"}, "preset:ai-training": {"noarchive"}, "GoogleOther": {"nosnippet"}, "*": {"max-image-preview=large"}},
		Except: []string{"applebot", "GoogleOther"},
	}
	c := mustCore(t, policy.Config{RobotsTag: []policy.Route{{Tags: tags}}})
	s := startH1(t, frontEnd(c, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
	})))
	resp, _ := s.do(t, "GET", "/page")
	p := robotsTag(t, resp.Header)
	for tok, want := range map[string]string{
		"Applebot":      "max-image-preview=large",
		"GoogleOther":   "max-image-preview=large nosnippet",
		"PerplexityBot": "max-image-preview=large noindex",
		"GPTBot":        "max-image-preview=large noarchive",
	} {
		got := p.RulesFor(tok)
		slices.Sort(got)
		if strings.Join(got, " ") != want {
			t.Errorf("%s: %v, want %s", tok, got, want)
		}
	}
	if _, ok := p.Rules()["applebot"]; ok {
		t.Errorf("applebot has a member: %s", p.RobotsTag())
	}
	tags.Except = []string{"Applebot", "GoogleOthr"}
	_, err := serve.New(policy.Config{RobotsTag: []policy.Route{{Tags: tags}}}, serve.Options{})
	var ce *configerr.Error
	if !errors.As(err, &ce) || ce.Path != "robots_tag[0].except[1]" || ce.Suggestion != "GoogleOther" || !strings.Contains(ce.Problem, "(ai-search, ai-training)") {
		t.Fatalf("error %v (%+v)", err, ce)
	}
}

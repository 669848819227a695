package nethttp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/internal/fixture"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// TestPresetExceptFromJSON: "except" in a preset group of the JSON config leaves those
// crawlers out of the served group and out of enforcement by its rules, alone and merged at
// serve time with the backend's CMS file; the preset's other crawlers are still refused.
func TestPresetExceptFromJSON(t *testing.T) {
	for _, withCMS := range []bool{false, true} {
		cfg := fixture.PresetExceptJSON
		if withCMS {
			cfg = strings.Replace(cfg, `"enforce": {}`, `"enforce": {}, "merge_upstream": true`, 1)
		}
		m, err := nethttp.NewFromJSON([]byte(cfg), nethttp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				serveText(cmsRobots)(w, r)
			}
		}))
		resp, body := get(t, nil, "GET", srv.URL+"/robots.txt")
		if resp.StatusCode != 200 || strings.Contains(string(body), "User-agent: GoogleOther\n") || !strings.Contains(string(body), "User-agent: GPTBot\n") {
			t.Fatalf("robots.txt %d:\n%s", resp.StatusCode, body)
		}
		for _, c := range fixture.ExceptCases {
			want := c.Alone
			if withCMS {
				want = c.WithCMS
			}
			if resp, _ := get(t, nil, "GET", srv.URL+c.Path, "User-Agent", c.UA); (resp.StatusCode == 403) != want {
				t.Errorf("with CMS %v: %q %s: status %d, want refused %v", withCMS, c.UA, c.Path, resp.StatusCode, want)
			}
		}
	}
}

// A misspelt or contradictory exclusion is refused with its JSON path.
func TestPresetExceptJSONErrors(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{`"ccbot"`, `"ccbt"`, `robots_txt.groups[0].except[1] "ccbt": no crawler of the presets (ai-training) has this name: except takes crawler names as the catalogue writes them (case aside) (did you mean "CCBot"?)`},
		{`{"presets": ["ai-training"]`, `{"user_agents": ["ccbot"], "presets": ["ai-training"]`, `robots_txt.groups[0].except[1] "ccbot": the group names this crawler as its own user agent too (user_agents[0])`},
	} {
		_, err := nethttp.NewFromJSON([]byte(strings.Replace(fixture.PresetExceptJSON, c.old, c.new, 1)), nethttp.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v\nwant %s", c.new, err, c.want)
		}
	}
}

// A robots_tag route's "except" leaves crawlers out of its presets' members; a name its
// presets do not hold is refused at robots_tag[i].except[j].
func TestRobotsTagExceptFromJSON(t *testing.T) {
	m, err := nethttp.NewFromJSON([]byte(`{"robots_tag": [{"rules": {"preset:ai-search": ["noindex"], "*": ["noarchive"]}, "except": ["applebot"]}]}`), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp, _ := get(t, nil, "GET", serve(t, m, http.HandlerFunc(okHandler)).URL+"/page")
	p := parseRobotsTag(t, resp.Header)
	if got := strings.Join(p.RulesFor("Applebot"), ","); got != "noarchive" {
		t.Errorf("Applebot: %s", got)
	}
	if got := strings.Join(p.RulesFor("PerplexityBot"), ","); got != "noindex,noarchive" {
		t.Errorf("PerplexityBot: %s", got)
	}
	_, err = nethttp.NewFromJSON([]byte(`{"robots_tag": [{"rules": {"preset:ai-search": ["noindex"]}, "except": ["GPTBot"]}]}`), nethttp.Options{})
	if want := `robots_tag[0].except[0] "GPTBot": GPTBot is a crawler of ai-all, ai-training, not of the presets it would be left out of (ai-search)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/jimsmart/grobotstxt"
	"github.com/temoto/robotstxt"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// presetSite is the "Block AI crawlers" recipe of docs/ai-usage.md plus a * group, with
// handle_errors to show that a blocked request goes through Caddy's error handling, and robots
// tags for the same preset.
const presetSite = `
http://localhost:@PORT@ {
	robots_txt {
		preset ai-training ai-search {
			disallow /
		}
		group * {
			disallow /admin/
		}
		enforce
	}
	robots_tag {
		preset ai-training noindex
	}
	respond "page {http.request.uri.path}" 200
	handle_errors {
		respond "blocked: {err.status_code}"
	}
}
`

const (
	chromeUA    = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	gptbotUA    = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	bingbotUA   = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
)

func TestPresetsAndEnforcement(t *testing.T) {
	startCaddyfile(t, presetSite)

	// robots.txt: one User-agent line per writable crawler of the two categories, read by
	// both witness parsers as meant.
	resp, body := do(t, "GET", siteURL("/robots.txt"), "User-Agent: "+gptbotUA)
	wantStatus(t, resp, 200)
	file := string(body)
	var want []string
	for _, cat := range []string{crawlers.AITraining, crawlers.AISearch} {
		cs, _ := crawlers.Category(cat)
		w, uaOnly := crawlers.RobotsTxtNames(cs)
		want = append(want, w...)
		for _, n := range uaOnly {
			if strings.Contains(file, n) {
				t.Errorf("UA-only name %q in robots.txt", n)
			}
		}
	}
	for _, n := range want {
		if !strings.Contains(file, "User-agent: "+n+"\n") {
			t.Errorf("no User-agent line for %s", n)
		}
	}
	temoto, err := robotstxt.FromBytes(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(want, "Googlebot", "Bingbot") {
		allowed := n == "Googlebot" || n == "Bingbot"
		if crawlers.Classify(n) == crawlers.TokenProduct {
			if g := grobotstxt.AgentAllowed(file, n, "/article"); g != allowed {
				t.Errorf("grobotstxt %s /article: %v", n, g)
			}
		}
		if g := temoto.TestAgent("/article", n); g != allowed {
			t.Errorf("temoto %s /article: %v", n, g)
		}
		if grobotstxt.AgentAllowed(file, n, "/admin/x") {
			t.Errorf("grobotstxt %s /admin/x allowed", n)
		}
	}

	// Enforcement: crawlers the file disallows get 403 through handle_errors; browsers and
	// search engines get the page; robots.txt itself is always served.
	for _, c := range []struct {
		ua, path string
		status   int
		body     string
	}{
		{gptbotUA, "/article", 403, "blocked: 403"},
		{"CCBot/2.0 (https://commoncrawl.org/faq/)", "/", 403, "blocked: 403"},
		{"Mozilla/5.0 (compatible; Linguee Bot; +http://www.linguee.com/bot)", "/article", 403, "blocked: 403"}, // a name never written to robots.txt
		{"Mozilla/5.0 (compatible) ChatGPT Agent", "/article", 200, "page /article"},                            // ai-assistants: not in these presets
		{gptbotUA, "/robots.txt", 200, ""},
		{chromeUA, "/article", 200, "page /article"},
		{chromeUA, "/admin/x", 200, "page /admin/x"},
		{googlebotUA, "/article", 200, "page /article"},
		{bingbotUA, "/article", 200, "page /article"},
	} {
		resp, body := do(t, "GET", siteURL(c.path), "User-Agent: "+c.ua)
		if resp.StatusCode != c.status || (c.body != "" && string(body) != c.body) {
			t.Errorf("%q %s: %d %q, want %d %q", c.ua, c.path, resp.StatusCode, body, c.status, c.body)
		}
	}

	// Robots tags for the preset: one member per writable crawler of ai-training.
	resp, _ = do(t, "GET", siteURL("/article"), "User-Agent: "+chromeUA)
	cs, _ := crawlers.Category(crawlers.AITraining)
	w, _ := crawlers.RobotsTxtNames(cs)
	rules := map[string][]string{}
	for _, n := range w {
		rules[n] = []string{"noindex"}
	}
	wantRobotsTag(t, resp, tagPolicy(t, rules))
}

// The Caddyfile adapts to the handler JSON that nethttp reads unchanged.
func TestPresetsJSONSameInBothFrontEnds(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	out, _, err := adapter.Adapt([]byte(globals()+expand(presetSite)), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Routes []struct {
						Handle []struct {
							Routes []struct {
								Handle []json.RawMessage `json:"handle"`
							} `json:"routes"`
						} `json:"handle"`
					} `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	var txt, tag string
	for _, s := range cfg.Apps.HTTP.Servers {
		for _, r := range s.Routes {
			for _, h := range r.Handle {
				for _, sr := range h.Routes {
					for _, raw := range sr.Handle {
						switch s := string(raw); {
						case strings.Contains(s, `"handler":"robots_txt"`):
							txt = s
						case strings.Contains(s, `"handler":"robots_tag"`):
							tag = s
						}
					}
				}
			}
		}
	}
	for _, want := range []string{`"presets":["ai-training","ai-search"]`, `"enforce":{}`} {
		if !strings.Contains(txt, want) {
			t.Errorf("robots_txt handler %s lacks %s", txt, want)
		}
	}
	if !strings.Contains(tag, `"preset:ai-training":["noindex"]`) {
		t.Errorf("robots_tag handler %s", tag)
	}
	// The same objects without Caddy's "handler" key are nethttp's.
	strip := func(s string) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "handler")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	doc := `{"robots_txt":` + strip(txt) + `,"robots_tag":[` + strip(tag) + `]}`
	if _, err := nethttp.NewFromJSON([]byte(doc), nethttp.Options{}); err != nil {
		t.Fatalf("nethttp refuses the adapted JSON %s: %v", doc, err)
	}
}

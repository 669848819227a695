package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
	"github.com/temoto/robotstxt"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

// TestPresetExceptInCaddy: the crawlers the preset blocks of docs/ai-usage.md leave out are
// not in the robots.txt Caddy serves, both witness parsers read the * group for them and the
// preset's group for the others, and enforcement lets them through where the preset would have
// refused them; the page's robots_tag gives its preset's rule to every assistant but the one
// it leaves out. The page's JSON serves the same file and field through the net/http
// middleware.
func TestPresetExceptInCaddy(t *testing.T) {
	cfg := docBlock(t, "../docs/ai-usage.md", "preset-except-caddyfile", "caddyfile") +
		docBlock(t, "../docs/ai-usage.md", "preset-except-robots-tag", "caddyfile")
	startCaddyfile(t, "http://localhost:@PORT@ {\n"+cfg+"respond \"page {http.request.uri.path}\" 200\n}\n")
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	file := string(body)
	for _, gone := range []string{"User-agent: GoogleOther\n", "User-agent: Applebot\n"} {
		if strings.Contains(file, gone) {
			t.Errorf("%q in robots.txt:\n%s", gone, file)
		}
	}
	temoto, err := robotstxt.FromBytes(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		agent, path string
		allowed     bool
	}{
		{"GoogleOther", "/article", true}, {"GoogleOther", "/admin/x", false},
		{"Applebot", "/article", true}, {"Applebot", "/admin/x", false},
		{"GPTBot", "/article", false}, {"PerplexityBot", "/article", false},
		{"PerplexityBot", "/admin/x", false},
	} {
		if g := grobotstxt.AgentAllowed(file, c.agent, c.path); g != c.allowed {
			t.Errorf("grobotstxt %s %s: %v", c.agent, c.path, g)
		}
		if g := temoto.TestAgent(c.path, c.agent); g != c.allowed {
			t.Errorf("temoto %s %s: %v", c.agent, c.path, g)
		}
	}
	for _, c := range []struct {
		ua, path string
		status   int
	}{
		{"Mozilla/5.0 (compatible; GoogleOther)", "/article", 200},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", "/article", 200},
		{"Mozilla/5.0 (compatible; GoogleOther)", "/admin/x", 200}, // "*" never enforces
		{gptbotUA, "/article", 403},
		{"Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "/article", 403},
	} {
		if resp, _ := do(t, "GET", siteURL(c.path), "User-Agent: "+c.ua); resp.StatusCode != c.status {
			t.Errorf("%q %s: %d, want %d", c.ua, c.path, resp.StatusCode, c.status)
		}
	}

	m, err := nethttp.NewFromJSON([]byte(docBlock(t, "../docs/ai-usage.md", "preset-except-json", "json")), nethttp.Options{})
	if err != nil {
		t.Fatalf("docs/ai-usage.md JSON refused: %v", err)
	}
	rec := httptest.NewRecorder()
	m.Handler(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("GET", "/robots.txt", nil))
	if rec.Body.String() != file {
		t.Errorf("the JSON serves\n%s\nthe Caddyfile\n%s", rec.Body, file)
	}

	resp, _ = do(t, "GET", siteURL("/article"), "User-Agent: "+chromeUA)
	p := tagemit.Policy{}
	if lines := resp.Header.Values("Robots-Tag"); len(lines) == 1 {
		p, _ = tagemit.ParseRobotsTag(lines)
	}
	if _, ok := p.Rules()["perplexity-user"]; ok || !slices.Equal(p.RulesFor("ChatGPT-User"), []string{"noarchive"}) || len(p.Rules()) < 10 {
		t.Errorf("Robots-Tag %q: every assistant but Perplexity-User should have noarchive", resp.Header.Values("Robots-Tag"))
	}
	rec = httptest.NewRecorder()
	m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})).ServeHTTP(rec, httptest.NewRequest("GET", "/article", nil))
	if got, want := rec.Header().Values("Robots-Tag"), resp.Header.Values("Robots-Tag"); !slices.Equal(got, want) {
		t.Errorf("the JSON sends Robots-Tag %q, the Caddyfile %q", got, want)
	}
}

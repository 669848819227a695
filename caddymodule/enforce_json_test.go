package caddymodule

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// enforceHandlerJSON is one robots_txt handler object, as Caddy's JSON and nethttp read it:
// every AI crawler kept out of everything but /public/, a status of one's choice.
const enforceHandlerJSON = `{
	"groups": [
		{"presets": ["ai-all"], "rules": [{"type": "disallow", "path": "/"}, {"type": "allow", "path": "/public/"}]},
		{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}
	],
	"enforce": {"status": 451}
}`

// TestEnforcementFromCaddyJSON loads enforcement from Caddy's JSON (not the Caddyfile) into a
// real Caddy, and the same handler object into nethttp over loopback: both answer every
// agent and path alike, crawlers named by the preset get 451 where the file disallows, and
// Caddy logs the block at info level with the token and the rule.
func TestEnforcementFromCaddyJSON(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	var handler map[string]any
	if err := json.Unmarshal([]byte(enforceHandlerJSON), &handler); err != nil {
		t.Fatal(err)
	}
	handler["handler"] = "robots_txt"
	cfg := map[string]any{
		"admin": map[string]any{"listen": fmt.Sprintf("localhost:%d", adminPort)},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{
			"writer": map[string]any{"output": "file", "filename": logFile},
			"level":  "INFO",
		}}},
		"apps": map[string]any{"http": map[string]any{
			"http_port": sitePort,
			"servers": map[string]any{"enforce": map[string]any{
				"listen": []string{fmt.Sprintf(":%d", sitePort)},
				"routes": []any{map[string]any{"handle": []any{
					handler,
					map[string]any{"handler": "static_response", "body": "page"},
				}}},
				"automatic_https": map[string]any{"disable": true},
			}},
		}},
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tester := caddytest.NewTester(t)
	tester.InitServer(string(raw), "json")
	if t.Failed() {
		t.FailNow()
	}

	mw, err := nethttp.NewFromJSON([]byte(`{"robots_txt": `+enforceHandlerJSON+`}`), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	app := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "page")
	})))
	defer app.Close()

	// The file: the same bytes from both; every writable catalogue name disallowed on /x,
	// allowed on /public/; Googlebot only kept out of /admin/.
	_, file := do(t, "GET", siteURL("/robots.txt"))
	_, appFile := do(t, "GET", app.URL+"/robots.txt")
	if string(file) != string(appFile) {
		t.Fatalf("robots.txt differs:\nCaddy:\n%s\nnet/http:\n%s", file, appFile)
	}
	all, _ := crawlers.Category(crawlers.AIAll)
	writable, _ := crawlers.RobotsTxtNames(all)
	for _, n := range writable {
		if crawlers.Classify(n) != crawlers.TokenProduct {
			continue // Google's parser reads a digit token only up to its first digit
		}
		if grobotstxt.AgentAllowed(string(file), n, "/x") || !grobotstxt.AgentAllowed(string(file), n, "/public/x") {
			t.Errorf("grobotstxt: %s on /x and /public/x not as configured", n)
		}
	}
	if !grobotstxt.AgentAllowed(string(file), "Googlebot", "/x") || grobotstxt.AgentAllowed(string(file), "Googlebot", "/admin/") {
		t.Error("grobotstxt: Googlebot not as the * group says")
	}

	for _, c := range []struct {
		ua, path string
		status   int
	}{
		{gptbotUA, "/x", 451},
		{gptbotUA, "/public", 451},             // "/public" is not under /public/
		{strings.ToLower(gptbotUA), "/x", 451}, // case-insensitive
		{gptbotUA, "/public/a", 200},           // the group's Allow
		{gptbotUA, "/robots.txt", 200},         // always served
		{"Mozilla/5.0 (compatible; AI2Bot; +https://allenai.org/crawler)", "/x", 451}, // a digit token
		{"Mozilla/5.0 (compatible) ChatGPT Agent", "/x", 451},                         // a name never written to robots.txt
		{"Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0; SLCC1)", "/x", 200},      // LCC is a crawler, SLCC1 is not LCC
		{"Mozilla/5.0 (compatible; LCC)", "/x", 451},
		{chromeUA, "/x", 200},
		{chromeUA, "/admin/x", 200}, // the * group never enforces
		{googlebotUA, "/x", 200},
		{bingbotUA, "/x", 200},
		{"", "/x", 200},
	} {
		resp, body := do(t, "GET", siteURL(c.path), "User-Agent: "+c.ua)
		appResp, appBody := do(t, "GET", app.URL+c.path, "User-Agent: "+c.ua)
		if resp.StatusCode != c.status || appResp.StatusCode != c.status {
			t.Errorf("%q %s: Caddy %d %q, net/http %d %q; want %d", c.ua, c.path, resp.StatusCode, body, appResp.StatusCode, appBody, c.status)
		}
		// Without handle_errors, Caddy answers a blocked request with nethttp's text body.
		if string(body) != string(appBody) || resp.Header.Get("Content-Type") != appResp.Header.Get("Content-Type") {
			t.Errorf("%q %s: Caddy %q (%s), net/http %q (%s)", c.ua, c.path, body, resp.Header.Get("Content-Type"), appBody, appResp.Header.Get("Content-Type"))
		}
	}

	resp, body := do(t, "GET", siteURL("/x"), "User-Agent: "+gptbotUA)
	if want := "451 Unavailable For Legal Reasons: robots.txt disallows this path for GPTBot (Disallow: /)\n"; string(body) != want ||
		resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("blocked: %q %q", body, resp.Header.Get("Content-Type"))
	}

	// The block is logged at info level by the handler, with the token and the rule.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(logFile)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, `"level":"info"`) && strings.Contains(line, "http.handlers.robots_txt") &&
				strings.Contains(line, `"token":"GPTBot"`) && strings.Contains(line, `"rule":"disallow: /"`) && strings.Contains(line, `"status":451`) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no info entry for the blocked GPTBot request in Caddy's log:\n%s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

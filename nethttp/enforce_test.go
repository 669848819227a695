package nethttp_test

import (
	"bytes"

	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/jimsmart/grobotstxt"
	"github.com/temoto/robotstxt"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

const chromeUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// blockAIJSON is the recipe of docs/ai-usage.md in JSON: the same JSON as the Caddy handler's.
const blockAIJSON = `{"robots_txt": {
	"groups": [
		{"presets": ["ai-training", "ai-search"], "rules": [{"type": "disallow", "path": "/"}]},
		{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}
	],
	"enforce": {}
}}`

// syncBuffer is a log destination the server goroutines write to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestEnforceOverLoopback(t *testing.T) {
	var logs syncBuffer
	m, err := nethttp.NewFromJSON([]byte(blockAIJSON), nethttp.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "app") }))

	// The file: presets written out, parsed by both witnesses as intended.
	resp, body := get(t, nil, "GET", srv.URL+"/robots.txt", "User-Agent", "GPTBot/1.2")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "User-agent: GPTBot\n") || strings.Contains(string(body), "ChatGPT Agent") {
		t.Fatalf("robots.txt %d:\n%s", resp.StatusCode, body)
	}
	temoto, err := robotstxt.FromBytes(body)
	if err != nil {
		t.Fatal(err)
	}
	for agent, allowed := range map[string]bool{"GPTBot": false, "CCBot": false, "PerplexityBot": false, "Googlebot": true, "Bingbot": true} {
		if g := grobotstxt.AgentAllowed(string(body), agent, "/article"); g != allowed {
			t.Errorf("grobotstxt %s: %v", agent, g)
		}
		if g := temoto.TestAgent("/article", agent); g != allowed {
			t.Errorf("temoto %s: %v", agent, g)
		}
	}

	for _, c := range []struct {
		ua, path string
		status   int
	}{
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "/article", 403},
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "/robots.txt", 200},
		{chromeUA, "/article", 200},
		{chromeUA, "/admin/x", 200}, // the * group never enforces
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "/article", 200},
		{"Mozilla/5.0 (compatible; bingbot/2.0)", "/article", 200},
	} {
		resp, body := get(t, nil, "GET", srv.URL+c.path, "User-Agent", c.ua)
		if resp.StatusCode != c.status {
			t.Errorf("%q %s: %d %s", c.ua, c.path, resp.StatusCode, body)
		}
		if c.status == 403 && !strings.Contains(string(body), "robots.txt disallows this path for GPTBot (Disallow: /)") {
			t.Errorf("body %q", body)
		}
	}
	if l := logs.String(); !strings.Contains(l, "level=INFO") || !strings.Contains(l, "token=GPTBot") || !strings.Contains(l, `rule="disallow: /"`) {
		t.Errorf("log %q", l)
	}

	// A status of one's choice.
	m451, err := nethttp.NewFromJSON([]byte(strings.Replace(blockAIJSON, `"enforce": {}`, `"enforce": {"status": 451}`, 1)), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/x", nil)
	r.Header.Set("User-Agent", "CCBot/2.0")
	m451.Handler(http.NotFoundHandler()).ServeHTTP(w, r)
	if w.Code != 451 {
		t.Errorf("status %d", w.Code)
	}
}

// Config warnings are logged when New accepts the config: names with digits, in robots.txt
// and in robots tags.
func TestConfigWarningsLogged(t *testing.T) {
	var logs syncBuffer
	_, err := nethttp.NewFromJSON([]byte(`{"robots_txt": {"groups": [{"user_agents": ["AI2Bot"], "rules": [{"type": "disallow", "path": "/"}]}]},
		"robots_tag": [{"rules": {"360Spider": ["noindex"], "preset:ai-training": ["noindex"]}}]}`),
		nethttp.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	l := logs.String()
	for _, want := range []string{`path=robots_txt.groups[0].user_agents[0]`, `path="robots_tag[0].rules[\"360Spider\"]"`, "first digit"} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %s:\n%s", want, l)
		}
	}
	if strings.Count(l, "level=WARN") != 2 {
		t.Errorf("want 2 warnings:\n%s", l)
	}
}

func enforcingMiddleware(b testing.TB) *nethttp.Middleware {
	m, err := nethttp.NewFromJSON([]byte(`{"robots_txt": {"groups": [
		{"presets": ["ai-all"], "rules": [{"type": "disallow", "path": "/"}]},
		{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}], "enforce": {}}}`),
		nethttp.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func nonEnforcingMiddleware(b testing.TB) *nethttp.Middleware {
	m, err := nethttp.NewFromJSON([]byte(`{"robots_txt": {"groups": [
		{"presets": ["ai-all"], "rules": [{"type": "disallow", "path": "/"}]},
		{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]}}`), nethttp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func benchUA(b *testing.B, h http.Handler, ua string) {
	req := httptest.NewRequest("GET", "/articles/post", nil)
	req.Header.Set("User-Agent", ua)
	w := &benchWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

// BenchmarkEnforceBrowserRequest and BenchmarkNoEnforceBrowserRequest: a browser's request
// on a site with the whole catalogue in robots.txt, with and without enforcement; the
// difference is what enforcement costs a browser.
func BenchmarkEnforceBrowserRequest(b *testing.B) {
	benchUA(b, enforcingMiddleware(b).Handler(http.HandlerFunc(okHandler)), chromeUA)
}

func BenchmarkNoEnforceBrowserRequest(b *testing.B) {
	benchUA(b, nonEnforcingMiddleware(b).Handler(http.HandlerFunc(okHandler)), chromeUA)
}

// BenchmarkEnforceBlockedRequest is a blocked crawler's request (403, a log line discarded).
func BenchmarkEnforceBlockedRequest(b *testing.B) {
	benchUA(b, enforcingMiddleware(b).Handler(http.HandlerFunc(okHandler)), "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)")
}

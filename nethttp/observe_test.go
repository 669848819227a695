package nethttp_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

const observedConfig = `{"robots_txt": {"groups": [
	{"presets": ["ai-all"], "rules": [{"type": "disallow", "path": "/"}]},
	{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]}}`

func observingMiddleware(b testing.TB, opts nethttp.Options) *nethttp.Middleware {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m, err := nethttp.NewFromJSON([]byte(observedConfig), opts)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// A crawler served a path robots.txt disallows for it is logged once, with the rule and its
// line in the file served at /robots.txt, as JSON fields a request cannot break out of.
func TestViolationLog(t *testing.T) {
	var logs bytes.Buffer
	m := observingMiddleware(t, nethttp.Options{LogViolations: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(okHandler)))
	defer srv.Close()
	get := func(path, ua string) string {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("User-Agent", ua)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		return string(body)
	}
	robots := get("/robots.txt", "")
	line := 0
	for i, l := range strings.Split(robots, "\n") {
		if l == "Disallow: /admin/" {
			line = i + 1
		}
	}
	get("/admin/%22%0Ax", "Googlebot/2.1")
	get("/admin/", chromeUA)
	out := logs.String()
	if n := strings.Count(out, `"msg":"a crawler fetched a path robots.txt disallows for it"`); n != 1 {
		t.Fatalf("%d violation lines:\n%s", n, out)
	}
	for _, want := range []string{`"crawler":"google-crawler"`, `"identity_status":"unchecked"`, `"path":"/admin/%22%0Ax"`, `"rule":"disallow: /admin/"`, `"line":` + strconv.Itoa(line), `"suppressed":0`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

// BenchmarkObserve*: a browser's and a crawler's request with counters and the violation
// log on, beside BenchmarkNoEnforceBrowserRequest (the same file without them) and
// BenchmarkObserveCrawlerOff.
func BenchmarkObserveBrowserRequest(b *testing.B) {
	benchUA(b, observingMiddleware(b, nethttp.Options{Counters: metrics.NewCounters(), LogViolations: true}).Handler(http.HandlerFunc(okHandler)), chromeUA)
}

func BenchmarkObserveCrawlerRequest(b *testing.B) {
	benchUA(b, observingMiddleware(b, nethttp.Options{Counters: metrics.NewCounters(), LogViolations: true}).Handler(http.HandlerFunc(okHandler)), "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
}

func BenchmarkObserveCrawlerOff(b *testing.B) {
	benchUA(b, observingMiddleware(b, nethttp.Options{}).Handler(http.HandlerFunc(okHandler)), "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
}

// Crawl-delay over loopback (HTTP/1.1 and HTTP/2): a crawler asking again at once is
// answered 429 with Retry-After in whole seconds; a browser and a crawler named without a
// delay never are.
func TestCrawlDelayLoopback(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		// A middleware per protocol: the budgets are the middleware's.
		m, err := nethttp.NewFromJSON([]byte(`{"robots_txt": {"groups": [
			{"user_agents": ["GPTBot"], "crawl_delay": 5, "rules": [{"type": "disallow", "path": "/private/"}]},
			{"user_agents": ["Googlebot"], "rules": [{"type": "disallow", "path": "/private/"}]}],
			"enforce": {"crawl_delay": true}}}`), nethttp.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(m.Handler(http.HandlerFunc(okHandler)))
		client := http.DefaultClient
		if h2 {
			srv.EnableHTTP2 = true
			srv.StartTLS()
			client = srv.Client()
		} else {
			srv.Start()
		}
		get := func(ua string) (int, string) {
			req, _ := http.NewRequest("GET", srv.URL+"/page", nil)
			req.Header.Set("User-Agent", ua)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode, resp.Header.Get("Retry-After")
		}
		ua := "Mozilla/5.0 (compatible; GPTBot/1.2)"
		if code, _ := get(ua); code != 200 {
			t.Fatalf("first request: %d", code)
		}
		code, ra := get(ua)
		if code != http.StatusTooManyRequests {
			t.Fatalf("h2=%v: second request at once: %d", h2, code)
		}
		if n, err := strconv.Atoi(ra); err != nil || n < 1 || n > 5 {
			t.Errorf("Retry-After %q, want 1 to 5 seconds", ra)
		}
		for range 10 {
			for _, ua := range []string{chromeUA, "Googlebot/2.1"} {
				if code, _ := get(ua); code != 200 {
					t.Errorf("%s: %d", ua, code)
				}
			}
		}
		srv.Close()
	}
}

// With merge_upstream, a violation of a rule of the backend's own robots.txt is logged with
// the rule's line in the merged file served to that origin.
func TestViolationLogMergeUpstream(t *testing.T) {
	var logs bytes.Buffer
	m, err := nethttp.NewFromJSON([]byte(`{"robots_txt": {"merge_upstream": true, "groups": [
		{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/private/"}]}]}}`),
		nethttp.Options{LogViolations: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "# the CMS's file\nUser-agent: *\nDisallow: /wp-admin/\n\nUser-agent: GPTBot\nDisallow: /cms-private/\n")
			return
		}
		io.WriteString(w, "page")
	})
	srv := httptest.NewServer(m.Handler(backend))
	defer srv.Close()
	get := func(path, ua string) string {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("User-Agent", ua)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	robots := get("/robots.txt", "")
	line := 0
	for i, l := range strings.Split(robots, "\n") {
		if l == "Disallow: /cms-private/" {
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatalf("the merge lacks the backend's rule:\n%s", robots)
	}
	get("/cms-private/x", "GPTBot/1.2")
	for _, want := range []string{`"crawler":"openai-crawler"`, `"token":"GPTBot"`, `"rule":"disallow: /cms-private/"`, `"line":` + strconv.Itoa(line) + `,`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s\nserved:\n%s", want, logs.String(), robots)
		}
	}
}

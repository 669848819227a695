package nethttp_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// wordpressRobots is the robots.txt WordPress generates, with a site map plugin's line.
const wordpressRobots = `# WordPress
User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php

Sitemap: https://example.com/wp-sitemap.xml
`

// mergeDeclared is the declared file of the merge tests: a training crawler kept out, drafts
// kept out, and an explicit allow inside the backend's /wp-admin/.
func mergeDeclared() *nethttp.RobotsTxtConfig {
	return &nethttp.RobotsTxtConfig{
		Groups: []robotsgen.Group{
			{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
			{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{
				{Type: robotsgen.Disallow, Path: "/drafts/"},
				{Type: robotsgen.Allow, Path: "/wp-admin/public/"},
			}},
		},
		Sitemaps: []string{"/sitemap.xml"},
	}
}

// decisions are what the merged file must say; merged=false is the declared file alone.
func wantMergeDecisions(t *testing.T, body []byte, merged bool) {
	t.Helper()
	f, diags := robotsgen.Parse(body)
	if len(diags) > 0 {
		t.Errorf("served file has diagnostics %v:\n%s", diags, body)
	}
	m := robotsgen.NewMatcher(f)
	for _, c := range []struct {
		agent, path string
		allowed     bool
	}{
		{"GPTBot", "/", false},                               // declared
		{"GPTBot", "/wp-admin/admin-ajax.php", false},        // declared beats the backend's allow
		{"Googlebot", "/drafts/x", false},                    // declared
		{"Googlebot", "/wp-admin/public/a", true},            // declared's explicit allow
		{"Googlebot", "/wp-admin/options.php", !merged},      // the backend's restriction
		{"Googlebot", "/wp-admin/admin-ajax.php", true},      // the backend's allow
		{"Googlebot", "/2026/01/hello-world/", true},         // nobody restricts
		{"Bingbot", "/wp-admin/", !merged},                   // the backend's, for every crawler
		{"Googlebot", "/wp-admin/public/../x", true},         // literal path, as crawlers match: the declared allow
		{"Googlebot", "/robots.txt", true},                   // always
		{"Googlebot", "/drafts-not-really", true},            // prefix of a directory rule only
		{"Googlebot", "/wp-admin", true},                     // no trailing slash: not the rule
		{"CCBot", "/wp-admin/admin-ajax.php?action=x", true}, // allow with a query
	} {
		if got := m.Decide(c.agent, "", c.path).Allowed; got != c.allowed {
			t.Errorf("%s %s: allowed=%v, want %v (merged=%v)\n%s", c.agent, c.path, got, c.allowed, merged, body)
		}
	}
	if merged != bytes.Contains(body, []byte("Sitemap: https://example.com/wp-sitemap.xml\n")) {
		t.Errorf("backend's sitemap line present=%v, want %v:\n%s", !merged, merged, body)
	}
	if !bytes.Contains(body, []byte("/sitemap.xml\n")) {
		t.Errorf("declared sitemap missing:\n%s", body)
	}
}

// robotsBackend is a wrapped handler whose /robots.txt behaviour a test sets.
type robotsBackend struct {
	mu      sync.Mutex
	serve   func(w http.ResponseWriter, r *http.Request)
	fetches atomic.Int64
	done    atomic.Int64 // fetches that returned
	last    *http.Request
}

func (b *robotsBackend) set(f func(w http.ResponseWriter, r *http.Request)) {
	b.mu.Lock()
	b.serve = f
	b.mu.Unlock()
}

func (b *robotsBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/robots.txt" {
		_, _ = w.Write([]byte("page"))
		return
	}
	b.fetches.Add(1)
	defer b.done.Add(1)
	b.mu.Lock()
	f := b.serve
	b.last = r.Clone(r.Context())
	b.mu.Unlock()
	f(w, r)
}

func serveText(body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}
}

func serveStatus(code int) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) { http.Error(w, "backend says no", code) }
}

// mergeServer starts the middleware with merge_upstream in front of a backend.
func mergeServer(t *testing.T, maxAge, timeout time.Duration, logger *slog.Logger) (*robotsBackend, string) {
	t.Helper()
	cfg := mergeDeclared()
	cfg.MergeUpstream = true
	cfg.MaxAge = nethttp.Duration(maxAge)
	cfg.MergeUpstreamTimeout = nethttp.Duration(timeout)
	m, err := nethttp.New(nethttp.Config{RobotsTxt: cfg}, nethttp.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	b := &robotsBackend{serve: serveText(wordpressRobots)}
	srv := serve(t, m, b)
	return b, srv.URL
}

// eventually polls cond for up to 5 seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestMergeUpstreamWordPress(t *testing.T) {
	b, url := mergeServer(t, 0, 0, nil)
	resp, body := get(t, nil, "GET", url+"/robots.txt", "If-None-Match", `"nope"`, "Cookie", "session=secret", "Accept-Encoding", "gzip", "Range", "bytes=0-10")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	wantMergeDecisions(t, body, true)
	if !bytes.Contains(body, []byte("Sitemap: "+url+"/sitemap.xml\n")) {
		t.Errorf("declared sitemap path not resolved against the request:\n%s", body)
	}
	for k, v := range map[string]string{"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "max-age=3600", "Content-Length": fmt.Sprint(len(body))} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	etag, lm := resp.Header.Get("Etag"), resp.Header.Get("Last-Modified")
	if etag == "" || lm == "" {
		t.Fatalf("no validators: ETag %q, Last-Modified %q", etag, lm)
	}
	// What the backend was asked: a plain GET of /robots.txt, nothing a single client sent
	// that would make the shared merge that client's.
	b.mu.Lock()
	sub := b.last
	b.mu.Unlock()
	if sub.Method != "GET" || sub.URL.Path != "/robots.txt" {
		t.Errorf("backend asked %s %s", sub.Method, sub.URL)
	}
	for _, h := range []string{"If-None-Match", "Cookie", "Range"} {
		if v := sub.Header.Get(h); v != "" {
			t.Errorf("backend got %s: %q", h, v)
		}
	}
	if v := sub.Header.Get("Accept-Encoding"); v != "identity" {
		t.Errorf("backend got Accept-Encoding %q, want identity", v)
	}

	// Cached: validators give 304s, HEAD has the headers, the backend is not asked again.
	resp, _ = get(t, nil, "GET", url+"/robots.txt", "If-None-Match", etag)
	if resp.StatusCode != 304 {
		t.Errorf("If-None-Match: status %d", resp.StatusCode)
	}
	resp, _ = get(t, nil, "GET", url+"/robots.txt", "If-Modified-Since", lm)
	if resp.StatusCode != 304 {
		t.Errorf("If-Modified-Since: status %d", resp.StatusCode)
	}
	resp, hb := get(t, nil, "HEAD", url+"/robots.txt")
	if resp.StatusCode != 200 || len(hb) != 0 || resp.Header.Get("Etag") != etag {
		t.Errorf("HEAD: status %d, body %d bytes, ETag %q", resp.StatusCode, len(hb), resp.Header.Get("Etag"))
	}
	resp, _ = get(t, nil, "POST", url+"/robots.txt")
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: status %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if n := b.fetches.Load(); n != 1 {
		t.Errorf("backend asked %d times, want 1", n)
	}
	// Other paths go to the backend untouched.
	if _, body := get(t, nil, "GET", url+"/page"); string(body) != "page" {
		t.Errorf("/page: %q", body)
	}
}

// TestMergeUpstreamNoRules: a backend 4xx (RFC 9309 §2.3.1.3: no rules), a redirect (not
// followed) or an HTML page at /robots.txt means the declared file alone is served.
func TestMergeUpstreamNoRules(t *testing.T) {
	for name, f := range map[string]func(http.ResponseWriter, *http.Request){
		"404": serveStatus(404),
		"410": serveStatus(410),
		"401": serveStatus(401),
		"302": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/robots.txt", http.StatusFound)
		},
		"html": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>Not found</title></head><body>Disallow: /x</body></html>"))
		},
		// Typed HTML as a browser reads the type, the body not opening a tag.
		"html; charset without a value": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "TEXT/HTML; charset")
			_, _ = w.Write([]byte("User-agent: *\nDisallow: /wp-admin/\n"))
		},
		"html on a second Content-Type line": func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = []string{"text/plain", "text/html;;"}
			_, _ = w.Write([]byte("User-agent: *\nDisallow: /wp-admin/\n"))
		},
		"html as text/plain": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("\n  <html><body>User-agent: *\nDisallow: /wp-admin/\n</body></html>"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			logs := &logRecorder{level: slog.LevelWarn}
			b, url := mergeServer(t, 0, 0, slog.New(logs))
			b.set(f)
			resp, body := get(t, nil, "GET", url+"/robots.txt")
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			wantMergeDecisions(t, body, false)
			if strings.HasPrefix(name, "html") && !strings.Contains(strings.Join(logs.all(), "\n"), "HTML page") {
				t.Errorf("HTML at /robots.txt not logged: %q", logs.all())
			}
		})
	}
}

// TestMergeUpstreamErrors: a 5xx, a 429 or a timeout passes the status on when there is no
// merge yet (crawlers assume complete disallow, RFC 9309 §2.3.1.4), and serves the last good
// merge otherwise (stale-if-error), which is revalidated in the background.
func TestMergeUpstreamErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(http.ResponseWriter, *http.Request)
		want int
	}{
		{"500", serveStatus(500), 500},
		{"503", serveStatus(503), 503},
		{"429", serveStatus(429), 429},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Second) // ignores its context: the core must not wait
			serveText(wordpressRobots)(w, r)
		}, 504},
		{"panic", func(http.ResponseWriter, *http.Request) { panic("backend bug") }, 502},
		{"brotli", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "br")
			_, _ = w.Write([]byte{0x0b, 0x02, 0x80})
		}, 502},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b, url := mergeServer(t, time.Second, 200*time.Millisecond, slog.New(&logRecorder{level: slog.LevelError}))
			b.set(c.f)
			start := time.Now()
			resp, body := get(t, nil, "GET", url+"/robots.txt")
			if resp.StatusCode != c.want {
				t.Fatalf("no merge yet: status %d, want %d: %s", resp.StatusCode, c.want, body)
			}
			if d := time.Since(start); d > 900*time.Millisecond {
				t.Errorf("answered after %v: the timeout is 200ms", d)
			}
			// The backend recovers: the next request fetches again.
			b.set(serveText(wordpressRobots))
			eventually(t, "a merge", func() bool {
				resp, body = get(t, nil, "GET", url+"/robots.txt")
				return resp.StatusCode == 200
			})
			wantMergeDecisions(t, body, true)
			good := body
			// It fails again after max_age: the last good merge is served meanwhile and after.
			b.set(c.f)
			time.Sleep(1100 * time.Millisecond)
			n := b.fetches.Load()
			resp, body = get(t, nil, "GET", url+"/robots.txt")
			if resp.StatusCode != 200 || !bytes.Equal(body, good) {
				t.Fatalf("stale merge not served during revalidation: %d\n%s", resp.StatusCode, body)
			}
			eventually(t, "the revalidation", func() bool { return b.fetches.Load() > n })
			time.Sleep(300 * time.Millisecond) // the timeout or the answer, then the store
			resp, body = get(t, nil, "GET", url+"/robots.txt")
			if resp.StatusCode != 200 || !bytes.Equal(body, good) {
				t.Fatalf("last good merge not served after a failed revalidation: %d\n%s", resp.StatusCode, body)
			}
		})
	}
}

// TestMergeUpstreamBigBody: a 2 MB backend file is cut at its last complete line within
// 500 KiB; what is kept still holds.
func TestMergeUpstreamBigBody(t *testing.T) {
	var big bytes.Buffer
	big.WriteString(wordpressRobots)
	big.WriteString("User-agent: *\n")
	for i := 0; big.Len() < 2<<20; i++ {
		fmt.Fprintf(&big, "Disallow: /archive/%07d/\n", i)
	}
	logs := &logRecorder{level: slog.LevelWarn}
	b, url := mergeServer(t, 0, 0, slog.New(logs))
	b.set(serveText(big.String()))
	resp, body := get(t, nil, "GET", url+"/robots.txt")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if len(body) > robotsgen.MaxSize {
		t.Fatalf("served %d bytes, over %d", len(body), robotsgen.MaxSize)
	}
	wantMergeDecisions(t, body, true)
	f, _ := robotsgen.Parse(body)
	m := robotsgen.NewMatcher(f)
	if m.Decide("Googlebot", "", "/archive/0000000/x").Allowed || m.Decide("Googlebot", "", "/archive/0001000/").Allowed {
		t.Error("the backend's first archive rules were lost")
	}
	if !m.Decide("Googlebot", "", "/archive/0090000/").Allowed {
		t.Error("a rule beyond the 500 KiB the backend may count on was kept")
	}
	if !strings.Contains(strings.Join(logs.all(), "\n"), "over 512000 bytes") {
		t.Errorf("the cut was not logged: %q", logs.all())
	}
}

// TestMergeUpstreamGzip: a backend that gzips although asked for identity is decoded.
func TestMergeUpstreamGzip(t *testing.T) {
	b, url := mergeServer(t, 0, 0, nil)
	b.set(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write([]byte(wordpressRobots))
		_ = zw.Close()
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(buf.Bytes())
	})
	resp, body := get(t, &http.Client{Transport: &http.Transport{DisableCompression: true}}, "GET", url+"/robots.txt", "Accept-Encoding", "gzip")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("status %d, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	wantMergeDecisions(t, body, true)
}

// TestMergeUpstreamSingleFlight: concurrent requests for an uncached host make one backend
// fetch; each host has its own.
func TestMergeUpstreamSingleFlight(t *testing.T) {
	b, url := mergeServer(t, 0, 0, nil)
	release := make(chan struct{})
	b.set(func(w http.ResponseWriter, r *http.Request) {
		<-release
		serveText(wordpressRobots)(w, r)
	})
	const n = 50
	var wg sync.WaitGroup
	bodies := make([][]byte, n)
	for i := range n {
		wg.Go(func() {
			_, bodies[i] = get(t, nil, "GET", url+"/robots.txt")
		})
	}
	eventually(t, "the fetch", func() bool { return b.fetches.Load() == 1 })
	time.Sleep(100 * time.Millisecond) // let the other requests queue behind it
	close(release)
	wg.Wait()
	if got := b.fetches.Load(); got != 1 {
		t.Errorf("%d concurrent requests made %d backend fetches, want 1", n, got)
	}
	for i := range bodies {
		if !bytes.Equal(bodies[i], bodies[0]) {
			t.Fatalf("request %d got another body", i)
		}
	}
	wantMergeDecisions(t, bodies[0], true)
	// Another host is another cache entry.
	req, _ := http.NewRequest("GET", url+"/robots.txt", nil)
	req.Host = "other.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := b.fetches.Load(); got != 2 {
		t.Errorf("another host: %d fetches, want 2", got)
	}
}

// TestMergeUpstreamRevalidationDoesNotBlock: after max_age, requests are served the cached
// merge at once while one background fetch runs; its result is served when it ends.
func TestMergeUpstreamRevalidationDoesNotBlock(t *testing.T) {
	b, url := mergeServer(t, time.Second, 5*time.Second, nil)
	_, first := get(t, nil, "GET", url+"/robots.txt")
	release := make(chan struct{})
	b.set(func(w http.ResponseWriter, r *http.Request) {
		<-release
		serveText(wordpressRobots+"User-agent: Bingbot\nDisallow: /search/\n")(w, r)
	})
	time.Sleep(1100 * time.Millisecond)
	for i := range 20 {
		start := time.Now()
		resp, body := get(t, nil, "GET", url+"/robots.txt")
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Errorf("request %d waited %v for the revalidation", i, d)
		}
		if resp.StatusCode != 200 || !bytes.Equal(body, first) {
			t.Fatalf("request %d: status %d, not the cached merge", i, resp.StatusCode)
		}
	}
	if got := b.fetches.Load(); got != 2 {
		t.Errorf("%d fetches, want 2 (one revalidation)", got)
	}
	lm := ""
	{
		resp, _ := get(t, nil, "GET", url+"/robots.txt")
		lm = resp.Header.Get("Last-Modified")
	}
	close(release)
	var body []byte
	eventually(t, "the new merge", func() bool {
		_, body = get(t, nil, "GET", url+"/robots.txt")
		return !bytes.Equal(body, first)
	})
	if !bytes.Contains(body, []byte("Disallow: /search/")) {
		t.Errorf("new merge lacks the backend's new group:\n%s", body)
	}
	// A client holding the old copy gets the new one, not a 304.
	resp, _ := get(t, nil, "GET", url+"/robots.txt", "If-Modified-Since", lm)
	if resp.StatusCode != 200 {
		t.Errorf("If-Modified-Since of the old copy: status %d", resp.StatusCode)
	}
}

// TestMergeFile: merge_file is read when the middleware is built; its skipped lines and the
// merge's inexact combinations are logged at warn level with line numbers; a file that
// cannot be read is a config error at robots_txt.merge_file.
func TestMergeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "robots.txt")
	if err := os.WriteFile(path, []byte(wordpressRobots+"Disallow /no-colon-but-read\nNonsense line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := mergeDeclared()
	cfg.MergeFile = path
	logs := &logRecorder{level: slog.LevelWarn}
	m, err := nethttp.New(nethttp.Config{RobotsTxt: cfg}, nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.NotFoundHandler())
	resp, body := get(t, nil, "GET", srv.URL+"/robots.txt")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	wantMergeDecisions(t, body, true)
	if robotsgen.NewMatcher(mustParse(t, body)).Decide("Googlebot", "", "/no-colon-but-read").Allowed {
		t.Errorf("the file's lenient line was not merged:\n%s", body)
	}
	logged := strings.Join(logs.all(), "\n")
	if !strings.Contains(logged, "line 8") || !strings.Contains(logged, path) {
		t.Errorf("the file's diagnostics were not logged with line numbers: %q", logs.all())
	}

	for name, p := range map[string]string{"missing": filepath.Join(dir, "nope.txt"), "directory": dir} {
		cfg.MergeFile = p
		_, err = nethttp.New(nethttp.Config{RobotsTxt: cfg}, nethttp.Options{})
		if !hasConfigError(err, "robots_txt.merge_file", "cannot read the robots.txt to merge") {
			t.Errorf("%s merge_file: %v", name, err)
		}
	}
	_, err = nethttp.NewFromJSON([]byte(`{"robots_txt":{"merge_upstream":true,"merge_upstream_timeout":"2m"}}`), nethttp.Options{})
	if !hasConfigError(err, "robots_txt.merge_upstream_timeout", "at most 1m0s") {
		t.Errorf("timeout over a minute: %v", err)
	}
	_, err = nethttp.NewFromJSON([]byte(`{"robots_txt":{"merge_upstream_timeout":"2s"}}`), nethttp.Options{})
	if !hasConfigError(err, "robots_txt.merge_upstream_timeout", "needs merge_upstream") {
		t.Errorf("timeout without merge_upstream: %v", err)
	}
}

func mustParse(t *testing.T, body []byte) *robotsgen.File {
	t.Helper()
	f, _ := robotsgen.Parse(body)
	return f
}

// hasConfigError reports whether err holds a *configerr.Error at path whose message contains
// problem.
func hasConfigError(err error, path, problem string) bool {
	for _, e := range configerr.All(err) {
		if e.Path == path && strings.Contains(e.Error(), problem) {
			return true
		}
	}
	return false
}

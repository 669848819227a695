package caddymodule

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"net/http"
	"net/http/fcgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// merge_upstream and merge_file in a real Caddy: the backend is reached through
// reverse_proxy, php_fastcgi or file_server, the handlers after robots_txt in the route.

// wordpressRobots is a WordPress robots.txt with an SEO plugin's additions, including an
// Allow that would weaken a declared Disallow if the files were only concatenated.
const wordpressRobots = `# WordPress, with an SEO plugin
User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Disallow: /*?s=
Allow: /drafts/

User-agent: Googlebot
Allow: /
Disallow: /private$

Sitemap: https://example.com/wp-sitemap.xml
`

// mergeDeclaredTxt is the declared file of mergeSite, as robots.txt, for the witnesses.
const mergeDeclaredTxt = `User-agent: GPTBot
Disallow: /

User-agent: *
Disallow: /drafts/
Allow: /wp-admin/public/
`

// mergeSite is the site block of the merge tests; @MERGE@ is the merge_upstream line and
// @BACKEND@ the handlers after robots_txt.
const mergeSite = `
http://localhost:@PORT@, http://127.0.0.1:@PORT@ {
	robots_txt {
		group GPTBot {
			disallow /
		}
		group * {
			disallow /drafts/
			allow /wp-admin/public/
		}
		sitemap /sitemap.xml
		@MAXAGE@
		@MERGE@
	}
	@BACKEND@
}
`

// mergeAgents and mergePaths are what wantMergeRules asks of every merged file.
var (
	mergeAgents = []string{"GPTBot", "Googlebot", "Bingbot", "CCBot"}
	mergePaths  = []string{
		"/", "/drafts/", "/drafts/x", "/drafts-not-really", "/wp-admin/", "/wp-admin/options.php",
		"/wp-admin/admin-ajax.php", "/wp-admin/admin-ajax.php?action=x", "/wp-admin/public/a",
		"/wp-admin", "/?s=term", "/page?s=term", "/private", "/private/x", "/2026/01/hello-world/",
		"/robots.txt",
	}
)

// allowsAsDisallows keeps only f's Allow rules, written as Disallow rules: a matcher then
// disallows exactly where an Allow rule of the crawler's group matches.
func allowsAsDisallows(f *robotsgen.File) *robotsgen.File {
	c := &robotsgen.File{}
	for _, g := range f.Groups {
		ng := robotsgen.Group{UserAgents: g.UserAgents, Purposes: g.Purposes}
		for _, r := range g.Rules {
			if r.Type == robotsgen.Allow {
				ng.Rules = append(ng.Rules, robotsgen.Rule{Type: robotsgen.Disallow, Path: r.Path})
			}
		}
		c.Groups = append(c.Groups, ng)
	}
	return c
}

func parseClean(t *testing.T, body string) *robotsgen.File {
	t.Helper()
	f, diags := robotsgen.Parse([]byte(body))
	if len(diags) > 0 {
		t.Fatalf("parse: %v\n%s", diags, body)
	}
	return f
}

// wantMergeRules checks the served body against the merge rules (robotsgen.Merge) for D = the declared
// file and U = other (nil: the backend has no rules, so the declared file alone), by
// robotsgen.Matcher and by grobotstxt: D disallows -> disallow; U disallows and no Allow of
// D's applicable group matches -> disallow; else allow.
func wantMergeRules(t *testing.T, body []byte, other *robotsgen.File) {
	t.Helper()
	got := parseClean(t, string(body))
	d := parseClean(t, mergeDeclaredTxt)
	dm, dAllows := robotsgen.NewMatcher(d), robotsgen.NewMatcher(allowsAsDisallows(d))
	var um *robotsgen.Matcher
	if other != nil {
		um = robotsgen.NewMatcher(other)
	}
	m := robotsgen.NewMatcher(got)
	checked := 0
	for _, agent := range mergeAgents {
		for _, path := range mergePaths {
			uAllowed := um == nil || um.Decide(agent, "", path).Allowed
			dHasAllow := !dAllows.Decide(agent, "", path).Allowed
			want := dm.Decide(agent, "", path).Allowed && (uAllowed || dHasAllow)
			if path == "/robots.txt" {
				want = true
			}
			if g := m.Decide(agent, "", path).Allowed; g != want {
				t.Errorf("Matcher: %s %s allowed=%v, want %v\n%s", agent, path, g, want, body)
			}
			// grobotstxt has no special case for /robots.txt (RFC 9309 §2.2.2 makes it implicitly
			// allowed; Matcher does).
			if g := grobotstxt.AgentAllowed(string(body), agent, path); g != want && path != "/robots.txt" {
				t.Errorf("grobotstxt: %s %s allowed=%v, want %v\n%s", agent, path, g, want, body)
			}
			checked++
		}
	}
	if checked < 60 {
		t.Fatalf("only %d decisions checked", checked)
	}
}

// mergeBackend is a loopback HTTP server whose /robots.txt behaviour a test sets; other paths
// answer "page".
type mergeBackend struct {
	*httptest.Server
	mu      sync.Mutex
	serve   http.HandlerFunc
	fetches atomic.Int64
	last    *http.Request
}

func newMergeBackend(t *testing.T) *mergeBackend {
	b := &mergeBackend{serve: serveText(wordpressRobots)}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			_, _ = w.Write([]byte("page"))
			return
		}
		b.fetches.Add(1)
		b.mu.Lock()
		f := b.serve
		b.last = r.Clone(r.Context())
		b.mu.Unlock()
		f(w, r)
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *mergeBackend) set(f http.HandlerFunc) {
	b.mu.Lock()
	b.serve = f
	b.mu.Unlock()
}

func serveText(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}
}

func serveStatus(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Error(w, "backend says no", code) }
}

// startMerge loads mergeSite with merge_upstream [timeout] in front of reverse_proxy to b,
// max_age maxAge (empty: the default), logging to the returned file at DEBUG level.
func startMerge(t *testing.T, b *mergeBackend, timeout, maxAge string) string {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	if maxAge != "" {
		maxAge = "max_age " + maxAge
	}
	caddyTesterWithGlobals(t, `
	log {
		output file "`+logFile+`"
		level DEBUG
	}
`, strings.NewReplacer(
		"@MERGE@", strings.TrimSpace("merge_upstream "+timeout),
		"@MAXAGE@", maxAge,
		"@BACKEND@", "reverse_proxy "+b.Listener.Addr().String(),
	).Replace(mergeSite))
	return logFile
}

// logLines returns the lines of Caddy's log at level from the robots_txt handler that
// contain want.
func logLines(logFile, level, want string) []string {
	data, _ := os.ReadFile(logFile)
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "http.handlers.robots_txt") && strings.Contains(l, `"level":"`+level+`"`) && strings.Contains(l, want) {
			out = append(out, l)
		}
	}
	return out
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestMergeUpstreamReverseProxy: through reverse_proxy, the WordPress file is merged so that
// rules 1-3 hold (Matcher and grobotstxt), served with the usual headers, cached (one backend
// fetch), and the backend is asked a plain GET without the client's credentials, validators
// or encodings.
func TestMergeUpstreamReverseProxy(t *testing.T) {
	b := newMergeBackend(t)
	startMerge(t, b, "", "")
	resp, body := do(t, "GET", siteURL("/robots.txt"), "Cookie: session=secret", "Authorization: Basic eDp5",
		"If-None-Match: \"nope\"", "Range: bytes=0-10", "Accept-Encoding: gzip")
	wantStatus(t, resp, 200)
	wantMergeRules(t, body, parseClean(t, wordpressRobots))
	for _, want := range []string{"Sitemap: https://example.com/wp-sitemap.xml\n", fmt.Sprintf("Sitemap: http://localhost:%d/sitemap.xml\n", sitePort)} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
	for k, v := range map[string]string{"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "max-age=3600", "Content-Length": fmt.Sprint(len(body)), "Content-Encoding": ""} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	b.mu.Lock()
	sub := b.last
	b.mu.Unlock()
	if sub.Method != "GET" || sub.URL.Path != "/robots.txt" {
		t.Errorf("backend asked %s %s", sub.Method, sub.URL)
	}
	for _, h := range []string{"Cookie", "Authorization", "If-None-Match", "Range"} {
		if v := sub.Header.Get(h); v != "" {
			t.Errorf("backend got %s: %q", h, v)
		}
	}
	if v := sub.Header.Get("Accept-Encoding"); v != "identity" {
		t.Errorf("backend got Accept-Encoding %q, want identity", v)
	}

	etag := resp.Header.Get("Etag")
	resp, _ = do(t, "GET", siteURL("/robots.txt"), "If-None-Match: "+etag)
	wantStatus(t, resp, 304)
	resp, hb := do(t, "HEAD", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if len(hb) != 0 || resp.Header.Get("Etag") != etag {
		t.Errorf("HEAD: %d bytes, ETag %q want %q", len(hb), resp.Header.Get("Etag"), etag)
	}
	resp, _ = do(t, "POST", siteURL("/robots.txt"))
	wantStatus(t, resp, 405)
	if n := b.fetches.Load(); n != 1 {
		t.Errorf("backend asked %d times, want 1 (cached)", n)
	}
	resp, page := do(t, "GET", siteURL("/2026/01/hello-world/"))
	wantStatus(t, resp, 200)
	if string(page) != "page" {
		t.Errorf("other paths: %q, want the backend's page", page)
	}
}

// TestMergeUpstreamNoRulesInCaddy: a backend 404 or an HTML page at /robots.txt (logged)
// means no rules: the declared file is served, and rules 1-3 hold with U empty.
func TestMergeUpstreamNoRulesInCaddy(t *testing.T) {
	for _, c := range []struct {
		name, log string
		f         http.HandlerFunc
	}{
		{"404", "answered 404", serveStatus(404)},
		{"html", "HTML page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<!DOCTYPE html><html><body>User-agent: *\nDisallow: /</body></html>"))
		}},
		{"html as text", "HTML page", serveText("\n  <html><head><title>Not found</title></head><body>Disallow: /</body></html>")},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newMergeBackend(t)
			b.set(c.f)
			logFile := startMerge(t, b, "", "")
			resp, body := do(t, "GET", siteURL("/robots.txt"))
			wantStatus(t, resp, 200)
			wantMergeRules(t, body, nil)
			if bytes.Contains(body, []byte("wp-sitemap")) || bytes.Contains(body, []byte("html")) {
				t.Errorf("backend's content in the declared file:\n%s", body)
			}
			waitFor(t, "the warning", func() bool { return len(logLines(logFile, "warn", c.log)) > 0 })
			if n := b.fetches.Load(); n != 1 {
				t.Errorf("backend asked %d times", n)
			}
		})
	}
}

// TestMergeUpstreamErrorsInCaddy: a 500 without a cached merge passes through (crawlers
// assume complete disallow); with one, the last good merge is served (stale-if-error) while
// the revalidation runs in the background and after it fails. A slow backend is cut off at
// the merge_upstream timeout (504), and an unreachable one is a 502.
func TestMergeUpstreamErrorsInCaddy(t *testing.T) {
	for _, c := range []struct {
		name string
		f    http.HandlerFunc
		want int
	}{
		{"500", serveStatus(500), 500},
		{"503", serveStatus(503), 503},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
			serveText(wordpressRobots)(w, r)
		}, 504},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newMergeBackend(t)
			b.set(c.f)
			startMerge(t, b, "300ms", "1s")
			start := time.Now()
			resp, body := do(t, "GET", siteURL("/robots.txt"))
			wantStatus(t, resp, c.want)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("answered after %v; the timeout is 300ms", d)
			}
			if bytes.Contains(body, []byte("Disallow")) {
				t.Errorf("error response carries rules:\n%s", body)
			}
			// The backend recovers: a merge is made and served.
			b.set(serveText(wordpressRobots))
			var good []byte
			waitFor(t, "a merge", func() bool {
				resp, good = do(t, "GET", siteURL("/robots.txt"))
				return resp.StatusCode == 200
			})
			wantMergeRules(t, good, parseClean(t, wordpressRobots))
			// It fails again after max_age: the last good merge is served at once while the
			// revalidation runs, and after it has failed.
			b.set(c.f)
			time.Sleep(1100 * time.Millisecond)
			n := b.fetches.Load()
			start = time.Now()
			resp, body = do(t, "GET", siteURL("/robots.txt"))
			if resp.StatusCode != 200 || !bytes.Equal(body, good) {
				t.Fatalf("stale merge not served during revalidation: %d\n%s", resp.StatusCode, body)
			}
			if d := time.Since(start); d > 250*time.Millisecond {
				t.Errorf("a request waited %v for the revalidation", d)
			}
			waitFor(t, "the revalidation", func() bool { return b.fetches.Load() > n })
			time.Sleep(500 * time.Millisecond) // past the timeout, so the failure is stored
			resp, body = do(t, "GET", siteURL("/robots.txt"))
			if resp.StatusCode != 200 || !bytes.Equal(body, good) {
				t.Fatalf("last good merge not served after a failed revalidation: %d\n%s", resp.StatusCode, body)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		b := newMergeBackend(t)
		b.Close() // the port is closed: reverse_proxy cannot connect
		startMerge(t, b, "", "")
		resp, _ := do(t, "GET", siteURL("/robots.txt"))
		wantStatus(t, resp, 502)
	})
}

// TestMergeUpstreamBigBodyInCaddy: a 2 MB backend file is cut at its last complete line
// within 500 KiB (logged); the lines kept still hold, the later ones are not merged.
func TestMergeUpstreamBigBodyInCaddy(t *testing.T) {
	var big bytes.Buffer
	big.WriteString(wordpressRobots)
	big.WriteString("User-agent: *\n")
	for i := 0; big.Len() < 2<<20; i++ {
		fmt.Fprintf(&big, "Disallow: /archive/%07d/\n", i)
	}
	b := newMergeBackend(t)
	b.set(serveText(big.String()))
	logFile := startMerge(t, b, "", "")
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if len(body) > robotsgen.MaxSize {
		t.Fatalf("served %d bytes, over %d", len(body), robotsgen.MaxSize)
	}
	// What the backend may count on: its complete lines within 500 KiB.
	cut := big.Bytes()[:robotsgen.MaxSize]
	cut = cut[:bytes.LastIndexByte(cut, '\n')+1]
	kept := parseClean(t, string(cut))
	wantMergeRules(t, body, kept)
	m := robotsgen.NewMatcher(parseClean(t, string(body)))
	last := bytes.Count(cut, []byte("/archive/")) - 1
	for _, p := range []string{"/archive/0000000/x", fmt.Sprintf("/archive/%07d/", last/2)} {
		if m.Decide("Bingbot", "", p).Allowed {
			t.Errorf("%s: the backend's rule within 500 KiB was lost", p)
		}
	}
	if !m.Decide("Bingbot", "", "/archive/0090000/").Allowed {
		t.Error("a rule beyond 500 KiB was merged")
	}
	waitFor(t, "the warning", func() bool { return len(logLines(logFile, "warn", "over 512000 bytes")) > 0 })
}

// TestMergeUpstreamGzipInCaddy: a backend that gzips although asked for identity is decoded
// before the merge; the client gets plain text.
func TestMergeUpstreamGzipInCaddy(t *testing.T) {
	b := newMergeBackend(t)
	b.set(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write([]byte(wordpressRobots))
		_ = zw.Close()
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(buf.Bytes())
	})
	startMerge(t, b, "", "")
	resp, body := do(t, "GET", siteURL("/robots.txt"), "Accept-Encoding: gzip")
	wantStatus(t, resp, 200)
	if ce := resp.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("Content-Encoding %q", ce)
	}
	wantMergeRules(t, body, parseClean(t, wordpressRobots))
}

// TestMergeUpstreamSingleFlightInCaddy: concurrent requests for an uncached host make one
// backend fetch through reverse_proxy, and all get the same merge; another host has its own.
func TestMergeUpstreamSingleFlightInCaddy(t *testing.T) {
	b := newMergeBackend(t)
	release := make(chan struct{})
	b.set(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(4 * time.Second):
		}
		serveText(wordpressRobots)(w, r)
	})
	startMerge(t, b, "", "")
	const n = 40
	var wg sync.WaitGroup
	bodies := make([][]byte, n)
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", siteURL("/robots.txt"), nil)
			resp, err := client.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(resp.Body)
			codes[i], bodies[i] = resp.StatusCode, buf.Bytes()
		})
	}
	waitFor(t, "the fetch", func() bool { return b.fetches.Load() >= 1 })
	time.Sleep(300 * time.Millisecond) // let the other requests queue behind it
	close(release)
	wg.Wait()
	if got := b.fetches.Load(); got != 1 {
		t.Errorf("%d concurrent requests made %d backend fetches, want 1", n, got)
	}
	for i := range bodies {
		if codes[i] != 200 || !bytes.Equal(bodies[i], bodies[0]) {
			t.Fatalf("request %d: status %d, body differs", i, codes[i])
		}
	}
	wantMergeRules(t, bodies[0], parseClean(t, wordpressRobots))
	resp, _ := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/robots.txt", sitePort))
	wantStatus(t, resp, 200)
	if got := b.fetches.Load(); got != 2 {
		t.Errorf("another host: %d fetches, want 2", got)
	}
}

// TestMergeUpstreamFileServer: the backend is root + file_server serving a robots.txt file on
// disk; a site without the file on disk gets the declared file (file_server's 404).
func TestMergeUpstreamFileServer(t *testing.T) {
	withFile, without := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(withFile, "robots.txt"), []byte(wordpressRobots), 0o644); err != nil {
		t.Fatal(err)
	}
	site := func(port, root string) string {
		return strings.NewReplacer("@MERGE@", "merge_upstream", "@MAXAGE@", "", "@PORT@", port,
			"@BACKEND@", fmt.Sprintf("root * %q\n\tfile_server", root)).Replace(mergeSite)
	}
	startCaddyfile(t, site("@PORT@", withFile)+site("@PORT2@", without))
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	wantMergeRules(t, body, parseClean(t, wordpressRobots))
	resp, body = do(t, "GET", site2URL("/robots.txt"))
	wantStatus(t, resp, 200)
	wantMergeRules(t, body, nil)
}

// TestMergeUpstreamPHPFastCGI: the backend is php_fastcgi, as in front of WordPress: the file
// is not on disk, try_files rewrites to index.php, and the FastCGI application (Go's
// net/http/fcgi here, in place of PHP-FPM) answers for the original /robots.txt.
func TestMergeUpstreamPHPFastCGI(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "index.php"), []byte("<?php // WordPress"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var fetches atomic.Int64
	var script atomic.Value
	go func() {
		_ = fcgi.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				fetches.Add(1)
				script.Store(fcgi.ProcessEnv(r)["SCRIPT_FILENAME"])
				serveText(wordpressRobots)(w, r)
				return
			}
			http.NotFound(w, r)
		}))
	}()
	startCaddyfile(t, strings.NewReplacer("@MERGE@", "merge_upstream", "@MAXAGE@", "",
		"@BACKEND@", fmt.Sprintf("root * %q\n\tphp_fastcgi %s", root, l.Addr())).Replace(mergeSite))
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	wantMergeRules(t, body, parseClean(t, wordpressRobots))
	if n := fetches.Load(); n != 1 {
		t.Errorf("FastCGI application asked %d times, want 1", n)
	}
	if s, _ := script.Load().(string); !strings.HasSuffix(s, "index.php") {
		t.Errorf("SCRIPT_FILENAME %q, want .../index.php", s)
	}
}

// TestMergeUpstreamRouteGroups: robots_txt inside a handle block; the sub-request skips the
// later handle blocks of the same group, as the request itself would (so the fallback's
// "rules" are not merged), and still reaches the reverse_proxy after robots_txt in its
// block. This fails if Caddy renames its route-group context key (routeGroupCtxKey).
func TestMergeUpstreamRouteGroups(t *testing.T) {
	b := newMergeBackend(t)
	startCaddyfile(t, strings.NewReplacer("@BACKEND@", b.Listener.Addr().String()).Replace(`
http://localhost:@PORT@ {
	handle /robots.txt {
		robots_txt {
			group * {
				disallow /drafts/
			}
			merge_upstream
		}
	}
	handle {
		respond "User-agent: *
Disallow: /fallback-only/
" 200
	}
}
http://localhost:@PORT2@ {
	handle /robots.txt {
		robots_txt {
			group * {
				disallow /drafts/
			}
			merge_upstream
		}
		reverse_proxy @BACKEND@
	}
	handle {
		respond "User-agent: *
Disallow: /fallback-only/
" 200
	}
}
`))
	_, body := do(t, "GET", siteURL("/robots.txt"))
	m := robotsgen.NewMatcher(parseClean(t, string(body)))
	if !m.Decide("Bingbot", "", "/fallback-only/x").Allowed {
		t.Errorf("a later handle block of the same group answered the sub-request:\n%s", body)
	}
	if m.Decide("Bingbot", "", "/drafts/x").Allowed {
		t.Errorf("declared rule lost:\n%s", body)
	}
	_, body = do(t, "GET", site2URL("/robots.txt"))
	m = robotsgen.NewMatcher(parseClean(t, string(body)))
	if m.Decide("Bingbot", "", "/wp-admin/x").Allowed || !m.Decide("Bingbot", "", "/fallback-only/x").Allowed {
		t.Errorf("want the backend's rules and not the fallback's:\n%s", body)
	}
}

// TestMergeFileInCaddy: merge_file is read at load; the merged file holds rules 1-3, the
// file's skipped lines are logged at warn level with their line numbers; a file that cannot
// be read fails the load naming the Caddyfile line, and the running config keeps serving.
func TestMergeFileInCaddy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "robots.txt")
	if err := os.WriteFile(file, []byte(wordpressRobots+"Nonsense without a colon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	caddyTesterWithGlobals(t, `
	log {
		output file "`+logFile+`"
		level DEBUG
	}
`, strings.NewReplacer("@MERGE@", fmt.Sprintf("merge_file %q", file), "@MAXAGE@", "", "@BACKEND@", `respond "page"`).Replace(mergeSite))
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	wantMergeRules(t, body, parseClean(t, wordpressRobots))
	waitFor(t, "the warning", func() bool { return len(logLines(logFile, "warn", "line 13 skipped or changed")) > 0 })

	// A missing file: refused at adapt and at load, naming the merge_file line.
	missing := filepath.Join(dir, "missing.txt")
	cfg, line := badCaddyfile(t, fmt.Sprintf("robots_txt {\n\tgroup * {\n\t\tdisallow /x/\n\t}\n\tmerge_file %q # <-\n}", missing))
	_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
	if err == nil || !strings.Contains(err.Error(), "cannot read the robots.txt to merge") || !strings.Contains(err.Error(), fmt.Sprintf("Caddyfile:%d", line)) {
		t.Errorf("adapt: %v; want the unreadable file at Caddyfile:%d", err, line)
	}
	status, msg := loadRaw(t, cfg, "text/caddyfile")
	if status == 200 || !strings.Contains(msg, "cannot read the robots.txt to merge") || !strings.Contains(msg, fmt.Sprintf("Caddyfile:%d", line)) {
		t.Errorf("load: %d %q; want refused at Caddyfile:%d", status, msg, line)
	}
	resp, again := do(t, "GET", siteURL("/robots.txt"))
	if resp.StatusCode != 200 || !bytes.Equal(again, body) {
		t.Errorf("the running config stopped serving its merge: %d\n%s", resp.StatusCode, again)
	}
	// A directory is refused too.
	cfg, line = badCaddyfile(t, fmt.Sprintf("robots_txt {\n\tmerge_file %q # <-\n}", dir))
	if _, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"}); err == nil || !strings.Contains(err.Error(), "directory") || !strings.Contains(err.Error(), fmt.Sprintf("Caddyfile:%d", line)) {
		t.Errorf("directory: %v", err)
	}
}

// TestMergeUpstreamRevalidationInCaddy: after max_age, one request starts a revalidation
// through reverse_proxy that outlives it; while the backend is slow every request is served
// the cached merge at once, and the new merge is served once the fetch ends.
func TestMergeUpstreamRevalidationInCaddy(t *testing.T) {
	b := newMergeBackend(t)
	startMerge(t, b, "5s", "1s")
	resp, first := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	release := make(chan struct{})
	b.set(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(4 * time.Second):
		}
		serveText(wordpressRobots+"\nUser-agent: Bingbot\nDisallow: /search/\n")(w, r)
	})
	time.Sleep(1100 * time.Millisecond)
	for i := range 20 {
		start := time.Now()
		resp, body := do(t, "GET", siteURL("/robots.txt"))
		if d := time.Since(start); d > 250*time.Millisecond {
			t.Errorf("request %d waited %v for the revalidation", i, d)
		}
		if resp.StatusCode != 200 || !bytes.Equal(body, first) {
			t.Fatalf("request %d: status %d, not the cached merge", i, resp.StatusCode)
		}
	}
	if got := b.fetches.Load(); got != 2 {
		t.Errorf("%d fetches, want 2 (one revalidation)", got)
	}
	close(release)
	var body []byte
	waitFor(t, "the new merge", func() bool {
		_, body = do(t, "GET", siteURL("/robots.txt"))
		return !bytes.Equal(body, first)
	})
	wantMergeRules(t, body, parseClean(t, wordpressRobots+"\nUser-agent: Bingbot\nDisallow: /search/\n"))
	if robotsgen.NewMatcher(parseClean(t, string(body))).Decide("Bingbot", "", "/search/x").Allowed {
		t.Errorf("the backend's new group is not in the new merge:\n%s", body)
	}
}

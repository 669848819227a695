package caddymodule

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// sameTablePolicy is the one policy both front ends serve in TestSameTable, in the config
// schema's JSON: nethttp reads it as its Config, and the Caddy JSON is generated from the
// same decoded policy.Config (sameTableCaddyJSON), so that the two cannot drift.
const sameTablePolicy = `{
	"robots_txt": {
		"comments": ["one policy, two front ends"],
		"groups": [
			{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/private/"}, {"type": "allow", "path": "/"}]},
			{"user_agents": ["ClaudeBot"], "crawl_delay": 3600, "rules": [{"type": "disallow", "path": "/private/"}]},
			{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			 "content_usage": [{"preferences": {"train-ai": "n"}}], "content_signal": [{"path": "/docs/", "preferences": {"ai-train": "no"}}]}
		],
		"sitemaps": ["/sitemap.xml"],
		"license_documents": [{"path": "/license.xml", "content": [
			{"url": "/", "permits": ["search"], "prohibits": ["ai-train"], "payment": {"type": "attribution", "custom": "mailto:licensing@example.com"}},
			{"url": "/data/*", "permits": ["all"]}
		]}],
		"max_age": "2h",
		"enforce": {"status": 451, "impostors": {"status": 410}, "crawl_delay": true, "accept_signature": true}
	},
	"robots_tag": [
		{"paths": ["*.html"], "rules": {"*": ["noindex"], "GPTBot": ["nosnippet"]}, "meta": true, "x_robots_tag": true,
		 "content_usage": {"train-ai": "n"}, "licenses": ["/license.xml"], "tdm": {"derive": true, "policy": "https://example.com/tdm-policy.json"}},
		{"paths": ["/docs/*"], "rules": {"*": ["noarchive"], "preset:ai-training": ["noimageindex"]}, "tdm": {"reservation": 0}}
	]
}`

// sameTablePage is the backend's HTML page, into whose head the meta elements go.
const sameTablePage = "<!DOCTYPE html>\n<html><head><title>A page</title></head><body><p>Hello.</p></body></html>\n"

// sameTableBackend is the site behind both front ends: the handler nethttp wraps, and the
// upstream Caddy proxies to.
func sameTableBackend() http.Handler {
	modTime := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		switch {
		case strings.HasPrefix(r.URL.Path, "/docs/"):
			// Signals of the backend's own, which the front end merges with the route's.
			h.Set("Robots-Tag", "nofollow")
			h.Set("Content-Usage", "search=y")
			h.Set("Link", `</style.css>; rel="preload"; as="style"`)
			fallthrough
		case strings.HasSuffix(r.URL.Path, ".html") && !strings.Contains(r.URL.Path, "missing"):
			h.Set("ETag", `"page-v1"`)
			h.Set("Content-Type", "text/html; charset=utf-8")
			http.ServeContent(w, r, "page.html", modTime, strings.NewReader(sameTablePage))
		case strings.Contains(r.URL.Path, "missing"):
			h.Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, "<html><head></head><body>not here</body></html>")
		default:
			h.Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, "backend: "+r.Method+" "+r.URL.Path)
		}
	})
}

// sameTableRow is one request of the table, sent to both front ends.
type sameTableRow struct {
	name, method, path string
	ua, client         string   // User-Agent; the client address a trusted proxy reports
	header             []string // "Name: value"; @ETAG@ and @LASTMOD@ are the front end's last ETag and Last-Modified
	host               string   // "" means a host of its own (the logs' lines are told apart by host)
	repeat             int      // sent this many times (0 means once)
	advance            time.Duration
	sign               string // "valid" or "forged": a Web Bot Auth signature of the trusted agent
	status             int    // the status wanted (both must agree besides)
}

const (
	sameBrowser   = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	sameClaudeUA  = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
	outsideGoogle = "203.0.113.9"
	insideGoogle  = "66.249.64.5"
)

// sameTableRows: robots.txt, license documents, tdmrep.json, enforcement's refusals (a rule,
// crawl-delay, impostors by address and by signature, over the log's limit and the next
// interval's "suppressed"), tagged responses with meta injection, pass-through and violations.
var sameTableRows = []sameTableRow{
	// robots.txt: one host, so that the file (its sitemap and License lines name the host)
	// and its validators are the same from request to request.
	{name: "robots.txt GET", method: "GET", path: "/robots.txt", ua: sameBrowser, host: "site.example", status: 200},
	{name: "robots.txt HEAD", method: "HEAD", path: "/robots.txt", ua: sameBrowser, host: "site.example", status: 200},
	{name: "robots.txt If-None-Match", method: "GET", path: "/robots.txt", header: []string{"If-None-Match: @ETAG@"}, host: "site.example", status: 304},
	{name: "robots.txt If-Modified-Since", method: "GET", path: "/robots.txt", header: []string{"If-Modified-Since: @LASTMOD@"}, host: "site.example", status: 304},
	{name: "robots.txt If-None-Match other", method: "GET", path: "/robots.txt", header: []string{`If-None-Match: "other"`}, host: "site.example", status: 200},
	{name: "robots.txt POST", method: "POST", path: "/robots.txt", status: 405},
	{name: "robots.txt DELETE", method: "DELETE", path: "/robots.txt", ua: gptbotUA, status: 405},
	{name: "robots.txt for a disallowed crawler", method: "GET", path: "/robots.txt", ua: gptbotUA, host: "site.example", status: 200},
	{name: "robots.txt for an impostor", method: "GET", path: "/robots.txt", ua: googlebotUA, client: outsideGoogle, host: "site.example", status: 200},
	{name: "robots.txt with a query", method: "GET", path: "/robots.txt?x=1", host: "site.example", status: 200},
	{name: "ROBOTS.TXT is the backend's", method: "GET", path: "/ROBOTS.TXT", status: 200},

	// RSL license documents.
	{name: "license GET", method: "GET", path: "/license.xml", host: "site.example", status: 200},
	{name: "license HEAD", method: "HEAD", path: "/license.xml", host: "site.example", status: 200},
	{name: "license If-None-Match", method: "GET", path: "/license.xml", header: []string{"If-None-Match: @ETAG@"}, host: "site.example", status: 304},
	{name: "license PUT", method: "PUT", path: "/license.xml", status: 405},
	{name: "license for an impostor", method: "GET", path: "/license.xml", ua: googlebotUA, client: outsideGoogle, status: 200},

	// TDMRep's file, from the routes' tdm.
	{name: "tdmrep.json GET", method: "GET", path: "/.well-known/tdmrep.json", status: 200},
	{name: "tdmrep.json HEAD", method: "HEAD", path: "/.well-known/tdmrep.json", status: 200},
	{name: "tdmrep.json If-None-Match", method: "GET", path: "/.well-known/tdmrep.json", header: []string{"If-None-Match: @ETAG@"}, host: "site.example", status: 304},
	{name: "tdmrep.json POST", method: "POST", path: "/.well-known/tdmrep.json", status: 405},
	{name: "tdmrep.json for GPTBot", method: "GET", path: "/.well-known/tdmrep.json", ua: gptbotUA, status: 200},

	// Enforcement by a rule.
	{name: "GPTBot disallowed", method: "GET", path: "/private/x", ua: gptbotUA, status: 451},
	{name: "GPTBot disallowed HEAD", method: "HEAD", path: "/private/x", ua: gptbotUA, status: 451},
	{name: "GPTBot disallowed, a query", method: "GET", path: "/private/x?q=1", ua: gptbotUA, status: 451},
	{name: "GPTBot allowed", method: "GET", path: "/public/x", ua: gptbotUA, status: 200},
	{name: "GPTBot allowed page, its own tags", method: "GET", path: "/public/page.html", ua: gptbotUA, status: 200},
	{name: "gptbot in lower case", method: "GET", path: "/private/y", ua: strings.ToLower(gptbotUA), status: 451},

	// Crawl-delay.
	{name: "ClaudeBot first", method: "GET", path: "/page.html", ua: sameClaudeUA, status: 200},
	{name: "ClaudeBot too soon", method: "GET", path: "/plain", ua: sameClaudeUA, status: 429},
	{name: "ClaudeBot too soon, later", method: "GET", path: "/plain", ua: sameClaudeUA, advance: 90 * time.Second, status: 429},
	{name: "ClaudeBot disallowed", method: "GET", path: "/private/z", ua: sameClaudeUA, status: 451},

	// Impostors: by address (Google's list, from a local file), by signature.
	{name: "Googlebot from outside its list", method: "GET", path: "/page.html", ua: googlebotUA, client: outsideGoogle, status: 410},
	{name: "Googlebot from outside, HEAD", method: "HEAD", path: "/plain", ua: googlebotUA, client: outsideGoogle, status: 410},
	{name: "Googlebot from inside its list", method: "GET", path: "/page.html", ua: googlebotUA, client: insideGoogle, status: 200},
	{name: "bingbot, no list: pending", method: "GET", path: "/plain", ua: bingbotUA, client: outsideGoogle, status: 200},
	{name: "signed GPTBot disallowed", method: "GET", path: "/private/s", ua: gptbotUA, client: outsideGoogle, sign: "valid", status: 451},
	{name: "signed, a browser's User-Agent: enforcement reads the User-Agent", method: "GET", path: "/private/s", ua: sameBrowser, client: outsideGoogle, sign: "valid", status: 200},
	{name: "signed, allowed", method: "GET", path: "/page.html", ua: sameBrowser, client: outsideGoogle, sign: "valid", status: 200},
	{name: "forged signature from inside Google's list", method: "GET", path: "/page.html", ua: googlebotUA, client: insideGoogle, sign: "forged", status: 410},

	// Tagged responses, meta injection and what is left unrewritten.
	{name: "page", method: "GET", path: "/page.html", ua: sameBrowser, status: 200},
	{name: "page HEAD", method: "HEAD", path: "/page.html", ua: sameBrowser, status: 200},
	{name: "page If-None-Match", method: "GET", path: "/page.html", header: []string{`If-None-Match: "page-v1"`}, status: 304},
	{name: "page If-None-Match weakened", method: "GET", path: "/page.html", header: []string{`If-None-Match: W/"page-v1"`}, status: 304},
	{name: "page Range: the whole page, tagged", method: "GET", path: "/page.html", header: []string{"Range: bytes=0-9"}, status: 200},
	{name: "page no-transform", method: "GET", path: "/page.html", header: []string{"Cache-Control: no-transform"}, status: 200},
	{name: "page for GPTBot", method: "GET", path: "/other/page.html", ua: gptbotUA, status: 200},
	{name: "page for a preset's crawler", method: "GET", path: "/docs/page.html", ua: "CCBot/2.0 (https://commoncrawl.org/faq/)", status: 200},
	{name: "docs page, the backend's signals merged", method: "GET", path: "/docs/page.html", status: 200},
	{name: "docs text", method: "GET", path: "/docs/notes.txt", status: 200},
	{name: "missing page", method: "GET", path: "/missing.html", status: 404},

	// Pass-through: no route, no crawler.
	{name: "plain", method: "GET", path: "/plain", ua: sameBrowser, status: 200},
	{name: "plain POST", method: "POST", path: "/plain", status: 200},
	{name: "admin for a browser", method: "GET", path: "/admin/x", ua: sameBrowser, status: 200},
	{name: "no User-Agent", method: "GET", path: "/private/x", status: 200},

	// Violations: served all the same (the * group is never enforced), logged.
	{name: "verified Googlebot in /admin/", method: "GET", path: "/admin/x", ua: googlebotUA, client: insideGoogle, status: 200},
	{name: "pending bingbot in /admin/", method: "GET", path: "/admin/y", ua: bingbotUA, client: outsideGoogle, status: 200},

	// Over the logs' limits (serve.ViolationBurst a minute), then the next minute's first line.
	{name: "GPTBot flood", method: "GET", path: "/private/f", ua: gptbotUA, repeat: serve.ViolationBurst + 3, status: 451},
	{name: "impostor flood", method: "GET", path: "/plain", ua: googlebotUA, client: outsideGoogle, repeat: serve.ViolationBurst + 2, status: 410},
	{name: "violation flood", method: "GET", path: "/admin/f", ua: bingbotUA, client: outsideGoogle, repeat: serve.ViolationBurst + 4, status: 200},
	{name: "GPTBot next minute", method: "GET", path: "/private/n", ua: gptbotUA, advance: serve.ViolationInterval, status: 451},
	{name: "impostor next minute", method: "GET", path: "/plain", ua: googlebotUA, client: outsideGoogle, status: 410},
	{name: "violation next minute", method: "GET", path: "/admin/n", ua: bingbotUA, client: outsideGoogle, status: 200},
	{name: "ClaudeBot next minute", method: "GET", path: "/plain", ua: sameClaudeUA, status: 429},
}

// sameTableIgnored are the response fields not compared: those the server itself writes, and
// reverse_proxy's Via. Every other field either front end sends is.
var sameTableIgnored = map[string]bool{"Date": true, "Server": true, "Via": true}

// TestSameTable sends one request table through the net/http middleware (over loopback) and
// through a real Caddy (robots_txt and robots_tag handlers, the crawlers app, reverse_proxy to
// the same backend), both configured from one policy, and requires the same responses
// (status, body, every header field but Date and Server) and the same log lines (message,
// level and fields) for each request. Both share one injected clock, so crawl-delay's
// Retry-After and the logs' per-minute limits are the same.
func TestSameTable(t *testing.T) {
	cfg, err := policy.Decode([]byte(sameTablePolicy))
	if err != nil {
		t.Fatal(err)
	}
	var offset atomic.Int64
	base := time.Now()
	clock := func() time.Time { return base.Add(time.Duration(offset.Load())) }
	testClock = clock
	defer func() { testClock = nil }()

	g, _ := crawlers.BotByID("google-crawler")
	listURL := g.Verification.IPRanges[0].URL
	listFile, err := filepath.Abs("../identity/testdata/googlebot.json")
	if err != nil {
		t.Fatal(err)
	}
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots same table agent!!!"))
	key, keyFile := agentKey(t, priv)
	const agent = "https://agent.example"

	backend := httptest.NewServer(sameTableBackend())
	defer backend.Close()

	// nethttp.
	svc := identity.NewService(identity.ServiceOptions{
		Lists: identity.ListsOptions{Local: map[string]string{listURL: listFile}, Offline: true, Dir: t.TempDir()},
		NoDNS: true,
	})
	svc.Start(t.Context())
	defer svc.Stop()
	sigs, err := webbotauth.NewVerifier(webbotauth.Options{Agents: []webbotauth.Agent{{URL: agent, Bot: "openai-crawler", Keys: []webbotauth.Key{key}}}})
	if err != nil {
		t.Fatal(err)
	}
	var netLog bytes.Buffer
	netLoaded := time.Now()
	m, err := nethttp.New(cfg, nethttp.Options{
		Logger:        slog.New(slog.NewJSONHandler(&netLog, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Verifier:      svc.Verifier,
		Signatures:    sigs,
		ClientAddr:    forwardedFor, // the test's client stands for a trusted proxy, as Caddy's trusted_proxies says
		LogViolations: true,
		Now:           clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	netSrv := httptest.NewServer(m.Handler(sameTableBackend()))
	defer netSrv.Close()

	// Caddy.
	// A port of its own: the server of the config this one replaces (another test's, or this
	// test's last run with -count) shares the site port's listener while it shuts down, and
	// could answer a request or keep a connection.
	port := freePorts(1)[0]
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	caddyLoaded := time.Now()
	tester := caddytest.NewTester(t)
	tester.InitServer(string(sameTableCaddyJSON(t, cfg, Crawlers{
		Lists:      &CrawlerLists{Offline: true, Local: map[string]string{listURL: listFile}, Dir: t.TempDir()},
		ReverseDNS: &CrawlerDNS{Off: true},
		Signatures: &CrawlerSignatures{Agents: []SignatureAgent{{URL: agent, Bot: "GPTBot", KeyFile: keyFile}}},
	}, port, backend.Listener.Addr().String(), logFile)), "json")
	if t.Failed() {
		t.FailNow()
	}

	type frontEnd struct {
		name, url     string
		loaded        time.Time
		etag, lastMod string
	}
	fronts := []*frontEnd{{name: "nethttp", url: netSrv.URL, loaded: netLoaded}, {name: "Caddy", url: fmt.Sprintf("http://127.0.0.1:%d", port), loaded: caddyLoaded}}
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer hc.CloseIdleConnections()
	// The table, then generated requests: any method, agent, address, path, condition and
	// signature, in any order, through the state the table left (crawl-delay budgets, the
	// logs' limits), the clock moving on now and then.
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("SAMETABLE_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (SAMETABLE_SEED=%[1]d repeats it)", seed)
	generated := 300
	if raceEnabled {
		generated = 100
	}
	rows := append(slices.Clip(sameTableRows), sameTableGenerated(rand.New(rand.NewPCG(seed, 33)), generated)...)
	n := 0
	for _, row := range rows {
		offset.Add(int64(row.advance))
		for i := range max(row.repeat, 1) {
			n++
			host := row.host
			if host == "" {
				host = fmt.Sprintf("r%d.example", n)
			}
			var got [2]sameResponse
			for k, fe := range fronts {
				req := sameTableRequest(t, row, fe.url, host, fe.etag, fe.lastMod, priv, key.ID)
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatalf("%s: %s: %v", row.name, fe.name, err)
				}
				got[k] = readSameResponse(t, resp, fe.loaded)
				if v := resp.Header.Get("ETag"); v != "" {
					fe.etag = v
				}
				if v := resp.Header.Get("Last-Modified"); v != "" {
					fe.lastMod = v
				}
			}
			if row.status != 0 && got[0].status != row.status {
				t.Errorf("%s (#%d): nethttp status %d, want %d (%+v)", row.name, i, got[0].status, row.status, row)
			}
			if diff := got[0].diff(got[1]); diff != "" {
				t.Errorf("%s (#%d, host %s): nethttp and Caddy answer differently (%+v):\n%s", row.name, i, host, row, diff)
			}
		}
	}

	// The log lines, request by request (by host): Caddy writes its file as lines come, so
	// wait for the last ones.
	netSrv.Close() // waits for the handlers, whose lines are then all written
	netLines := sameLogLines(t, bytes.NewReader(netLog.Bytes()), "")
	var caddyLines map[string][]string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		caddyLines = sameLogLines(t, bytes.NewReader(readFile(t, logFile)), "http.handlers.robots_")
		if reflect.DeepEqual(netLines, caddyLines) || time.Now().After(deadline) {
			break
		}
	}
	hosts := map[string]bool{}
	for h := range netLines {
		hosts[h] = true
	}
	for h := range caddyLines {
		hosts[h] = true
	}
	for h := range hosts {
		if !reflect.DeepEqual(netLines[h], caddyLines[h]) {
			t.Errorf("host %s: log lines differ:\nnethttp:\n\t%s\nCaddy:\n\t%s", h, strings.Join(netLines[h], "\n\t"), strings.Join(caddyLines[h], "\n\t"))
		}
	}
	// The table must exercise what it claims: each kind of line is there.
	all := fmt.Sprint(netLines)
	for _, want := range []string{`"msg":"robots.txt disallows this path for GPTBot (Disallow: /private/)"`, `"rule":"crawl-delay"`,
		`"rule":"impostor: ip-list"`, `"rule":"impostor: signature"`, `"msg":"` + serve.ViolationMessage + `"`, `"suppressed":4,"token":"GPTBot"`, `"suppressed":4,"token":"Googlebot"`, `"suppressed":5,"token":""`, `retry after 3450 s`, `"level":"debug"`} {
		if !strings.Contains(all, want) {
			t.Errorf("no log line has %s; the lines:\n%s", want, all)
		}
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameTableGenerated are n requests drawn from the table's ingredients; their status is
// whatever both front ends agree on.
func sameTableGenerated(rng *rand.Rand, n int) []sameTableRow {
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	rows := make([]sameTableRow, n)
	for i := range rows {
		r := sameTableRow{
			name:   fmt.Sprintf("generated %d", i),
			method: pick("GET", "GET", "GET", "HEAD", "POST", "OPTIONS"),
			path: pick("/robots.txt", "/license.xml", "/.well-known/tdmrep.json", "/page.html", "/docs/page.html", "/docs/a.txt",
				"/private/g", "/private/", "/admin/g", "/public/g.html", "/plain", "/missing.html", "/Private/x", "/robots.txt/x"),
			ua:     pick("", sameBrowser, gptbotUA, sameClaudeUA, googlebotUA, bingbotUA, "CCBot/2.0 (https://commoncrawl.org/faq/)", strings.ToUpper(gptbotUA)),
			client: pick("", outsideGoogle, insideGoogle),
			sign:   pick("", "", "", "", "valid", "forged"),
		}
		if rng.IntN(4) == 0 {
			r.header = append(r.header, pick("If-None-Match: @ETAG@", `If-None-Match: "page-v1"`, "Range: bytes=2-5", "Cache-Control: no-transform",
				// Before the backend's pages, at them, after everything.
				"If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT", "If-Modified-Since: Sun, 01 Nov 2026 12:00:00 GMT", "If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT"))
		}
		if rng.IntN(5) == 0 {
			r.path += "?" + pick("q=1", "a=b&c")
		}
		if rng.IntN(20) == 0 {
			r.advance = time.Duration(rng.IntN(120)) * time.Second
		}
		rows[i] = r
	}
	return rows
}

// forwardedFor is the address the X-Forwarded-For field names, for nethttp.Options.ClientAddr:
// the connection's address when it has none.
func forwardedFor(r *http.Request) netip.Addr {
	if a, err := netip.ParseAddr(r.Header.Get("X-Forwarded-For")); err == nil {
		return a
	}
	ap, _ := netip.ParseAddrPort(r.RemoteAddr)
	return ap.Addr()
}

// sameTableCaddyJSON is the Caddy config of the policy cfg: a robots_txt handler (the policy's
// robots_txt, with log_violations), a route per robots_tag entry (its paths as a path matcher),
// and reverse_proxy to backend, on port; the crawlers app as given; Caddy's log, at debug level in JSON,
// to logFile. The handlers' JSON is the module's own types marshalled.
func sameTableCaddyJSON(t *testing.T, cfg policy.Config, crawlersApp Crawlers, port int, backend, logFile string) []byte {
	t.Helper()
	handler := func(name string, v any) map[string]any {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var h map[string]any
		if err := json.Unmarshal(b, &h); err != nil {
			t.Fatal(err)
		}
		h["handler"] = name
		return h
	}
	routes := []any{map[string]any{"handle": []any{handler("robots_txt", RobotsTxt{RobotsTxt: *cfg.RobotsTxt, LogViolations: true})}}}
	for _, r := range cfg.RobotsTag {
		route := map[string]any{"handle": []any{handler("robots_tag", RobotsTag{Tags: r.Tags})}}
		if len(r.Paths) > 0 {
			route["match"] = []any{map[string]any{"path": r.Paths}}
		}
		routes = append(routes, route)
	}
	routes = append(routes, map[string]any{"handle": []any{map[string]any{"handler": "reverse_proxy", "upstreams": []any{map[string]any{"dial": backend}}}}})
	c := map[string]any{
		"admin": map[string]any{"listen": fmt.Sprintf("localhost:%d", adminPort)},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{
			"writer":  map[string]any{"output": "file", "filename": logFile},
			"encoder": map[string]any{"format": "json"},
			"level":   "DEBUG",
		}}},
		"apps": map[string]any{
			"crawlers": crawlersApp,
			"http": map[string]any{
				"http_port":    port,
				"grace_period": "1s",
				"servers": map[string]any{"same": map[string]any{
					"listen":          []string{fmt.Sprintf("127.0.0.1:%d", port)},
					"routes":          routes,
					"automatic_https": map[string]any{"disable": true},
					"trusted_proxies": map[string]any{"source": "static", "ranges": []string{"127.0.0.1/8", "::1/128"}},
				}},
			},
		},
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameTableRequest is row's request to the front end at base, for host.
func sameTableRequest(t *testing.T, row sameTableRow, base, host, etag, lastMod string, priv ed25519.PrivateKey, keyID string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(row.method, base+row.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("User-Agent", row.ua) // an empty one is sent empty, not as Go's
	if row.client != "" {
		req.Header.Set("X-Forwarded-For", row.client)
	}
	for _, h := range row.header {
		k, v, _ := strings.Cut(h, ":")
		v = strings.NewReplacer("@ETAG@", etag, "@LASTMOD@", lastMod).Replace(strings.TrimSpace(v))
		req.Header.Add(k, v)
	}
	if row.sign != "" {
		// As a Web Bot Auth agent signs; the authority is the Host both front ends see.
		now := time.Now().Unix()
		req.Header.Set("Signature-Agent", `sig1="https://agent.example"`)
		req.Header.Set("Signature-Input", fmt.Sprintf(`sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now-1, now+300, keyID))
		req.Header.Set("Signature", "sig1=:AA==:")
		parsed, err := webbotauth.ParseSignatures(req.Header)
		if err != nil {
			t.Fatal(err)
		}
		signed := req.Clone(req.Context())
		if row.sign == "forged" {
			signed.URL.Path = "/somewhere-else"
		}
		b, err := parsed[0].Base(signed, webbotauth.Target{Scheme: "http", Authority: host})
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(priv, b))+":")
	}
	return req
}

// sameResponse is what TestSameTable compares of a response.
type sameResponse struct {
	status        int
	contentLength int64
	header        http.Header
	body          string
}

// readSameResponse reads resp. A Last-Modified from the time its front end loaded the config
// on reads "(load)": the time robots.txt, a license document or tdmrep.json was rendered, at
// each front end's load (Caddy renders tdmrep.json at its first request for it, once it can
// see the site's routes).
func readSameResponse(t *testing.T, resp *http.Response, loaded time.Time) sameResponse {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := resp.Header.Clone()
	for k := range sameTableIgnored {
		h.Del(k)
	}
	if lm, err := http.ParseTime(h.Get("Last-Modified")); err == nil && !lm.Before(loaded.Truncate(time.Second)) && !lm.After(time.Now()) {
		h.Set("Last-Modified", "(load)")
	}
	return sameResponse{status: resp.StatusCode, contentLength: resp.ContentLength, header: h, body: string(body)}
}

// diff says how a and b (nethttp's and Caddy's) differ, "" when they do not.
func (a sameResponse) diff(b sameResponse) string {
	var d []string
	if a.status != b.status {
		d = append(d, fmt.Sprintf("status: %d, %d", a.status, b.status))
	}
	if a.contentLength != b.contentLength {
		d = append(d, fmt.Sprintf("content length: %d, %d", a.contentLength, b.contentLength))
	}
	names := map[string]bool{}
	for k := range a.header {
		names[k] = true
	}
	for k := range b.header {
		names[k] = true
	}
	for k := range names {
		if !reflect.DeepEqual(a.header[k], b.header[k]) {
			d = append(d, fmt.Sprintf("%s: %q, %q", k, a.header[k], b.header[k]))
		}
	}
	if a.body != b.body {
		d = append(d, fmt.Sprintf("body:\n%q\n%q", a.body, b.body))
	}
	return strings.Join(d, "\n")
}

// sameLogLines are the lines of a JSON log of loggers starting with logger, by their "host"
// field, each rendered without the keys a front end adds of its own (time, logger) and with
// the level in lower case. The lines without a host, about the config rather than a request,
// are under "" and only those at warn level or above, by message alone: when a front end
// logs them differs (nethttp at load; Caddy at load, or at the first request for
// tdmrep.json, whose routes it finds then), and so does the path each names (nethttp's
// config, Caddy's JSON), which the message repeats as a prefix.
func sameLogLines(t *testing.T, r io.Reader, logger string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	dec := json.NewDecoder(r)
	for i := 0; ; i++ {
		var l map[string]any
		if err := dec.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("log line %d: %v", i, err)
		}
		if name, _ := l["logger"].(string); !strings.HasPrefix(name, logger) {
			continue
		}
		for _, k := range []string{"time", "ts", "logger"} {
			delete(l, k)
		}
		level := strings.ToLower(fmt.Sprint(l["level"]))
		l["level"] = level
		host, ok := l["host"].(string)
		if !ok {
			if level == "debug" || level == "info" {
				continue
			}
			msg := fmt.Sprint(l["msg"])
			if p, ok := l["path"].(string); ok && p != "" {
				msg = strings.Replace(msg, p+": ", "", 1)
			}
			out[""] = append(out[""], level+" "+msg)
			continue
		}
		b, _ := json.Marshal(l) // keys sorted
		out[host] = append(out[host], string(b))
	}
	slices.Sort(out[""])
	return out
}

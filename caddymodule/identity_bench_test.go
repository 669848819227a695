package caddymodule

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// benchApp is a provisioned and started crawlers app verifying Google's crawler from the
// local copy of its list.
func benchApp(b testing.TB) *Crawlers { return benchAppWith(b, nil) }

// benchAppWith is benchApp with Web Bot Auth configured as sigs says (nil: off).
func benchAppWith(b testing.TB, sigs *CrawlerSignatures) *Crawlers {
	g, _ := crawlers.BotByID("google-crawler")
	// A context with a config, as Caddy provisions an app in.
	pctx, err := caddy.ProvisionContext(&caddy.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := caddy.NewContext(pctx)
	b.Cleanup(cancel)
	a := &Crawlers{
		Lists:      &CrawlerLists{Offline: true, Dir: b.TempDir(), Local: map[string]string{g.Verification.IPRanges[0].URL: "../identity/testdata/googlebot.json"}},
		ReverseDNS: &CrawlerDNS{Off: true},
		Signatures: sigs,
	}
	if err := a.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	a.logger = zap.NewNop()
	if err := a.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Cleanup() })
	return a
}

var benchUAs = map[string]struct{ ua, addr, status string }{
	"Browser":   {"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "203.0.113.9:4711", "none"},
	"Googlebot": {googlebotUA, "66.249.64.5:4711", "verified"},
	"Impostor":  {googlebotUA, "203.0.113.9:4711", "impostor"},
	// A crawler only the AI catalogue knows, identified by its name.
	"AIOnly": {"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", "203.0.113.9:4711", "unverifiable"},
}

// benchServer stands for the Caddy server a request comes through (no trusted proxies: the
// client IP is the connection's).
var benchServer = &caddyhttp.Server{}

// benchIdentify measures what Caddy does to prepare a request (a replacer, the request's
// variables with the client IP), with the identity found and its placeholders made
// available when identify is set. The difference between the two is the identity's cost.
func benchIdentify(b *testing.B, kind string, identify bool) {
	benchIdentifyWith(b, benchApp(b), kind, identify)
}

func benchIdentifyWith(b *testing.B, a *Crawlers, kind string, identify bool) {
	c := benchUAs[kind]
	r := httptest.NewRequest("GET", "/page", nil)
	r.Header.Set("User-Agent", c.ua)
	r.RemoteAddr = c.addr
	if got := a.identify(caddyhttp.PrepareRequest(r, caddy.NewReplacer(), nil, benchServer)).id.Status.String(); got != c.status {
		b.Fatalf("%s: identity %s, want %s", kind, got, c.status)
	}
	b.ReportAllocs()
	for b.Loop() {
		repl := caddy.NewReplacer()
		repl.Map(noPlaceholders) // as Caddy's server does for {http.*} before the handlers run
		pr := caddyhttp.PrepareRequest(r, repl, nil, benchServer)
		if identify {
			a.identify(pr)
		}
	}
}

func noPlaceholders(string) (any, bool) { return nil, false }

func BenchmarkPrepareOnlyBrowser(b *testing.B)   { benchIdentify(b, "Browser", false) }
func BenchmarkIdentifyBrowser(b *testing.B)      { benchIdentify(b, "Browser", true) }
func BenchmarkPrepareOnlyGooglebot(b *testing.B) { benchIdentify(b, "Googlebot", false) }
func BenchmarkIdentifyGooglebot(b *testing.B)    { benchIdentify(b, "Googlebot", true) }
func BenchmarkIdentifyImpostor(b *testing.B)     { benchIdentify(b, "Impostor", true) }
func BenchmarkIdentifyAIOnly(b *testing.B)       { benchIdentify(b, "AIOnly", true) }

// BenchmarkIdentifyBrowserSignaturesOn is BenchmarkIdentifyBrowser with a trusted signature
// agent configured: what an unsigned request pays for the feature being on.
func BenchmarkIdentifyBrowserSignaturesOn(b *testing.B) {
	a := benchAppWith(b, &CrawlerSignatures{Agents: []SignatureAgent{{URL: "https://agent.example", Bot: "GPTBot"}}})
	benchIdentifyWith(b, a, "Browser", true)
}

// benchCaddy loads cfg (a Caddyfile after the globals with extra) as Caddy's running config
// and returns its servers by port, whose ServeHTTP is the whole of Caddy's request handling
// (the replacer, the variables, the routes, the handlers), without the network.
func benchCaddy(b *testing.B, extra, cfg string) map[string]*caddyhttp.Server {
	b.Helper()
	js, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(globalsWith(extra)+expand(cfg)), nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := caddy.Load(js, true); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = caddy.Stop() })
	app, err := caddy.ActiveContext().App("http")
	if err != nil {
		b.Fatal(err)
	}
	servers := map[string]*caddyhttp.Server{}
	for _, srv := range app.(*caddyhttp.App).Servers {
		servers[srv.Listen[0]] = srv
	}
	return servers
}

// benchCaddySites are one site twice: the first verifies crawlers (enforce's impostors:
// every request identified and verified), the second does not; both enforce the file.
const benchCaddySites = `:@PORT@ {
	robots_txt {
		group GPTBot {
			disallow /
		}
		enforce {
			impostors 410
		}
	}
	respond "ok"
}
:@PORT2@ {
	robots_txt {
		group GPTBot {
			disallow /
		}
		enforce
	}
	respond "ok"
}
`

// BenchmarkCaddyVerifiedCrawler: Googlebot's request, from an address of Google's list,
// through a real Caddy, to the same site with verification and without, side by side in one
// run (alternating request by request, so that the machine's load falls on both alike):
// verified-ns/op and plain-ns/op, their ratio, and the allocations verification adds.
func BenchmarkCaddyVerifiedCrawler(b *testing.B) {
	g, _ := crawlers.BotByID("google-crawler")
	file, _ := filepath.Abs("../identity/testdata/googlebot.json")
	extra := fmt.Sprintf("\tcrawlers {\n\t\tlists offline\n\t\tlist_file %s %s\n\t\tlists_dir %s\n\t\treverse_dns off\n\t}\n", g.Verification.IPRanges[0].URL, file, b.TempDir())
	servers := benchCaddy(b, extra, benchCaddySites)
	verified, plain := servers[fmt.Sprintf(":%d", sitePort)], servers[fmt.Sprintf(":%d", site2Port)]
	r := httptest.NewRequest("GET", "/page", nil)
	r.Header.Set("User-Agent", googlebotUA)
	r.RemoteAddr = "66.249.64.5:4711"
	w := &benchWriter{h: http.Header{}}
	serve := func(srv *caddyhttp.Server) func() {
		return func() {
			clear(w.h)
			w.status = 0
			srv.ServeHTTP(w, r)
		}
	}
	sv, sp := serve(verified), serve(plain)
	for _, f := range []func(){sv, sp} {
		if f(); w.status != 200 {
			b.Fatalf("status %d", w.status)
		}
	}
	added := testing.AllocsPerRun(1000, sv) - testing.AllocsPerRun(1000, sp)
	var tv, tp time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		first, second, t1, t2 := sv, sp, &tv, &tp
		if i++; i%2 == 0 {
			first, second, t1, t2 = sp, sv, &tp, &tv
		}
		t0 := time.Now()
		first()
		m := time.Now()
		second()
		*t1 += m.Sub(t0)
		*t2 += time.Since(m)
	}
	if w.status != 200 {
		b.Fatalf("status %d", w.status)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tv)/n, "verified-ns/op")
	b.ReportMetric(float64(tp)/n, "plain-ns/op")
	b.ReportMetric(float64(tv)/float64(tp), "ratio")
	b.ReportMetric(added, "added-allocs/op")
}

// benchWriter is a ResponseWriter that keeps nothing but the status, reused by every request.
type benchWriter struct {
	h      http.Header
	status int
}

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *benchWriter) WriteHeader(status int)      { w.status = status }

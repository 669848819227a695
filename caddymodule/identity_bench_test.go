package caddymodule

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
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
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
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

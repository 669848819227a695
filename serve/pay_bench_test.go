package serve_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/x402/x402test"
)

// payBenchCores are the same site without pay and with GPTBot priced at /articles/*, both
// identifying requests (testIdentity) and tagging /articles/*.
func payBenchCores(tb testing.TB, facilitator string) (without, with *serve.Core) {
	tb.Helper()
	base := func() policy.Config {
		return policy.Config{
			RobotsTxt: &policy.RobotsTxt{Groups: []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}}},
				Enforce: &policy.Enforce{Impostors: &policy.Impostors{}}},
			RobotsTag: []policy.Route{{Paths: []string{"/articles/*"}, Tags: policy.Tags{Rules: map[string][]string{"*": {"noarchive"}}}}},
		}
	}
	var err error
	if without, err = serve.New(base(), serve.Options{Identify: testIdentity}); err != nil {
		tb.Fatal(err)
	}
	cfg := base()
	cfg.RobotsTxt.Pay = payConfig(facilitator, policy.Price{Crawlers: []string{"GPTBot"}, Paths: []string{"/articles/*"}, Amount: "0.001"})
	if with, err = serve.New(cfg, serve.Options{Identify: testIdentity}); err != nil {
		tb.Fatal(err)
	}
	return without, with
}

type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

var contentBytes = []byte("content")

var benchContent = serve.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
	_, err := w.Write(contentBytes)
	return err
})

// BenchmarkPay: an unpriced request on a site without pay and on the same site with pay,
// side by side (a browser; a verified GPTBot elsewhere than /articles/; a verified crawler
// that pays nothing), then a priced one answered 402, and one paid with the facilitator on
// loopback (two round trips: /verify, /settle).
func BenchmarkPay(b *testing.B) {
	fac := x402test.NewFacilitator(b)
	without, with := payBenchCores(b, fac.URL)
	req := func(path, name, status string) *http.Request {
		r := httptest.NewRequest("GET", "http://example.com"+path, nil)
		r.Header.Set("X-Test-Name", name)
		r.Header.Set("X-Test-Status", status)
		return r
	}
	for _, c := range []struct{ name, path, crawler, status string }{
		{"browser", "/articles/a", "", ""},
		{"verified-unpriced-path", "/about", "GPTBot", "verified"},
		{"verified-unpriced-crawler", "/articles/a", "ClaudeBot", "verified"},
		{"impostor", "/articles/a", "", "impostor"},
	} {
		for _, core := range []struct {
			name string
			c    *serve.Core
		}{{"without-pay", without}, {"with-pay", with}} {
			b.Run("unpriced/"+c.name+"/"+core.name, func(b *testing.B) {
				r := req(c.path, c.crawler, c.status)
				w := &nopWriter{h: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					if err := core.c.ServeHTTP(w, r, benchContent); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	b.Run("priced/402", func(b *testing.B) {
		r := req("/articles/a", "GPTBot", "verified")
		w := &nopWriter{h: http.Header{}}
		b.ReportAllocs()
		for b.Loop() {
			clear(w.h)
			_ = with.ServeHTTP(w, r, benchContent)
		}
	})
	n := 0 // nonces across runs: the facilitator spends each once
	b.Run("priced/paid-loopback", func(b *testing.B) {
		r := req("/articles/a", "GPTBot", "verified")
		rec := httptest.NewRecorder()
		_ = with.ServeHTTP(rec, r, benchContent)
		required := rec.Header().Get("Payment-Required")
		client := &x402test.Client{From: "0xC", Nonce: func() string { n++; return fmt.Sprint(n) }}
		w := &nopWriter{h: http.Header{}}
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			sig, err := client.Pay(required)
			if err != nil {
				b.Fatal(err)
			}
			pr := req("/articles/a", "GPTBot", "verified")
			pr.Header.Set("Payment-Signature", sig)
			clear(w.h)
			b.StartTimer()
			_ = with.ServeHTTP(w, pr, benchContent)
			if w.h.Get("Payment-Response") == "" {
				b.Fatal("not paid")
			}
		}
	})
}

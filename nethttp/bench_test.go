package nethttp_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// benchWriter is a minimal ResponseWriter that keeps nothing, so the benchmarks measure the
// middleware and not a recorder.
type benchWriter struct{ h http.Header }

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *benchWriter) WriteHeader(int)             {}

var okBody = []byte("ok")

func okHandler(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(okBody) }

func benchServe(b *testing.B, h http.Handler, path string) {
	req := httptest.NewRequest("GET", path, nil)
	w := &benchWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

func benchMiddleware(b testing.TB) *nethttp.Middleware {
	m, err := nethttp.New(nethttp.Config{
		RobotsTxt: siteRobots,
		RobotsTag: []nethttp.Route{
			{Paths: []string{"/drafts/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex", "nosnippet"}}}},
			{Paths: []string{"*.pdf"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}}},
		},
	}, nethttp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// usageMiddleware is benchMiddleware's routes with Content-Usage preferences added (and an
// overlapping route with preferences only).
func usageMiddleware(b testing.TB) *nethttp.Middleware {
	m, err := nethttp.New(nethttp.Config{
		RobotsTag: []nethttp.Route{
			{Paths: []string{"/drafts/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex", "nosnippet"}}, ContentUsage: map[string]string{"train-ai": "n"}}},
			{Paths: []string{"*.pdf"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, ContentUsage: map[string]string{"search": "y"}}},
			{Paths: []string{"/open/*"}, Tags: nethttp.TagConfig{ContentUsage: map[string]string{"train-ai": "y"}}},
		},
	}, nethttp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// backendUsageHandler sends its own Content-Usage.
func backendUsageHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Usage", "search=y")
	_, _ = w.Write(okBody)
}

// BenchmarkMiddlewareContentUsage is BenchmarkMiddlewareHeaderRoute's request on a route that
// also sends Content-Usage.
func BenchmarkMiddlewareContentUsage(b *testing.B) {
	benchServe(b, usageMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/drafts/post")
}

// BenchmarkMiddlewareContentUsageTwoRoutes: two routes with preferences, combined once.
func BenchmarkMiddlewareContentUsageTwoRoutes(b *testing.B) {
	benchServe(b, usageMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/drafts/x.pdf")
}

// BenchmarkMiddlewareContentUsageBackend: the handler sends its own Content-Usage, merged
// with the route's once per distinct value.
func BenchmarkMiddlewareContentUsageBackend(b *testing.B) {
	benchServe(b, usageMiddleware(b).Handler(http.HandlerFunc(backendUsageHandler)), "/drafts/post")
}

// BenchmarkMiddlewareBackendUsageAlone is BenchmarkMiddlewareContentUsageBackend's handler
// on the same route without content_usage, which leaves the handler's field alone: its
// baseline.
func BenchmarkMiddlewareBackendUsageAlone(b *testing.B) {
	benchServe(b, benchMiddleware(b).Handler(http.HandlerFunc(backendUsageHandler)), "/drafts/post")
}

// BenchmarkMiddlewareContentUsageOnly: a route with preferences and no robots rules, to
// compare with BenchmarkBareHandlerSettingHeader.
func BenchmarkMiddlewareContentUsageOnly(b *testing.B) {
	benchServe(b, usageMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/open/post")
}

// BenchmarkBareHandler is the baseline: the handler alone.
func BenchmarkBareHandler(b *testing.B) {
	benchServe(b, http.HandlerFunc(okHandler), "/articles/post")
}

// BenchmarkBareHandlerSettingHeader is the handler setting one header itself: the cost the
// header-only route is compared with.
func BenchmarkBareHandlerSettingHeader(b *testing.B) {
	benchServe(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Robots-Tag", "*;noindex;nosnippet")
		okHandler(w, r)
	}), "/drafts/post")
}

// BenchmarkMiddlewareNoMatch is a request that matches no route.
func BenchmarkMiddlewareNoMatch(b *testing.B) {
	benchServe(b, benchMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/articles/post")
}

// BenchmarkMiddlewareHeaderRoute is a request on a header-only route.
func BenchmarkMiddlewareHeaderRoute(b *testing.B) {
	benchServe(b, benchMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/drafts/post")
}

// BenchmarkMiddlewareTwoRoutes is a request two routes match: their union is cached.
func BenchmarkMiddlewareTwoRoutes(b *testing.B) {
	benchServe(b, benchMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/drafts/x.pdf")
}

// backendValue is a typical value a backend sends with every response.
const backendValue = "*;noindex, googlebot;max-snippet=50"

func backendHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Robots-Tag", backendValue)
	_, _ = w.Write(okBody)
}

// BenchmarkMiddlewareBackendHeader is a request on a header route whose handler sends its own
// Robots-Tag: the response carries the union, merged once per distinct value.
func BenchmarkMiddlewareBackendHeader(b *testing.B) {
	benchServe(b, benchMiddleware(b).Handler(http.HandlerFunc(backendHandler)), "/drafts/post")
}

// BenchmarkBackendHeaderAlone is the handler sending its own Robots-Tag without the
// middleware: the baseline of BenchmarkMiddlewareBackendHeader.
func BenchmarkBackendHeaderAlone(b *testing.B) {
	benchServe(b, http.HandlerFunc(backendHandler), "/drafts/post")
}

// BenchmarkRobotsTxt serves robots.txt (rendered once per origin).
func BenchmarkRobotsTxt(b *testing.B) {
	benchServe(b, benchMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/robots.txt")
}

// tdmMiddleware is benchMiddleware's routes with a TDMRep declaration added to each.
func tdmMiddleware(b testing.TB) *nethttp.Middleware {
	one, zero := 1, 0
	m, err := nethttp.New(nethttp.Config{
		RobotsTag: []nethttp.Route{
			{Paths: []string{"/drafts/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex", "nosnippet"}}, TDM: &nethttp.TDM{Reservation: &one, Policy: "https://example.com/policies/tdm.json"}}},
			{Paths: []string{"*.pdf"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}, TDM: &nethttp.TDM{Reservation: &zero}}},
		},
	}, nethttp.Options{Logger: slog.New(slog.DiscardHandler)}) // the 0 rule left out of tdmrep.json is warned about
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// backendTDMHandler sends its own tdm-reservation.
func backendTDMHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Tdm-Reservation", "0")
	_, _ = w.Write(okBody)
}

// BenchmarkMiddlewareTDM is BenchmarkMiddlewareHeaderRoute's request on the same route with a
// TDMRep declaration (tdm-reservation and tdm-policy).
func BenchmarkMiddlewareTDM(b *testing.B) {
	benchServe(b, tdmMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/drafts/post")
}

// BenchmarkMiddlewareTDMTwoRoutes is BenchmarkMiddlewareTwoRoutes with both routes declaring.
func BenchmarkMiddlewareTDMTwoRoutes(b *testing.B) {
	benchServe(b, tdmMiddleware(b).Handler(http.HandlerFunc(okHandler)), "/drafts/x.pdf")
}

// BenchmarkMiddlewareTDMBackend: the handler sends its own tdm-reservation, combined with the
// route's.
func BenchmarkMiddlewareTDMBackend(b *testing.B) {
	benchServe(b, tdmMiddleware(b).Handler(http.HandlerFunc(backendTDMHandler)), "/drafts/post")
}

// BenchmarkMiddlewareTDMBackendAlone is BenchmarkMiddlewareTDMBackend's handler on the
// route without a declaration: its baseline.
func BenchmarkMiddlewareTDMBackendAlone(b *testing.B) {
	benchServe(b, benchMiddleware(b).Handler(http.HandlerFunc(backendTDMHandler)), "/drafts/post")
}

// BenchmarkTDMRepFile serves the generated /.well-known/tdmrep.json.
func BenchmarkTDMRepFile(b *testing.B) {
	benchServe(b, tdmMiddleware(b).Handler(http.HandlerFunc(okHandler)), tdmrep.WellKnownPath)
}

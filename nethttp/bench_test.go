package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/nethttp"
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

// TestAllocationBudget makes the allocation numbers that are a contract fail loudly: the
// no-match path adds none, the header route adds none beyond what the bare handler setting
// the header costs.
func TestAllocationBudget(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumentation changes allocation counts")
	}
	m := benchMiddleware(t)
	measure := func(h http.Handler, path string) float64 {
		req := httptest.NewRequest("GET", path, nil)
		w := &benchWriter{h: http.Header{}}
		h.ServeHTTP(w, req) // warm pools and caches
		return testing.AllocsPerRun(200, func() {
			clear(w.h)
			h.ServeHTTP(w, req)
		})
	}
	bare := measure(http.HandlerFunc(okHandler), "/articles/post")
	bareHeader := measure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Robots-Tag", "*;noindex;nosnippet")
		okHandler(w, r)
	}), "/drafts/post")
	h := m.Handler(http.HandlerFunc(okHandler))
	if got := measure(h, "/articles/post"); got > bare {
		t.Errorf("no-match path: %v allocs/op, bare handler %v", got, bare)
	}
	if got := measure(h, "/drafts/post"); got > bareHeader {
		t.Errorf("header route: %v allocs/op, bare handler setting the header %v", got, bareHeader)
	}
	if got := measure(h, "/drafts/x.pdf"); got > bareHeader {
		t.Errorf("two routes (cached union): %v allocs/op, bare handler setting the header %v", got, bareHeader)
	}
	// A backend's own header costs at most 2 allocations more than the handler sending it
	// alone, merge with the route's rules included (issue 9, part 4).
	withBackend := m.Handler(http.HandlerFunc(backendHandler))
	if got, alone := measure(withBackend, "/drafts/post"), measure(http.HandlerFunc(backendHandler), "/drafts/post"); got > alone+2 {
		t.Errorf("backend header: %v allocs/op, the handler alone %v", got, alone)
	}
	if got := measure(h, "/robots.txt"); got > bare {
		t.Errorf("robots.txt: %v allocs/op, bare handler %v", got, bare)
	}
	// Content-Usage (issue 11): a route with content_usage adds no allocation to the same
	// route without it, alone, in a cached union, or with preferences only; a backend's own
	// Content-Usage is merged once per distinct value and adds none either.
	hu := usageMiddleware(t).Handler(http.HandlerFunc(okHandler))
	for _, path := range []string{"/drafts/post", "/drafts/x.pdf"} {
		if got, without := measure(hu, path), measure(h, path); got > without {
			t.Errorf("%s with content_usage: %v allocs/op, without %v", path, got, without)
		}
	}
	if got := measure(hu, "/open/post"); got > bareHeader {
		t.Errorf("content_usage-only route: %v allocs/op, bare handler setting a header %v", got, bareHeader)
	}
	withUsageBackend := usageMiddleware(t).Handler(http.HandlerFunc(backendUsageHandler))
	if got, without := measure(withUsageBackend, "/drafts/post"), measure(m.Handler(http.HandlerFunc(backendUsageHandler)), "/drafts/post"); got > without {
		t.Errorf("backend Content-Usage merged: %v allocs/op, the same route without content_usage %v", got, without)
	}
}

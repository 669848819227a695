// The allocation tests: the race detector changes allocation counts, so they skip under it
// (./test.sh runs them in its pass without -race).

package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/nethttp"
	core "github.com/sitepolicy/caddy-robots/serve"
)

// TestAllocationBudget makes the allocation numbers that are a contract fail loudly: the
// no-match path adds none, the header route adds none beyond what the bare handler setting
// the header costs.
func TestAllocationBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation changes allocation counts")
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
	// alone, merge with the route's rules included.
	withBackend := m.Handler(http.HandlerFunc(backendHandler))
	if got, alone := measure(withBackend, "/drafts/post"), measure(http.HandlerFunc(backendHandler), "/drafts/post"); got > alone+2 {
		t.Errorf("backend header: %v allocs/op, the handler alone %v", got, alone)
	}
	if got := measure(h, "/robots.txt"); got > bare {
		t.Errorf("robots.txt: %v allocs/op, bare handler %v", got, bare)
	}
	// Content-Usage: a route with content_usage adds no allocation to the same
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
	// TDMRep: a route with a declaration adds no allocation to the same route without one,
	// alone, in a cached union, or combined with a handler's own tdm-reservation; the
	// generated tdmrep.json costs what robots.txt does.
	ht := tdmMiddleware(t).Handler(http.HandlerFunc(okHandler))
	for _, path := range []string{"/drafts/post", "/drafts/x.pdf"} {
		if got, without := measure(ht, path), measure(h, path); got > without {
			t.Errorf("%s with tdm: %v allocs/op, without %v", path, got, without)
		}
	}
	if got, without := measure(tdmMiddleware(t).Handler(http.HandlerFunc(backendTDMHandler)), "/drafts/post"), measure(m.Handler(http.HandlerFunc(backendTDMHandler)), "/drafts/post"); got > without {
		t.Errorf("backend tdm-reservation combined: %v allocs/op, the same route without tdm %v", got, without)
	}
	if got := measure(ht, "/.well-known/tdmrep.json"); got > bare {
		t.Errorf("tdmrep.json: %v allocs/op, bare handler %v", got, bare)
	}
}

// TestEnforceAllocationBudget: a browser's request on a site enforcing the whole catalogue
// does not allocate, like the same request without enforcement.
func TestEnforceAllocationBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation changes allocation counts")
	}
	measure := func(h http.Handler) float64 {
		req := httptest.NewRequest("GET", "/articles/post", nil)
		req.Header.Set("User-Agent", chromeUA)
		w := &benchWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		return testing.AllocsPerRun(200, func() {
			clear(w.h)
			h.ServeHTTP(w, req)
		})
	}
	with := measure(enforcingMiddleware(t).Handler(http.HandlerFunc(okHandler)))
	without := measure(nonEnforcingMiddleware(t).Handler(http.HandlerFunc(okHandler)))
	if with != 0 || with > without {
		t.Errorf("browser request: %v allocs/op enforcing, %v without; enforcement must add none", with, without)
	}
}

// TestRobotsTxtMergedAllocs: serving a cached merge allocates no more than serving the
// declared file (the cache lookup is a read lock and two atomic loads).
func TestRobotsTxtMergedAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation changes allocation counts")
	}
	declared, merged := mergePairHandlers(t)
	measure := func(h http.Handler) float64 {
		req := httptest.NewRequest("GET", "/robots.txt", nil)
		w := &benchWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		return testing.AllocsPerRun(500, func() {
			clear(w.h)
			h.ServeHTTP(w, req)
		})
	}
	d, m := measure(declared), measure(merged)
	if m > d {
		t.Errorf("cached merge: %v allocs/op, declared file %v", m, d)
	}
	t.Logf("allocs/op: declared %v, cached merge %v", d, m)
}

// TestLicenseAllocationBudget: RSL license links add no allocation to the same routes without
// them (alone, in a cached union), a license-only route costs no more than a handler setting
// a header, and a handler's own Link costs one allocation more: the Link value slice growing
// by the license's line, the header map's own growth.
func TestLicenseAllocationBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation changes allocation counts")
	}
	measure := func(h http.Handler, path string) float64 {
		req := httptest.NewRequest("GET", path, nil)
		w := &benchWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		return testing.AllocsPerRun(200, func() {
			clear(w.h)
			h.ServeHTTP(w, req)
		})
	}
	with := licenseMiddleware(t)
	without := benchMiddleware(t)
	for _, path := range []string{"/drafts/post", "/drafts/x.pdf"} {
		if got, base := measure(with.Handler(http.HandlerFunc(okHandler)), path), measure(without.Handler(http.HandlerFunc(okHandler)), path); got > base {
			t.Errorf("%s with licenses: %v allocs/op, without %v", path, got, base)
		}
	}
	bareHeader := measure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</license.xml>")
		okHandler(w, r)
	}), "/open/post")
	if got := measure(with.Handler(http.HandlerFunc(okHandler)), "/open/post"); got > bareHeader {
		t.Errorf("license-only route: %v allocs/op, bare handler setting a header %v", got, bareHeader)
	}
	if got, base := measure(with.Handler(http.HandlerFunc(backendLinkHandler)), "/drafts/post"), measure(without.Handler(http.HandlerFunc(backendLinkHandler)), "/drafts/post"); got > base+1 {
		t.Errorf("handler's own Link: %v allocs/op, the same route without licenses %v", got, base)
	}
	// An HTML page gets its <link> element with no more allocations than its meta element.
	if got, base := measure(metaPageHandler(t, "text/html; charset=utf-8", "/license.xml"), "/drafts/a"), measure(metaPageHandler(t, "text/html; charset=utf-8"), "/drafts/a"); got > base {
		t.Errorf("HTML page with a license link: %v allocs/op, without %v", got, base)
	}
	// A license document is served as robots.txt is: no more allocations.
	docs, err := nethttp.NewFromJSON([]byte(documentConfig), nethttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dh := docs.Handler(http.HandlerFunc(okHandler))
	if got, rt := measure(dh, "/license.xml"), measure(without.Handler(http.HandlerFunc(okHandler)), "/robots.txt"); got > rt {
		t.Errorf("license document: %v allocs/op, robots.txt %v", got, rt)
	}
}

// TestObserveAllocationBudget: counting and the violation check add no allocation to a
// browser's request or a crawler's (its reports past the limit).
func TestObserveAllocationBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation changes allocation counts")
	}
	for _, ua := range []string{chromeUA, "Googlebot/2.1", "GPTBot/1.2"} {
		measure := func(h http.Handler) float64 {
			req := httptest.NewRequest("GET", "/admin/x", nil)
			req.Header.Set("User-Agent", ua)
			w := &benchWriter{h: http.Header{}}
			for range core.ViolationBurst + 1 {
				h.ServeHTTP(w, req)
			}
			return testing.AllocsPerRun(200, func() {
				clear(w.h)
				h.ServeHTTP(w, req)
			})
		}
		with := measure(observingMiddleware(t, nethttp.Options{Counters: metrics.NewCounters(), LogViolations: true}).Handler(http.HandlerFunc(okHandler)))
		without := measure(observingMiddleware(t, nethttp.Options{}).Handler(http.HandlerFunc(okHandler)))
		if with > without {
			t.Errorf("%s: %v allocs/op observed, %v without", ua, with, without)
		}
	}
}

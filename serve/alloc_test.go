//go:build !race

// The allocation tests: the race detector changes allocation counts, so they are built only
// without it (./test.sh runs them in its pass without -race).

package serve

import (
	"github.com/sitepolicy/caddy-robots/metrics"
	"net/http"
	"testing"
)

// TestEnforceBrowserNoAlloc: a browser's request on a site enforcing the whole catalogue
// does not allocate; neither does an allowed crawler's.
func TestEnforceBrowserNoAlloc(t *testing.T) {
	e := mustEnforcer(t, blockAI(), 0)
	for _, r := range []*http.Request{uaRequest("/article", chromeUA), uaRequest("/article", "Googlebot/2.1"), uaRequest("/robots.txt", "GPTBot/1.0")} {
		if n := testing.AllocsPerRun(200, func() { e.Check(r) }); n != 0 {
			t.Errorf("%s: %v allocs", r.Header.Get("User-Agent"), n)
		}
	}
}

// TestObserveNoAlloc: counting a request and deciding whether it breaks robots.txt does not
// allocate, for a browser, an allowed crawler, a crawler the file does not name, and a
// disallowed one whose reports the limit suppresses.
func TestObserveNoAlloc(t *testing.T) {
	c := observedCore(t, observedFile(), nil, Options{Counters: metrics.NewCounters(), Violations: func(*http.Request, Violation) {}})
	disallowed := []*http.Request{uaRequest("/private/a", "GPTBot/1.2"), uaRequest("/x", "ExampleBot/1.0"), uaRequest("/admin/", "Googlebot/2.1")}
	for _, r := range disallowed {
		for range ViolationBurst {
			c.Enforce(r)
		}
	}
	for _, r := range append([]*http.Request{uaRequest("/article", chromeUA), uaRequest("/article", "GPTBot/1.2"), uaRequest("/article", "Googlebot/2.1")}, disallowed...) {
		if n := testing.AllocsPerRun(200, func() { c.Enforce(r) }); n != 0 {
			t.Errorf("%s %s: %v allocs", r.Header.Get("User-Agent"), r.URL.Path, n)
		}
	}
}

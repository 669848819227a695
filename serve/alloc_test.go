//go:build !race

// The allocation tests: the race detector changes allocation counts, so they are built only
// without it (./test.sh runs them in its pass without -race).

package serve

import (
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

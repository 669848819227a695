package serve_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/serve"
)

// TestPayUnpricedNoAlloc: pay costs an unpriced request no allocation: a browser, a verified
// crawler on an unpriced path or not priced, none; an impostor's refusal, as many as on the
// site without pay.
func TestPayUnpricedNoAlloc(t *testing.T) {
	if serve.RaceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	without, with := payBenchCores(t, "http://127.0.0.1:1")
	for _, c := range []struct{ path, crawler, status string }{
		{"/articles/a", "", ""},
		{"/about", "GPTBot", "verified"},
		{"/articles/a", "ClaudeBot", "verified"},
		{"/articles/a", "GPTBot", "impostor"},
	} {
		r := httptest.NewRequest("GET", "http://example.com"+c.path, nil)
		r.Header.Set("X-Test-Name", c.crawler)
		r.Header.Set("X-Test-Status", c.status)
		w := &nopWriter{h: http.Header{}}
		before := testing.AllocsPerRun(200, func() { clear(w.h); _ = without.ServeHTTP(w, r, benchContent) })
		after := testing.AllocsPerRun(200, func() { clear(w.h); _ = with.ServeHTTP(w, r, benchContent) })
		if after != before || (c.status != "impostor" && after != 0) {
			t.Errorf("%s %s %s: %v allocs with pay, %v without", c.status, c.crawler, c.path, after, before)
		}
	}
}

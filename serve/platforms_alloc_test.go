package serve

import (
	"net/http"
	"testing"

	"github.com/sitepolicy/caddy-robots/metrics"
)

// TestPlatformCountsNoAlloc: counting for platforms does not allocate, whether the request
// is counted (a referred browser, a platform's crawler: the response wrapper is pooled) or
// not (a browser without a Referer, or with one naming no platform).
func TestPlatformCountsNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	counters := metrics.NewCounters()
	c := observedCore(t, observedFile(), nil, Options{Counters: counters})
	for _, q := range platformBenchRequests {
		w := &headerWriter{h: http.Header{}}
		if n := testing.AllocsPerRun(200, func() { _ = c.ServeHTTP(w, q.r, htmlNext) }); n != 0 {
			t.Errorf("%s: %v allocs", q.name, n)
		}
	}
	var referred uint64
	counters.EachReferred(func(p string, n uint64) {
		if p == "google" {
			referred = n
		}
	})
	if referred == 0 {
		t.Error("the referred browser was not counted: the test measures nothing")
	}
}

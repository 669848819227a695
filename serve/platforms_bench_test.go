package serve

import (
	"net/http"
	"testing"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
)

var platformBenchRequests = []struct {
	name string
	r    *http.Request
}{
	{"BrowserNoReferer", uaRequest("/page", chromeUA)},
	{"BrowserOtherReferer", func() *http.Request {
		r := uaRequest("/page", chromeUA)
		r.Header.Set("Referer", "https://site.example/previous")
		return r
	}()},
	{"BrowserReferred", func() *http.Request {
		r := uaRequest("/page", chromeUA)
		r.Header.Set("Referer", "https://www.google.com/")
		return r
	}()},
	{"PlatformCrawler", uaRequest("/page", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")},
}

// htmlNext answers with an HTML page, as a file server would: the cost of a counted response
// is the wrapper's.
var htmlNext = HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error {
	w.Header()["Content-Type"] = htmlType
	w.WriteHeader(http.StatusOK)
	return nil
})

var htmlType = []string{"text/html; charset=utf-8"}

type headerWriter struct{ h http.Header }

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *headerWriter) WriteHeader(int)             {}

// BenchmarkPlatformCounts is the whole pipeline (Core.ServeHTTP) with the counters, for a
// browser without a Referer (the common request: compare with the same benchmark before the
// platform counts, docs/BENCHMARKS.md), with a Referer naming no platform, one naming a
// platform (counted), and a platform's crawler (counted).
func BenchmarkPlatformCounts(b *testing.B) {
	c := observedCore(b, observedFile(), nil, Options{Counters: metrics.NewCounters()})
	for _, q := range platformBenchRequests {
		b.Run(q.name, func(b *testing.B) {
			w := &headerWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				_ = c.ServeHTTP(w, q.r, htmlNext)
			}
		})
	}
}

// BenchmarkPlatformVisit is what the platform counts add to a browser's request without a
// Referer: the decision that it counts for none (a header look-up), alone.
func BenchmarkPlatformVisit(b *testing.B) {
	c := observedCore(b, observedFile(), nil, Options{Counters: metrics.NewCounters()})
	r := platformBenchRequests[0].r
	for b.Loop() {
		if _, ok := c.enforce.platformVisit(r, identity.Identity{}, seen{}); ok {
			b.Fatal("counted")
		}
	}
}

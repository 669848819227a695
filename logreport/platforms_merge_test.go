package logreport

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/metrics"
)

// TestPlatformsMerge: the crawl-to-refer section of lines read in two parts and merged is the
// section of the lines read in one, timeline included, whatever the split and the times (the
// parts' timelines differ in width and start).
func TestPlatformsMerge(t *testing.T) {
	refs := []string{"https://www.google.com/", "https://chatgpt.com/x", "https://claude.ai/", "https://notgoogle.com/"}
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).Unix()
	for round := range 30 {
		rnd := rand.New(rand.NewPCG(uint64(round), 5))
		var one, a, b platformsAcc
		one.init()
		a.init()
		b.init()
		var all timeline
		all.init(MaxBuckets)
		span := int64(60 + rnd.IntN(30*86400))
		for range 1 + rnd.IntN(400) {
			ts := start + rnd.Int64N(span)
			e := &Entry{Method: []byte("GET"), Target: []byte("/page"), Status: 200}
			if rnd.IntN(3) == 0 {
				e.HasContentType, e.ContentType = true, []string{"text/css"}
			}
			part := &a
			if rnd.IntN(2) == 0 {
				part = &b
			}
			all.add(ts, seriesOther)
			if rnd.IntN(2) == 0 {
				e.referer = []byte(refs[rnd.IntN(len(refs))])
				one.referral(e, ts)
				part.referral(e, ts)
				continue
			}
			p, name, verified := rnd.IntN(crawlers.NumPlatforms()), []string{"A", "B"}[rnd.IntN(2)], rnd.IntN(2) == 0
			one.crawl(p, name, verified, e, ts)
			part.crawl(p, name, verified, e, ts)
		}
		a.merge(&b)
		tl := all.summary()
		if want, got := one.report(tl), a.report(tl); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: merged\n%+v\nwant\n%+v", round, got, want)
		}
	}
}

// TestHTMLPageByPath: where the path stands in for the Content-Type, a response is an HTML
// page exactly when metrics.HTMLPage says so of it with the Content-Type text/html.
func TestHTMLPageByPath(t *testing.T) {
	var p platformsAcc
	for _, method := range []string{"GET", "HEAD", "POST", "get", "PUT", ""} {
		for status := 0; status < 1000; status++ {
			e := &Entry{Method: []byte(method), Target: []byte("/news/1?x=a.css"), Status: status}
			if got, want := p.html(e), metrics.HTMLPage(method, status, []string{"text/html"}); got != want {
				t.Errorf("%s %d: HTML page %v, metrics.HTMLPage %v", method, status, got, want)
			}
		}
	}
}

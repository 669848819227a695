package caddymodule

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// benchNoMatchSites are a site with both directives and the same site with Caddy's two
// built-in directives in their place (respond and header doing the same jobs).
const benchNoMatchSites = `:@PORT@ {
	robots_txt {
		group * {
			disallow /drafts/
		}
	}
	robots_tag /drafts/* noindex
	respond "ok"
}
:@PORT2@ {
	respond /robots.txt "User-agent: *
Disallow: /drafts/
"
	header /drafts/* Robots-Tag "*;noindex"
	respond "ok"
}
`

// BenchmarkCaddyNoMatch: a browser's request that neither directive answers nor tags,
// through a real Caddy (each server's ServeHTTP: Caddy's whole request handling, no network),
// to the site with robots_txt and robots_tag and to the same site with Caddy's built-in
// directives in their place, alternating request by request so that the machine's load falls
// on both alike: ours-ns/op, builtin-ns/op, their ratio, and the allocations ours adds.
func BenchmarkCaddyNoMatch(b *testing.B) {
	servers := benchCaddy(b, "", benchNoMatchSites)
	ours, builtin := servers[fmt.Sprintf(":%d", sitePort)], servers[fmt.Sprintf(":%d", site2Port)]
	r := httptest.NewRequest("GET", "/articles/x", nil)
	r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
	w := &benchWriter{h: http.Header{}}
	serve := func(srv *caddyhttp.Server) func() {
		return func() {
			clear(w.h)
			w.status = 0
			srv.ServeHTTP(w, r)
		}
	}
	so, sb := serve(ours), serve(builtin)
	for _, f := range []func(){so, sb} {
		if f(); w.status != 200 || w.h.Get("Robots-Tag") != "" {
			b.Fatalf("status %d, Robots-Tag %q", w.status, w.h.Get("Robots-Tag"))
		}
	}
	added := testing.AllocsPerRun(1000, so) - testing.AllocsPerRun(1000, sb)
	var to, tb time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		first, second, t1, t2 := so, sb, &to, &tb
		if i++; i%2 == 0 {
			first, second, t1, t2 = sb, so, &tb, &to
		}
		t0 := time.Now()
		first()
		m := time.Now()
		second()
		*t1 += m.Sub(t0)
		*t2 += time.Since(m)
	}
	n := float64(b.N)
	b.ReportMetric(float64(to)/n, "ours-ns/op")
	b.ReportMetric(float64(tb)/n, "builtin-ns/op")
	b.ReportMetric(float64(to)/float64(tb), "ratio")
	b.ReportMetric(added, "added-allocs/op")
}

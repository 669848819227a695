package prom_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/metrics/prom"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// A Go app counts crawlers with nethttp and exposes the counts with its other metrics.
func Example() {
	counters := metrics.NewCounters()
	reg := prometheus.NewRegistry() // or prometheus.DefaultRegisterer
	if err := prom.Register(reg, prom.NewCollector(counters)); err != nil {
		log.Fatal(err)
	}
	mw, err := nethttp.NewFromJSON([]byte(`{"robots_txt": {"groups": [
		{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]}}`),
		nethttp.Options{Counters: counters, LogViolations: true})
	if err != nil {
		log.Fatal(err)
	}
	h := mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))

	req := httptest.NewRequest("GET", "/admin/", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; bingbot/2.0)")
	h.ServeHTTP(httptest.NewRecorder(), req)

	fams, _ := reg.Gather()
	for _, f := range fams {
		for _, m := range f.Metric {
			fmt.Print(f.GetName())
			for _, l := range m.Label {
				fmt.Printf(" %s=%s", l.GetName(), l.GetValue())
			}
			fmt.Println(" ", m.Counter.GetValue())
		}
	}
	// Output:
	// caddy_robots_crawler_requests_total category=search-engine crawler=bing-crawler identity_status=unchecked outcome=disallowed_served  1
}

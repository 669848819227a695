package prom_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/metrics/prom"
)

// TestStoreFallbacks: the fallbacks a fleet's store counts are exported, by operation and
// reason, only once counted.
func TestStoreFallbacks(t *testing.T) {
	counters := metrics.NewCounters()
	var stats fleet.Stats
	counters.ObserveStore(&stats)
	reg := prometheus.NewPedanticRegistry()
	if err := prom.Register(reg, prom.NewCollector(counters)); err != nil {
		t.Fatal(err)
	}
	stats.Fallback(fleet.OpCrawlDelay, fleet.Failed)
	stats.Fallback(fleet.OpCrawlDelay, fleet.Skipped)
	stats.Fallback(fleet.OpCrawlDelay, fleet.Skipped)
	stats.Fallback(fleet.OpNonce, fleet.Failed)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != prom.StoreFallbacksName {
			continue
		}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			got[strings.Join(labels, ",")] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{
		"operation=crawl_delay,reason=backoff": 2,
		"operation=crawl_delay,reason=error":   1,
		"operation=nonce,reason=error":         1,
	}
	if !maps.Equal(got, want) {
		t.Fatalf("%s: %v, want %v", prom.StoreFallbacksName, got, want)
	}
}

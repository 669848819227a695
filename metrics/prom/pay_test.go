package prom_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/metrics/prom"
	"github.com/sitepolicy/caddy-robots/x402"
)

// TestPaymentSeries: the payment outcomes, revenue and facilitator calls counted are the
// series gathered, with their labels.
func TestPaymentSeries(t *testing.T) {
	c := metrics.NewCounters()
	gpt := metrics.CrawlerOf("openai-crawler")
	c.Payment(gpt, metrics.PayRequired, 0)
	c.Payment(gpt, metrics.Paid, 1000)
	c.Payment(gpt, metrics.Paid, 1000)
	c.Facilitator(x402.EndpointSettle, x402.CallTimeout)
	reg := prometheus.NewRegistry()
	if err := prom.Register(reg, prom.NewCollector(c)); err != nil {
		t.Fatal(err)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetCounter().GetValue()
		}
	}
	for k, v := range map[string]float64{
		prom.PaymentsName + ",category=ai,crawler=openai-crawler,outcome=payment_required": 1,
		prom.PaymentsName + ",category=ai,crawler=openai-crawler,outcome=paid":             2,
		prom.RevenueName + ",category=ai,crawler=openai-crawler":                           2000,
		prom.FacilitatorCallsName + ",endpoint=settle,result=timeout":                      1,
	} {
		if got[k] != v {
			t.Errorf("%s = %v; want %v (all: %v)", k, got[k], v, got)
		}
	}
}

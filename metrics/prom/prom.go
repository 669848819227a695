// Package prom exposes a metrics.Counters (package github.com/sitepolicy/caddy-robots/metrics)
// as Prometheus counters. It is a module of its own so that an application that does not
// want metrics does not download the Prometheus client: the Caddy module registers it with
// Caddy's metrics registry, and a Go application registers it with its own:
//
//	counters := metrics.NewCounters()
//	if err := prom.Register(prometheus.DefaultRegisterer, prom.NewCollector(counters)); err != nil { ... }
//	mw, err := nethttp.New(cfg, nethttp.Options{Counters: counters})
//
// Only series counted at least once are exported, as a CounterVec exports only the label
// values it has seen; every label value is a name of the bot catalogue or a fixed word.
package prom

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepolicy/caddy-robots/metrics"
)

// The metrics' names.
const (
	RequestsName  = "caddy_robots_crawler_requests_total"
	RobotsTxtName = "caddy_robots_robots_txt_fetches_total"
	// StoreFallbacksName counts the calls to a fleet's store that fell back.
	StoreFallbacksName = "caddy_robots_store_fallbacks_total"
	// PaymentsName counts priced requests (x402, docs/payment.md) by crawler and outcome.
	PaymentsName = "caddy_robots_payments_total"
	// RevenueName sums what crawlers paid, in the asset's atomic units.
	RevenueName = "caddy_robots_revenue_atomic_total"
	// FacilitatorCallsName counts calls to the x402 facilitator by endpoint and result.
	FacilitatorCallsName = "caddy_robots_facilitator_calls_total"
)

// Collector is a prometheus.Collector over a metrics.Counters.
type Collector struct {
	counters                   *metrics.Counters
	requests, robots, store    *prometheus.Desc
	payments, revenue, fcalled *prometheus.Desc
}

// NewCollector returns a Collector of c.
func NewCollector(c *metrics.Counters) *Collector {
	return &Collector{
		counters: c,
		requests: prometheus.NewDesc(RequestsName,
			"Requests from crawlers (robots.txt excepted), by crawler (bot catalogue ID, AI catalogue name, or other), its category, its identity status and what became of the request.",
			[]string{"crawler", "category", "identity_status", "outcome"}, nil),
		robots: prometheus.NewDesc(RobotsTxtName,
			"Requests for /robots.txt by crawlers of the bot or AI catalogue.",
			[]string{"crawler", "category"}, nil),
		store: prometheus.NewDesc(StoreFallbacksName,
			"Calls to the fleet's shared store (metrics.Counters.ObserveStore) that fell back to the instance's own state, by operation and reason (error: the call failed or timed out; backoff: not tried, the store failed lately).",
			[]string{"operation", "reason"}, nil),
		payments: prometheus.NewDesc(PaymentsName,
			"Priced requests of verified crawlers (x402) by crawler, category and outcome: payment_required, invalid, refused, facilitator_unavailable, not_charged, settle_failed, paid.",
			[]string{"crawler", "category", "outcome"}, nil),
		revenue: prometheus.NewDesc(RevenueName,
			"What crawlers paid and was settled, in the asset's atomic units (robots_txt.pay.decimals).",
			[]string{"crawler", "category"}, nil),
		fcalled: prometheus.NewDesc(FacilitatorCallsName,
			"Calls to the x402 facilitator by endpoint (verify, settle, supported) and result (ok, busy, timeout, error).",
			[]string{"endpoint", "result"}, nil),
	}
}

// Describe sends the metrics' descriptions.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.requests
	ch <- c.robots
	ch <- c.store
	ch <- c.payments
	ch <- c.revenue
	ch <- c.fcalled
}

// Collect sends the series counted so far.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.counters.EachRequest(func(s metrics.RequestSeries) {
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(s.Count), s.Crawler, s.Category, s.Status, s.Outcome)
	})
	c.counters.EachRobotsTxt(func(crawler, category string, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.robots, prometheus.CounterValue, float64(n), crawler, category)
	})
	c.counters.EachStoreFallback(func(op, reason string, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.store, prometheus.CounterValue, float64(n), op, reason)
	})
	c.counters.EachPayment(func(s metrics.PaymentSeries) {
		ch <- prometheus.MustNewConstMetric(c.payments, prometheus.CounterValue, float64(s.Count), s.Crawler, s.Category, s.Outcome)
	})
	c.counters.EachRevenue(func(crawler, category string, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.revenue, prometheus.CounterValue, float64(n), crawler, category)
	})
	c.counters.EachFacilitatorCall(func(endpoint, result string, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.fcalled, prometheus.CounterValue, float64(n), endpoint, result)
	})
}

// Register registers a Collector of c with reg. Registering the same Collector again (a
// Caddy config reload that registers with the same registry) is not an error.
func Register(reg prometheus.Registerer, c *Collector) error {
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) && are.ExistingCollector == c {
		return nil
	}
	return err
}

var _ prometheus.Collector = (*Collector)(nil)

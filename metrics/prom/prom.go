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
// values it has seen (but for the referred visits, exported at 0 for a platform that crawled:
// its ratio is then infinite, not missing); every label
// value is a name of the bot catalogue, a platform ID of the catalogue, or a fixed word.
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
	// CrawledHTMLName counts HTML pages (metrics.HTMLPage) served to each platform's
	// crawlers, by identity status; ReferredName counts HTML pages served to browsers whose
	// Referer names one of the platform's hosts. Their ratio over a window is the platform's
	// crawl-to-refer ratio (docs/observability.md).
	CrawledHTMLName = "caddy_robots_platform_crawled_html_pages_total"
	ReferredName    = "caddy_robots_platform_referred_visits_total"
)

// Names returns the names of the metrics a Collector exports.
func Names() []string {
	return []string{RequestsName, RobotsTxtName, CrawledHTMLName, ReferredName}
}

// Collector is a prometheus.Collector over a metrics.Counters.
type Collector struct {
	counters                            *metrics.Counters
	requests, robots, crawled, referred *prometheus.Desc
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
		crawled: prometheus.NewDesc(CrawledHTMLName,
			"HTML pages (GET, 2xx, Content-Type text/html or application/xhtml+xml) served to the crawlers of a platform (crawlers.Platforms: its operators' crawlers), by identity status; impostors are no platform's.",
			[]string{"platform", "identity_status"}, nil),
		referred: prometheus.NewDesc(ReferredName,
			"HTML pages (as for "+CrawledHTMLName+") served to browsers (User-Agent naming no crawler) whose Referer names a host of the platform's products; a claim, like User-Agent. Exported, 0 included, for every platform that crawled or referred.",
			[]string{"platform"}, nil),
	}
}

// Describe sends the metrics' descriptions.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.requests
	ch <- c.robots
	ch <- c.crawled
	ch <- c.referred
}

// Collect sends the series counted so far.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.counters.EachRequest(func(s metrics.RequestSeries) {
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(s.Count), s.Crawler, s.Category, s.Status, s.Outcome)
	})
	c.counters.EachRobotsTxt(func(crawler, category string, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.robots, prometheus.CounterValue, float64(n), crawler, category)
	})
	c.counters.EachCrawledHTML(func(platform, status string, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.crawled, prometheus.CounterValue, float64(n), platform, status)
	})
	c.counters.EachReferred(func(platform string, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.referred, prometheus.CounterValue, float64(n), platform)
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

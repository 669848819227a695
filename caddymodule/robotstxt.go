// Package caddymodule plugs caddy-robots into Caddy v2 as two HTTP handler modules:
//
//   - http.handlers.robots_txt serves a robots.txt file (RFC 9309, with draft-illyes-rep-purpose
//     User-Agent-Purpose groups) generated from the config;
//   - http.handlers.robots_tag adds the Robots-Tag response header (draft-illyes-repext) and,
//     optionally, robots <meta> elements in HTML and the legacy X-Robots-Tag header.
//
// Each has a Caddyfile directive of the same name whose order this package registers, so a
// Caddyfile needs no "order" global option. The package is a thin adapter: the serving and
// response-wrapping logic is the serving core of package serve, built by serve.New as the
// net/http middleware builds it, and each handler's JSON is a part of the config schema
// (package policy) plus "handler". The module uses only the root module's public API.
package caddymodule

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/metrics/prom"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
)

func init() {
	caddy.RegisterModule(RobotsTxt{})
	caddy.RegisterModule(RobotsTag{})
}

// RobotsTxt is the http.handlers.robots_txt handler. It answers GET and HEAD requests for
// exactly /robots.txt with the configured file (405 with an Allow header for other methods)
// and passes every other request to the next handler untouched, but for
// /.well-known/tdmrep.json when robots_tag handlers of its site block declare tdm: it answers
// that with the TDMRep file generated from them (tdmfile.go, docs/licensing.md).
//
// The body is rendered once, when the config is loaded (once per scheme and host when a
// sitemap is given as a path), and served with Content-Type text/plain; charset=utf-8,
// Content-Length, a strong ETag, Last-Modified and Cache-Control max-age; conditional
// requests get 304 Not Modified.
//
// Global placeholders such as {env.SITEMAP_URL} are replaced in every string when the config
// is provisioned. Any other placeholder, such as a request placeholder, is a config error: the
// file is rendered ahead of any request. A literal brace is written \{.
type RobotsTxt struct {
	// The robots.txt file, its max-age, merging and enforcement. The handler's JSON is the
	// JSON of policy.RobotsTxt: "comments", "groups", "sitemaps", "records", "max_age",
	// "enforce", "merge_file", "merge_upstream", "merge_upstream_timeout"; and the two fields
	// below.
	policy.RobotsTxt

	// Metrics counts the requests of crawlers that pass this handler, and their fetches of
	// robots.txt, in Caddy's metrics registry (Caddy's /metrics, with its own metrics):
	// caddy_robots_crawler_requests_total and caddy_robots_robots_txt_fetches_total (package
	// github.com/sitepolicy/caddy-robots/metrics/prom). The counts are the process's, kept
	// over config reloads like Caddy's own HTTP metrics, shared by every handler that counts.
	Metrics bool `json:"metrics,omitempty"`

	// LogViolations logs, at info level, a request from a crawler for a path the served
	// robots.txt disallows for it that is served all the same: the crawler, its identity
	// status, the path, the rule and its line in the served file (the line `caddy robots
	// check` shows). At most serve.ViolationBurst lines per crawler per
	// serve.ViolationInterval, then the count of those left out.
	LogViolations bool `json:"log_violations,omitempty"`

	core   *serve.Core
	logger *zap.Logger
	// crawlers verifies the identity that enforcement and the counts read; nil when they
	// read none.
	crawlers *Crawlers
	tdm      *perServer[*serve.Core] // the site block's TDMRep file, built at its first request (tdmfile.go)
}

// CaddyModule returns the Caddy module information.
func (RobotsTxt) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.robots_txt",
		New: func() caddy.Module { return new(RobotsTxt) },
	}
}

// Provision replaces global placeholders in the config and builds the serving core, which
// validates the file, merges it as merge_file says and renders it. An invalid file fails the
// config load or reload.
func (h *RobotsTxt) Provision(ctx caddy.Context) error {
	if err := usePlaceholderCheck(ctx); err != nil {
		return err
	}
	h.logger = ctx.Logger()
	h.tdm = new(perServer[*serve.Core])
	cfg, err := replacePlaceholders(h.RobotsTxt)
	if err != nil {
		return err
	}
	opts := coreOptions(ctx)
	opts.TDMRep = func(r *http.Request) *serve.Core {
		if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok {
			return h.tdmCore(srv)
		}
		return nil
	}
	opts.Upstream = func(r *http.Request, next serve.Handler) serve.Fetch { return subRequestFetch(r, next) }
	if cfg.Enforce != nil && cfg.Enforce.Impostors != nil || cfg.Pay != nil {
		// Impostors and prices need verification: the crawlers app, with its defaults when
		// the config has none.
		app, err := crawlersApp(ctx)
		if err != nil {
			return err
		}
		h.crawlers = app
	} else if h.Metrics || h.LogViolations || cfg.Enforce != nil && cfg.Enforce.CrawlDelay {
		// Counted, logged and given a crawl-delay budget under the identity status when
		// crawler verification is configured; without it, as "unchecked" (the crawlers app
		// is not loaded for this).
		if app, err := ctx.AppIfConfigured("crawlers"); err == nil {
			h.crawlers = app.(*Crawlers)
		}
	}
	if a := h.crawlers; a != nil {
		// Found once per request and kept, so that the {http.crawler.*} placeholders answer
		// from here on (for the handlers after this one, and the deferred ones before it:
		// checkPlaceholderReads).
		opts.Identify = func(r *http.Request) identity.Identity { return a.identify(r).id }
		// The fleet's crawl-delay budgets and log limits, when the app has a store.
		opts.Store = a.fleetStore()
	}
	if h.Metrics {
		opts.Counters = processCounters()
		if err := prom.Register(ctx.GetMetricsRegistry(), processCollector()); err != nil {
			return fmt.Errorf("robots_txt: metrics: %w", err)
		}
	}
	opts.LogViolations = h.LogViolations
	core, err := serve.New(policy.Config{RobotsTxt: &cfg}, opts)
	if err != nil {
		return configerr.Reroot(err, "robots_txt", "")
	}
	h.core = core
	logWarnings(h.logger, core.Warnings(), "robots_txt")
	h.logger.Debug("robots.txt ready", zap.Int("groups", len(cfg.Groups)), zap.Int("sitemaps", len(cfg.Sitemaps)))
	return nil
}

// ServeHTTP runs the core's request pipeline (serve.Core.ServeHTTP): it serves /robots.txt,
// the license documents and the site block's tdmrep.json, refuses what enforcement refuses,
// and passes every other request to next. A method other than GET or HEAD is answered 405,
// with the Allow header set, through Caddy's error handling when the server has
// handle_errors routes, else with the short text body nethttp sends.
//
// With enforce, a request from a crawler that the file disallows for the path is answered
// with the configured status and logged at info level (at most serve.ViolationBurst per
// crawler and kind per minute, the next line counting those left out): through Caddy's
// error handling when the server has handle_errors routes, else with the short text body
// nethttp sends (Caddy's default error response has no body, which would not say why).
func (h *RobotsTxt) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return h.core.ServeHTTP(w, r, next)
}

// processCounters are the counts of every handler with metrics, the process's: a reload
// keeps them, as Caddy keeps its own HTTP metrics, and each config's registry (Caddy makes
// one per config load) gets the one collector over them.
var (
	processCounters  = sync.OnceValue(metrics.NewCounters)
	processCollector = sync.OnceValue(func() *prom.Collector { return prom.NewCollector(processCounters()) })
)

// Cleanup stops merge_upstream's cache timers when a reload replaces this handler.
func (h *RobotsTxt) Cleanup() error {
	if h.core != nil {
		h.core.Close()
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*RobotsTxt)(nil)
	_ caddy.CleanerUpper          = (*RobotsTxt)(nil)
	_ caddyhttp.MiddlewareHandler = (*RobotsTxt)(nil)
	_ caddyfile.Unmarshaler       = (*RobotsTxt)(nil)
)

// logWarnings logs what the core finds valid but likely not meant, at warn level, with the
// field path in the handler's JSON (the core's paths are under root).
func logWarnings(l *zap.Logger, ws []*configerr.Error, root string) {
	for _, w := range configerr.RerootAll(ws, root, "") {
		l.Warn("config: "+w.Error(), zap.String("path", w.Path))
	}
}

// coreOptions are the options of a handler's Core: it logs through the handler's logger
// (Caddy's, through log/slog: the same JSON lines), and answers error statuses the Caddy
// way (answer).
func coreOptions(ctx caddy.Context) serve.Options {
	return serve.Options{Logger: ctx.Slogger(), Error: answer, Now: testClock}
}

// answer writes a response with an error status (a refusal, a 405, ...) through Caddy's
// error handling when the server has handle_errors routes, the header fields the core set
// kept; else with the short text body nethttp sends: Caddy's default error response has no
// body, which would not say why.
func answer(w http.ResponseWriter, r *http.Request, err *serve.StatusError) error {
	if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv.Errors != nil && len(srv.Errors.Routes) > 0 {
		return caddyhttp.Error(err.Code, err)
	}
	serve.WriteError(w, err.Code, err.Msg)
	return nil
}

// testClock, when set by a test, is the clock of the cores made after (serve.Options.Now):
// the intervals of the violation and refusal logs' limits, crawl-delay.
var testClock func() time.Time

package nethttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// Options are the optional parts of the middleware that are not config.
type Options struct {
	// Logger receives what the core logs (serve.Options.Logger), each line about a request
	// with its "method", "host" and "uri", as Caddy's log has them: why a response was left
	// unchanged or a backend header was not read in full (debug level), what an operator must
	// fix (warn level, once per route and kind), and requests blocked by enforcement (info
	// level, with the crawler's token and the rule; at most serve.ViolationBurst per crawler
	// and kind of refusal per serve.ViolationInterval, the next one counting those left out
	// in "suppressed"); and config warnings when New accepts a config (warn level). Nil means
	// slog.Default().
	Logger *slog.Logger
	// Verifier, if set, identifies every request whose User-Agent names a crawler of the
	// bot catalogue (package identity), so that enforcement can answer impostors
	// (Enforce.Impostors) and the wrapped handler can read the identity (Identity). The
	// middleware neither starts nor stops it: start an identity.Service when the application
	// starts, pass its Verifier here, and stop it when the application stops.
	Verifier *identity.Verifier
	// Signatures, if set, judges requests' Web Bot Auth signatures (package webbotauth): a
	// valid signature of a trusted agent verifies its bot, one that fails makes the request
	// an impostor even where Verifier verified its address (identity.WithSignature). The
	// middleware does not close its key directory fetcher: close it (webbotauth.Directory
	// .Close, which cancels the fetches in progress) when the application stops.
	Signatures *webbotauth.Verifier
	// ClientAddr is the client's address as the application trusts it (behind a reverse
	// proxy, the address the proxy reports, never a forwarding header a client can write);
	// nil means the connection's address (Request.RemoteAddr).
	ClientAddr func(*http.Request) netip.Addr
	// Counters, if set, counts requests from crawlers and their fetches of robots.txt
	// (package metrics; the module github.com/sitepolicy/caddy-robots/metrics/prom exposes
	// them to Prometheus). Counting needs robots_txt in the config.
	Counters *metrics.Counters
	// LogViolations logs, at info level, a request from a crawler for a path the served
	// robots.txt disallows for it that is served all the same (enforcement refuses none, or
	// its group is the "*" group): the crawler, identity status, path, rule and the rule's
	// line in the served file; at most serve.ViolationBurst lines per crawler per
	// serve.ViolationInterval. Off by default: it decides for every crawler's request, which
	// a site that does not read the log need not pay for.
	LogViolations bool
	// Pay, if set, is what charging crawlers (robots_txt.pay, docs/payment.md) uses beside
	// the config: a payment store a fleet shares, the facilitator's transport. Nil is the
	// defaults: one process's store, a transport of the facilitator client's own.
	Pay *serve.Pay
	// Now, if set, is the clock of the refusal and violation logs' intervals and of
	// crawl-delay (serve.Options.Now), for tests; nil means the monotonic clock.
	Now func() time.Time
	// Store, if set, is the state the instances of a fleet share (package fleet; the module
	// github.com/sitepolicy/caddy-robots/redisstore is one, on Redis): crawl-delay budgets and
	// the limits of the refusal and violation logs (serve.Options.Store). Web Bot Auth nonces
	// and reverse-DNS verdicts are shared by giving the same store to
	// webbotauth.Options.Store and identity.DNSOptions.Store (docs/fleet.md). Nil keeps all
	// of it in the process.
	Store fleet.Store
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.Default()
	}
	return o.Logger
}

// coreOptions are the core's options: nethttp's answers are serve.WriteError's (the core's
// default), merge_upstream asks the wrapped handler itself (the core's default).
func (o Options) coreOptions() serve.Options {
	so := serve.Options{
		Logger:        o.logger(),
		Counters:      o.Counters,
		LogViolations: o.LogViolations,
		// The middleware holds every route of the site with its paths.
		TDMRepFile: true,
		Now:        o.Now,
		Store:      o.Store,
		Pay:        o.Pay,
	}
	if o.Verifier != nil || o.Signatures != nil {
		so.Identify = func(r *http.Request) identity.Identity { id, _ := Identity(r); return id }
	}
	return so
}

// identityKey is the context key of a request's identity.
type identityKey struct{}

// Identity returns the crawler identity the middleware found for r: ok is false when the
// middleware has no Verifier or r's User-Agent names no crawler of the bot catalogue.
func Identity(r *http.Request) (id identity.Identity, ok bool) {
	id, ok = r.Context().Value(identityKey{}).(identity.Identity)
	return id, ok
}

// Middleware serves robots.txt and applies robots tags per route. Build it with New or
// NewFromJSON; it is safe for concurrent use.
type Middleware struct {
	core *serve.Core
	// ids identifies requests for the wrapped handler (Identity) and the core; nil without
	// Options.Verifier and Options.Signatures.
	ids *identity.Identifier
}

// New checks cfg and precomputes everything the middleware sends. The error names every
// problem found (*configerr.Error values, joined, each with its field path); what is valid but
// may not work as meant is logged at warn level.
func New(cfg Config, opts Options) (*Middleware, error) {
	core, err := serve.New(cfg, opts.coreOptions())
	if rt := cfg.RobotsTxt; rt != nil && rt.Enforce != nil && rt.Enforce.Impostors != nil && opts.Verifier == nil && opts.Signatures == nil {
		err = errors.Join(err, configerr.New("robots_txt.enforce.impostors", "", "answering impostors needs crawler verification: set Options.Verifier (an identity.Service's Verifier) or Options.Signatures"))
		if core != nil {
			core.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	m := &Middleware{core: core}
	if opts.Verifier != nil || opts.Signatures != nil {
		m.ids = &identity.Identifier{Verifier: opts.Verifier, Signatures: opts.Signatures, ClientAddr: opts.ClientAddr}
	}
	core.LogWarnings(opts.logger())
	return m, nil
}

// NewFromJSON reads a Config from JSON, rejecting unknown fields (a misspelt field would
// otherwise silently drop a restriction), and calls New.
func NewFromJSON(data []byte, opts Options) (*Middleware, error) {
	cfg, err := policy.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return New(cfg, opts)
}

// Handler returns next wrapped by the middleware.
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return &middlewareHandler{m: m, next: nextHandler{next}}
}

type middlewareHandler struct {
	m    *Middleware
	next serve.Handler // the wrapped handler as the core's Handler, boxed once here rather than per request
}

// nextHandler adapts an http.Handler to serve.Handler, once, so requests do not allocate it.
type nextHandler struct{ h http.Handler }

func (n nextHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	n.h.ServeHTTP(w, r)
	return nil
}

// ServeHTTP identifies r for the wrapped handler (Identity) and runs the core's pipeline. A
// request that names no crawler and carries no signature (a browser's) goes on as it came,
// without allocating.
func (h *middlewareHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ids := h.m.ids; ids != nil {
		if id, _, ok := ids.Identify(r); ok {
			r = r.WithContext(context.WithValue(r.Context(), identityKey{}, id))
		}
	}
	_ = h.m.core.ServeHTTP(w, r, h.next)
}

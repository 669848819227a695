package nethttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/serve"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

// Options are the optional parts of the middleware that are not config.
type Options struct {
	// Logger receives why a response was left unchanged or a backend header was not read in
	// full (debug level), what an operator must fix (warn level, once per route and kind),
	// config warnings when New accepts a config (warn level), and requests blocked by
	// enforcement (info level, with the crawler's token and the rule). Nil means
	// slog.Default().
	Logger *slog.Logger
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.Default()
	}
	return o.Logger
}

// log adapts a Logger to the core's per-request log hooks.
func (o Options) log() serve.Log {
	l := o.logger()
	logAt := func(level slog.Level) func(*http.Request, string) {
		return func(r *http.Request, msg string) {
			if l.Enabled(r.Context(), level) {
				l.Log(r.Context(), level, msg, "method", r.Method, "uri", r.RequestURI)
			}
		}
	}
	return serve.Log{Debug: logAt(slog.LevelDebug), Warn: logAt(slog.LevelWarn)}
}

// Middleware serves robots.txt and applies robots tags per route. Build it with New or
// NewFromJSON; it is safe for concurrent use.
type Middleware struct {
	robots  *serve.RobotsTxt
	merge   *serve.Upstream
	enforce *serve.Enforcer
	logger  *slog.Logger
	routes  []compiledRoute
	paths   bool // some route has path patterns
}

type compiledRoute struct {
	patterns []serve.PathPattern
	match    func(*http.Request) bool
	tagger   *serve.Tagger
}

// New checks cfg and precomputes everything the middleware sends. The error names every
// problem found; what is valid but may not work as meant is logged at warn level.
func New(cfg Config, opts Options) (*Middleware, error) {
	m := &Middleware{logger: opts.logger()}
	var errs []error
	var warnings []*configerr.Error
	log := opts.log()
	if cfg.RobotsTxt != nil {
		file := cfg.RobotsTxt.file()
		rt, up, err := cfg.RobotsTxt.newRobotsTxt(file, time.Duration(cfg.RobotsTxt.MaxAge), log, m.logger)
		m.merge = up
		if err != nil {
			errs = append(errs, configerr.Prefix("robots_txt", err))
		} else if e := cfg.RobotsTxt.Enforce; e != nil {
			m.enforce, err = serve.NewEnforcer(rt, up, e.Status)
			errs = append(errs, configerr.Prefix("robots_txt", err))
		}
		m.robots = rt
		warnings = append(warnings, configerr.PrefixAll("robots_txt", file.Warnings())...)
	}
	for i, route := range cfg.RobotsTag {
		at := configerr.Index("robots_tag", i)
		cr := compiledRoute{match: route.Match}
		for j, p := range route.Paths {
			pp, err := serve.CompilePathPattern(p)
			if err != nil {
				errs = append(errs, configerr.New(configerr.Index(at+".paths", j), p, err.Error()))
				continue
			}
			cr.patterns = append(cr.patterns, pp)
		}
		m.paths = m.paths || len(cr.patterns) > 0
		t, err := serve.NewTagger(route.Rules, route.ContentUsage, route.Meta, route.XRobotsTag, log)
		if err != nil {
			errs = append(errs, configerr.Prefix(at, err))
		}
		warnings = append(warnings, configerr.PrefixAll(at+".rules", tagemit.Warnings(route.Rules))...)
		cr.tagger = t
		m.routes = append(m.routes, cr)
	}
	if cfg.RobotsTxt == nil && len(cfg.RobotsTag) == 0 {
		errs = append(errs, configerr.New("", "", "nothing to do: configure robots_txt, robots_tag, or both"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, w := range warnings {
		m.logger.Warn("config: "+w.Error(), "path", w.Path)
	}
	return m, nil
}

// NewFromJSON reads a Config from JSON, rejecting unknown fields (a misspelt field would
// otherwise silently drop a restriction), and calls New.
func NewFromJSON(data []byte, opts Options) (*Middleware, error) {
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if dec.More() {
		return nil, errors.New("config: unexpected data after the JSON object")
	}
	return New(cfg, opts)
}

// Handler returns next wrapped by the middleware.
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return &middlewareHandler{m: m, next: next, tagNext: nextHandler{next}}
}

type middlewareHandler struct {
	m       *Middleware
	next    http.Handler
	tagNext serve.Handler // next as the core's Handler, boxed once here rather than per request
}

// nextHandler adapts an http.Handler to Handler, once, so requests do not allocate it.
type nextHandler struct{ h http.Handler }

func (n nextHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	n.h.ServeHTTP(w, r)
	return nil
}

func (h *middlewareHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := h.m
	if m.robots != nil && m.robots.Matches(r) {
		if err := h.serveRobotsTxt(w, r); err != nil {
			se := err.(*serve.StatusError)
			http.Error(w, strconv.Itoa(se.Code)+" "+http.StatusText(se.Code)+": "+se.Msg, se.Code)
		}
		return
	}
	if m.enforce != nil {
		if b, blocked := m.enforce.Check(r); blocked {
			code := m.enforce.Status()
			msg := b.Message()
			m.logger.InfoContext(r.Context(), msg, "token", b.Token, "rule", string(b.Rule.Type)+": "+b.Rule.Path, "status", code, "method", r.Method, "uri", r.RequestURI)
			http.Error(w, strconv.Itoa(code)+" "+http.StatusText(code)+": "+msg, code)
			return
		}
	}
	var buf [4]*serve.Tagger
	matched := buf[:0]
	var reqPath string
	if m.paths {
		reqPath = serve.RequestPath(r)
	}
	for i := range m.routes {
		if m.routes[i].matches(r, reqPath) {
			matched = append(matched, m.routes[i].tagger)
		}
	}
	if len(matched) == 0 {
		h.next.ServeHTTP(w, r)
		return
	}
	_ = serve.Tag(w, r, h.tagNext, matched...)
}

func (cr *compiledRoute) matches(r *http.Request, reqPath string) bool {
	if len(cr.patterns) > 0 {
		ok := false
		for i := range cr.patterns {
			if cr.patterns[i].Match(r, reqPath) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return cr.match == nil || cr.match(r)
}

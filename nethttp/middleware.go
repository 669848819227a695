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
)

// Options are the optional parts of the middleware that are not config.
type Options struct {
	// Logger receives why a response was left unchanged or a backend header was not read in
	// full (debug level), and what an operator must fix (warn level, once per route and kind).
	// Nil means slog.Default().
	Logger *slog.Logger
}

// log adapts a Logger to the core's per-request log hooks.
func (o Options) log() serve.Log {
	l := o.Logger
	if l == nil {
		l = slog.Default()
	}
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
	robots *serve.RobotsTxt
	routes []compiledRoute
	paths  bool // some route has path patterns
}

type compiledRoute struct {
	patterns []serve.PathPattern
	match    func(*http.Request) bool
	tagger   *serve.Tagger
}

// New checks cfg and precomputes everything the middleware sends. The error names every
// problem found.
func New(cfg Config, opts Options) (*Middleware, error) {
	m := &Middleware{}
	var errs []error
	log := opts.log()
	if cfg.RobotsTxt != nil {
		rt, err := serve.NewRobotsTxt(cfg.RobotsTxt.file(), time.Duration(cfg.RobotsTxt.MaxAge))
		if err != nil {
			errs = append(errs, configerr.Prefix("robots_txt", err))
		}
		m.robots = rt
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
		t, err := serve.NewTagger(route.Rules, route.Meta, route.XRobotsTag, log)
		if err != nil {
			errs = append(errs, configerr.Prefix(at, err))
		}
		cr.tagger = t
		m.routes = append(m.routes, cr)
	}
	if cfg.RobotsTxt == nil && len(cfg.RobotsTag) == 0 {
		errs = append(errs, configerr.New("", "", "nothing to do: configure robots_txt, robots_tag, or both"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
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
		if err := m.robots.ServeHTTP(w, r); err != nil {
			se := err.(*serve.StatusError)
			http.Error(w, strconv.Itoa(se.Code)+" "+http.StatusText(se.Code)+": "+se.Msg, se.Code)
		}
		return
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

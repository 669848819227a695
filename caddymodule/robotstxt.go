// Package caddymodule plugs caddy-robots into Caddy v2 as two HTTP handler modules:
//
//   - http.handlers.robots_txt serves a robots.txt file (RFC 9309, with draft-illyes-rep-purpose
//     User-Agent-Purpose groups) generated from the config;
//   - http.handlers.robots_tag adds the Robots-Tag response header (draft-illyes-repext) and,
//     optionally, robots <meta> elements in HTML and the legacy X-Robots-Tag header.
//
// Each has a Caddyfile directive of the same name whose order this package registers, so a
// Caddyfile needs no "order" global option. The package is a thin adapter: the serving and
// response-wrapping logic is the shared core in package nethttp, which the net/http middleware
// uses too, and the handlers' JSON is exactly the core's config JSON plus "handler".
package caddymodule

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/serve"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

func init() {
	caddy.RegisterModule(RobotsTxt{})
	caddy.RegisterModule(RobotsTag{})
}

// RobotsTxt is the http.handlers.robots_txt handler. It answers GET and HEAD requests for
// exactly /robots.txt with the configured file (405 with an Allow header for other methods)
// and passes every other request to the next handler untouched.
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
	// The robots.txt file and its max-age. The handler's JSON is the JSON of
	// nethttp.RobotsTxtConfig: "comments", "groups", "sitemaps", "records", "max_age",
	// "enforce".
	nethttp.RobotsTxtConfig

	rt      *serve.RobotsTxt
	merge   *serve.Upstream
	enforce *serve.Enforcer
	logger  *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (RobotsTxt) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.robots_txt",
		New: func() caddy.Module { return new(RobotsTxt) },
	}
}

// Provision replaces global placeholders in the config and builds the responder, which
// validates the file and renders it. An invalid file fails the config load or reload.
func (h *RobotsTxt) Provision(ctx caddy.Context) error {
	ph := newPlaceholders()
	file := ph.file(robotsgen.File{Comments: h.Comments, Groups: h.Groups, Sitemaps: h.Sitemaps, Records: h.Records})
	if err := ph.err(); err != nil {
		return err
	}
	rt, err := h.newRobotsTxt(ctx, ph, file, time.Duration(h.MaxAge)) // merged as merge_file and merge_upstream say (merge.go)
	if err != nil {
		return err
	}
	h.rt = rt
	h.logger = ctx.Logger()
	if h.Enforce != nil {
		if h.enforce, err = serve.NewEnforcer(rt, h.merge, h.Enforce.Status); err != nil {
			return err
		}
	}
	logWarnings(h.logger, file.Warnings())
	ctx.Logger().Debug("robots.txt ready", zap.Int("groups", len(file.Groups)), zap.Int("sitemaps", len(file.Sitemaps)))
	return nil
}

// ServeHTTP serves /robots.txt and passes every other request to next. A method other than
// GET or HEAD is answered 405 through Caddy's error handling (handle_errors applies), with
// the Allow header set.
//
// With enforce, a request from a crawler that the file disallows for the path is answered
// with the configured status and logged at info level: through Caddy's error handling when
// the server has handle_errors routes, else with the short text body nethttp sends (Caddy's
// default error response has no body, which would not say why).
func (h *RobotsTxt) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if !h.rt.Matches(r) {
		if h.enforce != nil {
			if b, blocked := h.enforce.Check(r); blocked {
				code, msg := h.enforce.Status(), b.Message()
				h.logger.Info(msg, zap.String("token", b.Token), zap.String("rule", string(b.Rule.Type)+": "+b.Rule.Path),
					zap.Int("status", code), zap.String("method", r.Method), zap.String("uri", r.RequestURI))
				if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv.Errors != nil && len(srv.Errors.Routes) > 0 {
					return caddyhttp.Error(code, errors.New(msg))
				}
				http.Error(w, strconv.Itoa(code)+" "+http.StatusText(code)+": "+msg, code)
				return nil
			}
		}
		return next.ServeHTTP(w, r)
	}
	if h.merge != nil {
		return h.serveMerged(w, r, next)
	}
	if err := h.rt.ServeHTTP(w, r); err != nil {
		se := err.(*serve.StatusError)
		return caddyhttp.Error(se.Code, err)
	}
	return nil
}

// Cleanup stops merge_upstream's cache timers when a reload replaces this handler.
func (h *RobotsTxt) Cleanup() error {
	if h.merge != nil {
		h.merge.Stop()
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
// field path.
func logWarnings(l *zap.Logger, ws []*configerr.Error) {
	for _, w := range ws {
		l.Warn("config: "+w.Error(), zap.String("path", w.Path))
	}
}

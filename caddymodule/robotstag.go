package caddymodule

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/serve"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

// RobotsTag is the http.handlers.robots_tag handler. It sets one Robots-Tag field line on
// every response of the requests it handles. Several robots_tag handlers on one request, and
// a Robots-Tag (or X-Robots-Tag) header that the next handler set itself (a reverse_proxy
// backend, for instance), are merged into one union of the rules, since all rules restrict.
//
// With Meta, 200 HTML responses (a Content-Type a browser reads as text/html or
// application/xhtml+xml, see package mimetype) also get <meta name="robots"> (and per-token)
// elements in their <head>, inserted while the body streams through; Content-Length is kept exact and a
// strong ETag is weakened. Responses that must not be rewritten (HEAD, 1xx, 204, 304, partial
// content, a body with a Content-Encoding, Cache-Control: no-transform) keep the header and
// their bytes; why is logged at debug level. With XRobotsTag the legacy X-Robots-Tag header is
// sent too.
//
// Global placeholders such as {env.ROBOTS_RULE} are replaced in tokens and rules when the
// config is provisioned; any other placeholder is a config error, since the header values are
// serialised ahead of any request.
type RobotsTag struct {
	// The rules and output options. The handler's JSON is the JSON of nethttp.TagConfig:
	// "rules" (product token -> rules, "*" = every accessor), "meta", "x_robots_tag".
	nethttp.TagConfig

	tagger *serve.Tagger
}

// CaddyModule returns the Caddy module information.
func (RobotsTag) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.robots_tag",
		New: func() caddy.Module { return new(RobotsTag) },
	}
}

// Provision replaces global placeholders in tokens and rules and builds the tagger, which
// validates them. Invalid rules fail the config load or reload.
func (h *RobotsTag) Provision(ctx caddy.Context) error {
	logger := ctx.Logger()
	ph := newPlaceholders()
	rules := ph.rules(h.Rules)
	contentUsage := ph.usageMap("content_usage", h.ContentUsage)
	if err := ph.err(); err != nil {
		return err
	}
	logAt := func(level zapcore.Level) func(*http.Request, string) {
		return func(r *http.Request, msg string) {
			if ce := logger.Check(level, msg); ce != nil {
				ce.Write(zap.String("method", r.Method), zap.String("uri", r.RequestURI))
			}
		}
	}
	t, err := serve.NewTagger(rules, contentUsage, h.Meta, h.XRobotsTag, serve.Log{Debug: logAt(zap.DebugLevel), Warn: logAt(zap.WarnLevel)})
	if err != nil {
		return err
	}
	h.tagger = t
	logWarnings(logger, configerr.PrefixAll("rules", tagemit.Warnings(rules)))
	return nil
}

// ServeHTTP runs next with the robots tags applied to its response.
func (h *RobotsTag) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return serve.Tag(w, r, next, h.tagger)
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*RobotsTag)(nil)
	_ caddyhttp.MiddlewareHandler = (*RobotsTag)(nil)
	_ caddyfile.Unmarshaler       = (*RobotsTag)(nil)
)

package caddymodule

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
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
// Global placeholders such as {env.ROBOTS_RULE} are replaced in every string (tokens, rules,
// content_usage) when the config is provisioned; any other placeholder is a config error, since the header values are
// serialised ahead of any request.
type RobotsTag struct {
	// The rules and output options. The handler's JSON is the JSON of policy.Tags: "rules"
	// (product token -> rules, "*" = every accessor), "meta", "x_robots_tag",
	// "content_usage", "licenses", "tdm" (TDMRep: {"reservation": 1, "policy": "https://..."}).
	policy.Tags

	tags policy.Tags // Tags with global placeholders replaced, for robots_txt's tdmrep.json
	core *serve.Core
	tdm  *perServer[*serve.Core] // the Core of the site block's tdmrep.json, found at its first request (tdmfile.go)
}

// CaddyModule returns the Caddy module information.
func (RobotsTag) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.robots_tag",
		New: func() caddy.Module { return new(RobotsTag) },
	}
}

// Provision replaces global placeholders in every string and builds the serving core of
// one route, which validates them. Invalid rules fail the config load or reload.
func (h *RobotsTag) Provision(ctx caddy.Context) error {
	if err := usePlaceholderCheck(ctx); err != nil {
		return err
	}
	tags, err := replacePlaceholders(h.Tags)
	if err != nil {
		return err
	}
	h.tags, h.tdm = tags, new(perServer[*serve.Core])
	opts := coreOptions(ctx)
	if tags.TDM != nil {
		// The tdm-policy fields state the policy the site block's tdmrep.json states for
		// the path.
		opts.TDMRep = func(r *http.Request) *serve.Core {
			if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok {
				return h.tdmCore(srv)
			}
			return nil
		}
	}
	core, err := serve.New(policy.Config{RobotsTag: []policy.Route{{Tags: tags}}}, opts)
	if err != nil {
		return configerr.Reroot(err, "robots_tag[0]", "")
	}
	h.core = core
	logWarnings(ctx.Logger(), core.Warnings(), "robots_tag[0]")
	return nil
}

// ServeHTTP runs next with the robots tags applied to its response (serve.Core.ServeHTTP).
// With a TDMRep declaration, when the site block serves a generated tdmrep.json, the
// tdm-policy fields state the policy the file states for the path.
func (h *RobotsTag) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return h.core.ServeHTTP(w, r, next)
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*RobotsTag)(nil)
	_ caddyhttp.MiddlewareHandler = (*RobotsTag)(nil)
	_ caddyfile.Unmarshaler       = (*RobotsTag)(nil)
)

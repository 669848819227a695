package caddymodule

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(CrawlerIdentity{})
	httpcaddyfile.RegisterHandlerDirective("crawler_identity", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		m := new(CrawlerIdentity)
		return m, m.UnmarshalCaddyfile(h.Dispenser)
	})
	// First of all directives, so that every handler of the site may read the placeholders.
	httpcaddyfile.RegisterDirectiveOrder("crawler_identity", httpcaddyfile.Before, "tracing")
}

// CrawlerIdentity is the crawler_identity handler: it makes the {http.crawler.*} placeholders
// available to every handler after it, for a site that reads them before any other module of
// this package (a crawler matcher, robots_txt, robots_tag) has seen the request, such as a
// `header` that Caddy's directive order puts before robots_txt. The identity is found only
// when a placeholder is read, once per request; a request that reads none pays a variable
// lookup. With the crawlers app, the identity is verified; without it, it is the User-Agent's
// claim alone, with the status "unchecked".
//
// Caddyfile: `crawler_identity`, no arguments; ordered before every other directive.
type CrawlerIdentity struct{}

// CaddyModule returns the Caddy module information.
func (CrawlerIdentity) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.crawler_identity",
		New: func() caddy.Module { return new(CrawlerIdentity) },
	}
}

// Provision loads the check of the config's placeholder reads.
func (*CrawlerIdentity) Provision(ctx caddy.Context) error { return usePlaceholderCheck(ctx) }

// ServeHTTP makes the placeholders available and runs next.
func (CrawlerIdentity) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	providePlaceholders(r)
	return next.ServeHTTP(w, r)
}

// UnmarshalCaddyfile reads `crawler_identity`, which takes no arguments.
func (*CrawlerIdentity) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() || d.NextBlock(0) {
		return d.Errf("crawler_identity takes no arguments: it makes the {http.crawler.*} placeholders available to the handlers after it")
	}
	return nil
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = (*CrawlerIdentity)(nil)
	_ caddyfile.Unmarshaler       = (*CrawlerIdentity)(nil)
)

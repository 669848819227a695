package caddymodule

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/headers"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/logging"
)

func init() {
	caddy.RegisterModule(placeholderCheck{})
}

// placeholderCheck is an app without config that every module of this package, and the
// crawlers app, loads (usePlaceholderCheck): when the config starts, it refuses a config in which a handler reads
// an {http.crawler.*} placeholder where none of this package's modules has made them
// available, which Caddy would send as literal text (checkPlaceholderReads). It is not
// loaded, and checks nothing, in a config without the package's modules.
type placeholderCheck struct {
	ctx caddy.Context
}

// CaddyModule returns the Caddy module information.
func (placeholderCheck) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "robots_placeholders",
		New: func() caddy.Module { return new(placeholderCheck) },
	}
}

// Provision keeps the context, to find the http app at Start.
func (c *placeholderCheck) Provision(ctx caddy.Context) error {
	c.ctx = ctx
	return nil
}

// Start checks the config's routes, provisioned by now.
func (c *placeholderCheck) Start() error {
	app, err := c.ctx.AppIfConfigured("http")
	if err != nil {
		return nil
	}
	return checkPlaceholderReads(app.(*caddyhttp.App))
}

// Stop does nothing.
func (*placeholderCheck) Stop() error { return nil }

// usePlaceholderCheck loads the check into the config a module of this package is in.
func usePlaceholderCheck(ctx caddy.Context) error {
	_, err := ctx.App("robots_placeholders")
	return err
}

// checkPlaceholderReads returns an error naming the first handler of app that reads an
// {http.crawler.*} placeholder where no module of this package has made them available: a
// crawler matcher of its route or of a route enclosing it, or of an earlier route whose
// first matcher set has only crawler matchers (evaluated for every request that gets there,
// matched or not); a crawler_identity handler or a robots_txt that identifies requests
// (enforce's impostors, metrics, ...) before it in its chain, or in a route without matchers
// before its route. A deferred read (log_append, a
// deferred header) is answered when the response is written, so such a module after it
// serves it too. A module inside a matched block (handle, route) counts only within it.
func checkPlaceholderReads(app *caddyhttp.App) error {
	names := make([]string, 0, len(app.Servers))
	for n := range app.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if _, err := checkRoutes(app.Servers[n].Routes, "apps.http.servers."+n+".routes", false); err != nil {
			return err
		}
	}
	return nil
}

// pendingRead is a deferred read still waiting for a module to make the placeholders
// available.
type pendingRead struct{ path, handler string }

// checkRoutes checks routes (at path) reached with the placeholders available or not
// (provided), and reports whether they are available after the routes.
func checkRoutes(routes caddyhttp.RouteList, path string, provided bool) (bool, error) {
	var pending []pendingRead
	for i, rt := range routes {
		at := fmt.Sprintf("%s[%d]", path, i)
		p := provided || matchesCrawler(rt.MatcherSets)
		for j, h := range rt.Handlers {
			hat := fmt.Sprintf("%s.handle[%d]", at, j)
			switch h := h.(type) {
			case *CrawlerIdentity:
				p = true
				continue
			case *RobotsTxt:
				if h.crawlers != nil {
					p = true
				}
				continue
			case *caddyhttp.Subroute:
				if _, err := checkRoutes(h.Routes, hat+".routes", p); err != nil {
					return false, err
				}
				continue
			}
			if p || !readsCrawlerPlaceholder(h) || holdsCrawlerMatcher(reflect.ValueOf(h), 8) {
				// A handler with a crawler matcher of its own (rate_limit's zones) evaluates it
				// before it reads the placeholders, as a route does.
				continue
			}
			if deferredRead(h) {
				pending = append(pending, pendingRead{hat, moduleID(h)})
				continue
			}
			return false, placeholderError(hat, moduleID(h))
		}
		if p && len(rt.MatcherSets) == 0 || alwaysIdentifies(rt.MatcherSets) {
			provided = true // every request that gets here has passed the module
		}
		if p {
			pending = nil
		}
	}
	if len(pending) > 0 && !provided {
		return false, placeholderError(pending[0].path, pending[0].handler)
	}
	return provided, nil
}

func placeholderError(path, handler string) error {
	return fmt.Errorf("%s (%s): reads an {http.crawler.*} placeholder where no module of caddy-robots has identified the request, so Caddy would send it as literal text: put crawler_identity before it (Caddyfile: a crawler_identity line in the site block, which Caddy orders first; JSON: {\"handler\": \"crawler_identity\"} first in the route list), or give its directive a crawler matcher", path, handler)
}

// matchesCrawler reports whether a crawler matcher is among sets (also inside not).
func matchesCrawler(sets caddyhttp.MatcherSets) bool {
	for _, set := range sets {
		for _, m := range set {
			switch m := m.(type) {
			case *MatchCrawler:
				return true
			case *caddyhttp.MatchNot:
				if matchesCrawler(m.MatcherSets) {
					return true
				}
			}
		}
	}
	return false
}

// alwaysIdentifies reports whether evaluating sets always evaluates a crawler matcher: the
// first set has only crawler matchers (the route's later sets are tried only when it fails).
func alwaysIdentifies(sets caddyhttp.MatcherSets) bool {
	if len(sets) == 0 || len(sets[0]) == 0 {
		return false
	}
	for _, m := range sets[0] {
		if !matchesCrawler(caddyhttp.MatcherSets{{m}}) {
			return false
		}
	}
	return true
}

// holdsCrawlerMatcher reports whether v holds a crawler matcher, looking depth levels deep.
func holdsCrawlerMatcher(v reflect.Value, depth int) bool {
	if depth == 0 || !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return false
		}
		if v.Type() == reflect.TypeFor[*MatchCrawler]() {
			return true
		}
		return holdsCrawlerMatcher(v.Elem(), depth-1)
	case reflect.Interface:
		return !v.IsNil() && holdsCrawlerMatcher(v.Elem(), depth-1)
	case reflect.Struct:
		for i := range v.NumField() {
			if holdsCrawlerMatcher(v.Field(i), depth-1) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range min(v.Len(), 64) {
			if holdsCrawlerMatcher(v.Index(i), depth-1) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if holdsCrawlerMatcher(it.Value(), depth-1) {
				return true
			}
		}
	}
	return false
}

// readsCrawlerPlaceholder reports whether h's config names an {http.crawler.*} placeholder.
func readsCrawlerPlaceholder(h caddyhttp.MiddlewareHandler) bool {
	b, err := json.Marshal(h)
	return err == nil && strings.Contains(string(b), "{"+crawlerPlaceholderPrefix)
}

// deferredRead reports whether h reads its placeholders when the response is written, after
// the handlers after it have run.
func deferredRead(h caddyhttp.MiddlewareHandler) bool {
	switch h := h.(type) {
	case *logging.LogAppend:
		return !h.Early
	case *headers.Handler:
		return h.Request == nil && h.Response != nil && (h.Response.Deferred || h.Response.Require != nil)
	}
	return false
}

func moduleID(h caddyhttp.MiddlewareHandler) string {
	if m, ok := h.(caddy.Module); ok {
		return string(m.CaddyModule().ID)
	}
	return fmt.Sprintf("%T", h)
}

// Interface guards.
var (
	_ caddy.App         = (*placeholderCheck)(nil)
	_ caddy.Provisioner = (*placeholderCheck)(nil)
)

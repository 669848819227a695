// Package routewalk is the one walk over the provisioned routes of a Caddy HTTP server: in
// the order caddyhttp runs them (routes in order, the routes of a subroute where the
// subroute stands, a named route where an invoke stands, the handlers of a route in order),
// with the way to each handler met (the routes that lead to it, and what runs before them).
//
// The Caddy module walks with it three times: the robots_txt handler, to find the robots_tag
// handlers of its site block whose TDMRep declarations make tdmrep.json; "caddy robots
// check", following one request through the routes of its server; "caddy robots lint", over
// every route of each site block.
package routewalk

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/rewrite"
)

// Level is one route on the way to a handler.
type Level struct {
	Route *caddyhttp.Route
	Path  string // the route's JSON path in the config
	// AfterGroup says that a route of the same group with matchers comes before it in its
	// list: only the first route of a group that matches runs (handle blocks), so this one
	// sees only the requests that one does not match.
	AfterGroup bool
	// AfterRewrite says that a rewrite was met earlier in the walk (in any route: a walk
	// without a request does not know which ran) when the route is reached: its matchers
	// may see another path than the client's.
	AfterRewrite bool
}

// Handler is a handler met in a walk.
type Handler struct {
	Handler caddyhttp.MiddlewareHandler
	Path    string  // the handler's JSON path in the config
	Way     []Level // the routes that lead to it, outermost first
	// Rewritten says whether a rewrite ran before the handler: before it in its route, in
	// an earlier route of the same list, or, through a subroute (or invoke), in an earlier
	// route of a subroute before it in its route.
	Rewritten bool
}

// Walk is one walk over routes.
//
// With a Request (check), the walk follows it as caddyhttp serves it: a route is taken when
// one of its match sets accepts the request (with the URI as rewritten so far), only the
// first such route of a group, a rewrite changes the request for the matchers after it, and
// the walk ends where the request is answered: at a terminal route, at a handler that
// answers, or where Visit says so. A matcher that fails is an error.
//
// Without one (lint, tdmrep.json), the walk takes every route of every group, runs no
// rewrite, and goes to the end.
type Walk struct {
	// Server is the server's name, for the JSON paths of its named routes.
	Server string
	// Named are the server's named routes, which an invoke runs.
	Named map[string]*caddyhttp.Route
	// Request is the request followed, or nil.
	Request *http.Request
	// Skip, when set, leaves out a route (and all it holds) that would be walked.
	Skip func(*caddyhttp.Route) bool
	// Visit is called for each handler met, in walk order, other than subroute, invoke and
	// rewrite; true ends the walk (the handler answers the request).
	Visit func(Handler) (stop bool)
	// Notes say what the walk did to the request (the rewrites that changed it).
	Notes []string

	rewrite  bool            // a rewrite was met (Level.AfterRewrite)
	invoking map[string]bool // the named routes being walked, against a cycle
}

// terminal are the standard handlers that answer without calling the next handler: no
// handler after them in a route, and no later route, sees the request.
var terminal = map[string]bool{
	"static_response": true, "file_server": true, "reverse_proxy": true, "error": true,
	"acme_server": true, "copy_response": true,
}

// Routes walks rs at path (the list's JSON path, "….routes"). It reports whether the walk
// ended (the request was answered).
func (w *Walk) Routes(rs caddyhttp.RouteList, path string) (stop bool, err error) {
	stop, _, err = w.routes(rs, path, nil, false)
	return stop, err
}

// Route walks the handlers of rt at path (the route's JSON path) as the start of a walk: its
// matchers are not asked, and it is on no handler's way (a site block, whose host matcher
// is its address). It reports whether the walk ended.
func (w *Walk) Route(rt *caddyhttp.Route, path string) (stop bool, err error) {
	stop, _, err = w.route(rt, path, nil, false)
	return stop, err
}

// routes walks rs at path after way, with rewritten as the walk reached them. It reports
// whether the walk ended, and whether a rewrite ran in the list (Handler.Rewritten).
func (w *Walk) routes(rs caddyhttp.RouteList, path string, way []Level, rewritten bool) (stop, rewrote bool, err error) {
	groups := map[string]bool{} // with a request: the groups that ran; else those with a route with matchers
	for i := range rs {
		rt := &rs[i]
		at := fmt.Sprintf("%s[%d]", path, i)
		lvl := Level{Route: rt, Path: at}
		if w.Request != nil {
			if rt.Group != "" && groups[rt.Group] {
				continue
			}
			ok, err := rt.MatcherSets.AnyMatchWithError(w.Request)
			if err != nil {
				return false, rewritten, fmt.Errorf("%s.match: %w", at, err)
			}
			if !ok {
				continue
			}
			if rt.Group != "" {
				groups[rt.Group] = true
			}
		} else if rt.Group != "" {
			lvl.AfterGroup = groups[rt.Group]
			groups[rt.Group] = groups[rt.Group] || len(rt.MatcherSets) > 0
		}
		if w.Skip != nil && w.Skip(rt) {
			continue
		}
		lvl.AfterRewrite = w.rewrite
		if stop, _, err := w.route(rt, at, append(way[:len(way):len(way)], lvl), rewritten); stop || err != nil {
			return stop, rewritten, err
		}
		if rt.Terminal && w.Request != nil {
			return true, rewritten, nil
		}
		rewritten = rewritten || hasRewrite(rt)
	}
	return false, rewritten, nil
}

// hasRewrite reports whether one of rt's own handlers is a rewrite.
func hasRewrite(rt *caddyhttp.Route) bool {
	for _, h := range rt.Handlers {
		if _, ok := h.(*rewrite.Rewrite); ok {
			return true
		}
	}
	return false
}

// route walks the handlers of rt at path, with way (rt included, when it is on the way) and
// rewritten as the walk reached it. It reports whether the walk ended, and rewritten after
// the route's handlers.
func (w *Walk) route(rt *caddyhttp.Route, path string, way []Level, rewritten bool) (stop, rewrote bool, err error) {
	for j, h := range rt.Handlers {
		hp := fmt.Sprintf("%s.handle[%d]", path, j)
		switch h := h.(type) {
		case *caddyhttp.Subroute:
			if stop, rewritten, err = w.routes(h.Routes, hp+".routes", way, rewritten); stop || err != nil {
				return stop, rewritten, err
			}
		case *caddyhttp.Invoke:
			if stop, rewritten, err = w.invoke(h.Name, way, rewritten); stop || err != nil {
				return stop, rewritten, err
			}
		case *rewrite.Rewrite:
			rewritten, w.rewrite = true, true
			if w.Request != nil {
				w.rewriteRequest(h, hp)
			}
		default:
			if w.Visit != nil && w.Visit(Handler{Handler: h, Path: hp, Way: way, Rewritten: rewritten}) {
				return true, rewritten, nil
			}
			if w.Request != nil && terminal[ModuleName(h)] {
				return true, rewritten, nil
			}
		}
	}
	return false, rewritten, nil
}

// invoke walks the named route name where an invoke stands: it runs there, its matchers
// included (caddyhttp.Invoke). A route that invokes itself is walked once.
func (w *Walk) invoke(name string, way []Level, rewritten bool) (stop, rewrote bool, err error) {
	nr := w.Named[name]
	if nr == nil || w.invoking[name] || (w.Skip != nil && w.Skip(nr)) {
		return false, rewritten, nil
	}
	at := fmt.Sprintf("apps.http.servers.%s.named_routes[%q]", w.Server, name)
	if w.Request != nil {
		if ok, err := nr.MatcherSets.AnyMatchWithError(w.Request); err != nil || !ok {
			if err != nil {
				err = fmt.Errorf("%s.match: %w", at, err)
			}
			return false, rewritten, err
		}
	}
	if w.invoking == nil {
		w.invoking = map[string]bool{}
	}
	w.invoking[name] = true
	defer delete(w.invoking, name)
	lvl := Level{Route: nr, Path: at, AfterRewrite: w.rewrite}
	if stop, rewritten, err = w.route(nr, at, append(way[:len(way):len(way)], lvl), rewritten); stop || err != nil {
		return stop, rewritten, err
	}
	return nr.Terminal && w.Request != nil, rewritten, nil
}

// rewriteRequest runs the rewrite handler h (at path hp) on the request: later matchers see
// the rewritten URI (handle_path strips its prefix).
func (w *Walk) rewriteRequest(h *rewrite.Rewrite, hp string) {
	repl, _ := w.Request.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if h.Rewrite(w.Request, repl) {
		w.Notes = append(w.Notes, fmt.Sprintf("the rewrite at %s changes the request to %s before later handlers", hp, w.Request.URL.RequestURI()))
	}
}

// ModuleName is a handler's or matcher's module name ("file_server", "not"), or its Go type.
func ModuleName(m any) string {
	if mod, ok := m.(caddy.Module); ok {
		return caddy.GetModuleName(mod)
	}
	return fmt.Sprintf("%T", m)
}

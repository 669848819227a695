package caddymodule

import (
	"errors"
	"maps"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
)

// Merging with the site's own robots.txt (merge_file, merge_upstream): the Caddy side.
//
// merge_upstream asks the rest of the route for /robots.txt with a sub-request, as the
// templates handler's httpInclude asks the server for an include: a new GET request with a
// response writer of our own. Unlike httpInclude it does not start again at the top of the
// server (the handlers before robots_txt already ran for the request, and robots_txt would
// answer the sub-request itself), but calls next, the handler chain after robots_txt.
//
// The sub-request may run after the request that started it has ended (a revalidation runs
// in the background) and for other requests (single flight), so it must share no mutable
// state with that request. Caddy keeps per-request state in the request context: the
// replacer (reverse_proxy sets its {http.reverse_proxy.*} placeholders there, which the access
// log of the original request reads), the variables map, the route-group map (which "handle"
// group already ran: wrapRoute records it there), the idle-timeout wrappers of the
// connection. So the sub-request's context is made as the server makes a request's, with
// caddyhttp.PrepareRequest: a new replacer, new variables, a new route-group map, its own
// original request; the idle timeouts of the client connection are cleared. Two things are
// copied from the request, when the fetch starts: the route groups already satisfied (so
// that "handle" blocks after the one robots_txt is in are still skipped) and the variables
// (vars, map outputs stored as variables, client_ip). Limits: placeholders that handlers
// before robots_txt set directly on the replacer are not seen by the handlers after it in
// the sub-request; handlers before robots_txt do not run again for it (their response
// headers, such as those of header, are set on the response to the client as usual).

// unmarshalMerge reads "merge_file <file>" or "merge_upstream [<timeout>]"; the cursor is on
// sub.
func (h *RobotsTxt) unmarshalMerge(d *caddyfile.Dispenser, at *positions, sub string) error {
	args := d.RemainingArgs()
	if d.NextBlock(d.Nesting()) {
		return errf(d, "robots_txt: %s takes no block", sub)
	}
	if sub == "merge_file" {
		if h.MergeFile != "" {
			return errf(d, "robots_txt: merge_file given twice")
		}
		if len(args) != 1 {
			return errf(d, "robots_txt: merge_file takes one file, the robots.txt to merge (got %d arguments)", len(args))
		}
		h.MergeFile = args[0]
		at.mark(&h.MergeFile)
		return nil
	}
	if h.MergeUpstream {
		return errf(d, "robots_txt: merge_upstream given twice")
	}
	if len(args) > 1 {
		return errf(d, "robots_txt: merge_upstream takes at most one argument, the fetch timeout (default %s)", policy.DefaultUpstreamTimeout)
	}
	h.MergeUpstream = true
	at.mark(&h.MergeUpstream)
	if len(args) == 1 {
		v, err := caddy.ParseDuration(args[0])
		if err != nil {
			return parseErrorf(d, args[0], "", "robots_txt: merge_upstream: timeout: %v", durationError(args[0], err))
		}
		if v == 0 {
			return parseErrorf(d, args[0], "", "robots_txt: merge_upstream: timeout %q: would mean the default (%s); leave it out, or give more than 0", args[0], policy.DefaultUpstreamTimeout)
		}
		h.MergeUpstreamTimeout = policy.Duration(v)
		at.markWritten(&h.MergeUpstreamTimeout, sub, args[0])
	}
	return nil
}

// routeGroupCtxKey is the context key under which Caddy's wrapRoute keeps the route groups a
// request has satisfied (caddyhttp's unexported routeGroupCtxKey: a caddy.CtxKey compares by
// its string). TestMergeUpstreamRouteGroups fails if Caddy renames it.
const routeGroupCtxKey = caddy.CtxKey("route_group")

// subRequestFetch copies what the sub-request needs from r (the request being handled) and
// returns the Fetch that runs next for it.
func subRequestFetch(r *http.Request, next caddyhttp.Handler) serve.Fetch {
	ctx := r.Context()
	server, _ := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	var groups map[string]struct{}
	if g, ok := ctx.Value(routeGroupCtxKey).(map[string]struct{}); ok {
		groups = maps.Clone(g)
	}
	var vars map[string]any
	if v, ok := ctx.Value(caddyhttp.VarsCtxKey).(map[string]any); ok {
		vars = maps.Clone(v)
	}
	return func(w http.ResponseWriter, sub *http.Request) error {
		sub = caddyhttp.PrepareRequest(sub, caddy.NewReplacer(), w, server)
		sctx := caddyhttp.ContextWithIdleTimeouts(sub.Context(), nil, nil)
		if g, ok := sctx.Value(routeGroupCtxKey).(map[string]struct{}); ok {
			maps.Copy(g, groups)
		}
		if v, ok := sctx.Value(caddyhttp.VarsCtxKey).(map[string]any); ok {
			maps.Copy(v, vars)
		}
		err := next.ServeHTTP(w, sub.WithContext(sctx))
		var he caddyhttp.HandlerError
		if errors.As(err, &he) {
			code := he.StatusCode
			if code == 0 {
				code = http.StatusInternalServerError
			}
			return &serve.StatusError{Code: code, Msg: he.Error()}
		}
		return err
	}
}

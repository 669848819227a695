package caddymodule

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/rewrite"
)

// The "caddy robots" commands find the robots handlers of a Caddy config with one walk over
// its HTTP routes, in the order caddyhttp runs them: routes in order, the routes of a subroute
// where the subroute stands, the handlers of a route in order. check follows one request
// through the routes of its server; lint, and the pairing of handlers with Caddyfile lines,
// visit every route of a site block.

// route is a route of the JSON config, as caddyhttp.Route reads it.
type route struct {
	Group    string            `json:"group"`
	Match    []json.RawMessage `json:"match"`
	Handle   []json.RawMessage `json:"handle"`
	Terminal bool              `json:"terminal"`
}

// found is one robots handler met in a walk of the routes.
type found struct {
	handler string // "robots_txt" or "robots_tag"
	raw     json.RawMessage
	path    string // JSON path of the handler
	// matchers are the match sets of the routes that lead to the handler, outermost first:
	// those of a route the walk started in (a site block's host matcher) are left out, and
	// each entry is one route's match sets (ORed) as one JSON array.
	matchers []json.RawMessage
	// rewritten says whether a rewrite ran before the handler in the walk: before it in its
	// route, or in an earlier route of the same list, or, through a subroute, in an earlier
	// route of a subroute before it in its route.
	rewritten bool
}

// afterGroupMatcher stands, in found.matchers, for "no earlier route of the handler's group
// matched": the handler's route follows a route of the same group (a handle block before
// it) that has matchers.
var afterGroupMatcher = json.RawMessage(`[{"` + afterGroupKey + `": true}]`)

const afterGroupKey = "(after its group)"

// terminal are the standard handlers that answer without calling the next handler: no
// handler after them in a route, and no later route, sees the request.
var terminal = map[string]bool{
	"static_response": true, "file_server": true, "reverse_proxy": true, "error": true,
	"acme_server": true, "copy_response": true,
}

// handlerOf reads a handler's name.
func handlerOf(raw json.RawMessage) string {
	var h struct {
		Handler string `json:"handler"`
	}
	_ = json.Unmarshal(raw, &h)
	return h.Handler
}

// walk is one walk over routes, collecting the robots handlers met.
//
// With a request (check), the walk follows it as caddyhttp serves it: a route is taken when
// one of its match sets accepts the request (with the URI as rewritten so far), only the
// first such route of a group, a rewrite changes the request for the matchers after it, and
// the walk ends where the request is answered: at a terminal route, at a handler that
// answers, at the robots_txt handler for /robots.txt. A config the walk cannot read is an
// error.
//
// Without one (lint), the walk takes every route of every group, runs no rewrite, and goes to
// the end; it notes what a handler's request depends on instead (found.matchers and
// found.rewritten). A route or subroute that does not decode is skipped (caddy.Validate has
// accepted the config already).
type walk struct {
	ctx caddy.Context
	req *http.Request // the request followed, or nil
	// found are the robots handlers met, in walk order.
	found []found
	// notes say what the walk did to the request (the rewrites that changed it).
	notes []string
}

// newRequest prepares a request for rawURL from agent (a User-Agent header; none for "" and
// "*") at client as a Caddy server would see it. Without a client (the zero Addr) the
// address is httptest's, 192.0.2.1, a documentation address in no one's ranges, for the IP
// matchers; crawlers, when not nil, then gives the request the identity of an unknown
// address (pending for a verifiable crawler), or its signature's, as check reports it.
// header holds the client's other header lines (a signature's).
func newRequest(rawURL, agent string, header http.Header, client netip.Addr, crawlers *Crawlers) *http.Request {
	r := httptest.NewRequest(http.MethodGet, rawURL, nil)
	for k, v := range header {
		r.Header[k] = v
	}
	if agent != "" && agent != "*" {
		r.Header.Set("User-Agent", agent)
	}
	if client.IsValid() {
		r.RemoteAddr = netip.AddrPortFrom(client, 0).String()
	}
	repl := caddy.NewReplacer()
	r = caddyhttp.PrepareRequest(r, repl, httptest.NewRecorder(), &caddyhttp.Server{})
	if !client.IsValid() && crawlers != nil {
		// Found without Caddy's client IP (its variables left out): the address is unknown.
		unknown := r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{}))
		storeIdentity(r, crawlers.find(unknown))
	}
	return r
}

// routes walks the routes raws at path (the list's JSON path, "….routes"), after matchers and
// with rewritten as the walk reached them. It reports whether the request was answered, and
// whether a rewrite ran in the list, as found.rewritten counts it.
func (w *walk) routes(raws []json.RawMessage, path string, matchers []json.RawMessage, rewritten bool) (stop, rewrote bool, err error) {
	groups := map[string]bool{}
	for i, raw := range raws {
		var rt route
		if err := json.Unmarshal(raw, &rt); err != nil {
			if w.req == nil {
				continue
			}
			return false, rewritten, err
		}
		at := fmt.Sprintf("%s[%d]", path, i)
		if w.req != nil {
			if rt.Group != "" && groups[rt.Group] {
				continue
			}
			ok, err := w.matches(rt.Match)
			if err != nil {
				return false, rewritten, fmt.Errorf("%s.match: %w", at, err)
			}
			if !ok {
				continue
			}
			if rt.Group != "" {
				groups[rt.Group] = true
			}
		}
		ms := matchers
		if len(rt.Match) > 0 {
			ms = append(slices.Clip(matchers), joinSets(rt.Match))
		}
		if w.req == nil && rt.Group != "" {
			// Only the first route of a group that matches runs (handle blocks): after a
			// route of the group with matchers, this one sees only the requests that one
			// does not match, which lint notes as a condition (pathsOf).
			if groups[rt.Group] {
				ms = append(slices.Clip(ms), afterGroupMatcher)
			}
			groups[rt.Group] = groups[rt.Group] || len(rt.Match) > 0
		}
		if stop, err := w.route(rt, at, ms, rewritten); stop || err != nil {
			return stop, rewritten, err
		}
		if rt.Terminal && w.req != nil {
			return true, rewritten, nil
		}
		for _, h := range rt.Handle {
			rewritten = rewritten || handlerOf(h) == "rewrite"
		}
	}
	return false, rewritten, nil
}

// route walks the handlers of rt at path (the route's JSON path), after matchers (rt's own
// included, if it is to count) and with rewritten as the walk reached it. It reports whether
// the request was answered.
func (w *walk) route(rt route, path string, matchers []json.RawMessage, rewritten bool) (stop bool, err error) {
	for j, h := range rt.Handle {
		hp := fmt.Sprintf("%s.handle[%d]", path, j)
		switch name := handlerOf(h); name {
		case "subroute":
			var sub struct {
				Routes []json.RawMessage `json:"routes"`
			}
			if err := json.Unmarshal(h, &sub); err != nil {
				if w.req == nil {
					continue
				}
				return false, err
			}
			var stop bool
			if stop, rewritten, err = w.routes(sub.Routes, hp+".routes", matchers, rewritten); stop || err != nil {
				return stop, err
			}
		case "robots_txt", "robots_tag":
			w.found = append(w.found, found{handler: name, raw: h, path: hp, matchers: matchers, rewritten: rewritten})
			if name == "robots_txt" && w.req != nil && w.req.URL.Path == "/robots.txt" {
				return true, nil
			}
		case "rewrite":
			rewritten = true
			if w.req != nil {
				if err := w.rewrite(h, hp); err != nil {
					return false, err
				}
			}
		default:
			if terminal[name] && w.req != nil {
				return true, nil
			}
		}
	}
	return false, nil
}

// rewrite runs the rewrite handler h (at path hp) on the request: later matchers see the
// rewritten URI (handle_path strips its prefix).
func (w *walk) rewrite(h json.RawMessage, hp string) error {
	var rw rewrite.Rewrite
	if err := json.Unmarshal(h, &rw); err != nil {
		return err
	}
	if err := rw.Provision(w.ctx); err != nil {
		return fmt.Errorf("%s: %w", hp, err)
	}
	repl, _ := w.req.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if rw.Rewrite(w.req, repl) {
		w.notes = append(w.notes, fmt.Sprintf("the rewrite at %s changes the request to %s before later handlers", hp, w.req.URL.RequestURI()))
	}
	return nil
}

// matches reports whether one of the match sets accepts the request (no sets: every request).
func (w *walk) matches(sets []json.RawMessage) (bool, error) {
	if len(sets) == 0 {
		return true, nil
	}
	r := caddyhttp.Route{}
	for _, s := range sets {
		var m caddy.ModuleMap
		if err := json.Unmarshal(s, &m); err != nil {
			return false, err
		}
		r.MatcherSetsRaw = append(r.MatcherSetsRaw, m)
	}
	if err := r.ProvisionMatchers(w.ctx); err != nil {
		return false, err
	}
	return r.MatcherSets.AnyMatchWithError(w.req)
}

// joinSets keeps a route's match sets (ORed) as one JSON array.
func joinSets(sets []json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(sets)
	return b
}

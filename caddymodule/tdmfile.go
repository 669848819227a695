package caddymodule

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/routewalk"
	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
)

// robots_txt serves /.well-known/tdmrep.json (TDMRep, report #sec-tdm-file) generated from
// the TDMRep declarations of the robots_tag handlers of its site block, as the net/http
// middleware generates it from its routes. A handler does not see its own route's matcher,
// but the server does: at the first request for the file, robots_txt takes its server from
// the request context, finds the top-level route (the site block) that holds this very
// handler, and collects the robots_tag handlers in it (and in the named routes it invokes,
// and in the top-level routes that run with it in a JSON config) with the path patterns of
// the path matchers on the way to each. A way the file cannot state exactly is given to the serving
// core as a route with a match function, which the core leaves out of the file with a
// warning: the file then says nothing for it, never a permission from silence.

// perServer holds a value built once for one server: a handler belongs to one server (a
// reload provisions new handlers), so one entry is kept, replaced should another server ask.
type perServer[T any] struct {
	mu sync.Mutex // held while building
	v  atomic.Pointer[serverValue[T]]
}

type serverValue[T any] struct {
	srv *caddyhttp.Server
	val T
}

// get is the value for srv, built by build at the first call for srv.
func (c *perServer[T]) get(srv *caddyhttp.Server, build func() T) T {
	if v := c.v.Load(); v != nil && v.srv == srv {
		return v.val
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v := c.v.Load(); v != nil && v.srv == srv {
		return v.val
	}
	v := &serverValue[T]{srv: srv, val: build()}
	c.v.Store(v)
	return v.val
}

// tdmCore is the Core serving srv's site block's TDMRep file, or nil when no robots_tag of
// the site declares tdm.
func (h *RobotsTxt) tdmCore(srv *caddyhttp.Server) *serve.Core {
	return h.tdm.get(srv, func() *serve.Core { return buildTDMCore(h.logger, siteTags(srv, h)) })
}

// tdmCore is the Core of the tdmrep.json served for h's site block on srv, whose rules h's
// tdm-policy and tdm-reservation fields must agree with (TDMRep: a TDM agent reads the
// file's first rule matching the path; route paths match without case and locations with
// it), or nil when no robots_txt of the site serves one. It is found once per server, as
// robots_txt finds the file's routes: the first robots_txt handler of srv whose site block's
// robots_tag handlers (siteTags) include h, whose file Core is then the one it serves.
func (h *RobotsTag) tdmCore(srv *caddyhttp.Server) *serve.Core {
	return h.tdm.get(srv, func() *serve.Core {
		var txts []*RobotsTxt
		all := &routewalk.Walk{Server: srv.Name(), Named: srv.NamedRoutes, Visit: func(f routewalk.Handler) bool {
			if txt, ok := f.Handler.(*RobotsTxt); ok {
				txts = append(txts, txt)
			}
			return false
		}}
		_, _ = all.Routes(srv.Routes, "") // without a request, a walk has no errors
		for _, txt := range txts {
			tags := siteTags(srv, txt)
			if !slices.ContainsFunc(tags, func(t tdmTag) bool { return t.tag == h }) {
				continue
			}
			if c := txt.tdmCore(srv); c != nil {
				return c
			}
			break
		}
		return nil
	})
}

// tdmTag is a robots_tag handler of the site block and the way to it.
type tdmTag struct {
	tag  *RobotsTag
	path string // JSON path of the handler in the config
	way  tdmWay
}

// tdmWay is what a request must pass to reach a handler, as far as a location can say it.
type tdmWay struct {
	patterns []string // the path patterns of the one path matcher on the way, or none
	paths    bool     // a path matcher is on the way
	// unexpressible says why no location states the way ("" when one does).
	unexpressible string
}

// wayOf is the way through the routes of levels; site is the site block's route, whose host
// matcher (its address) tdmrep.json, served on the host, need not state.
func wayOf(levels []routewalk.Level, site *caddyhttp.Route) tdmWay {
	var w tdmWay
	for _, l := range levels {
		if l.AfterGroup && w.unexpressible == "" {
			w = tdmWay{unexpressible: "it follows a route of its handle group that has matchers"}
		}
		sets := l.Route.MatcherSets
		if l.Route == site && hostOnly(sets) {
			sets = nil
		}
		if l.AfterRewrite && len(sets) > 0 && w.unexpressible == "" {
			w = tdmWay{unexpressible: "a matcher on its way runs after a rewrite, so it sees another path than the client's"}
		}
		w = w.with(sets)
	}
	return w
}

// with is w after a route with the match sets sets (ORed).
func (w tdmWay) with(sets caddyhttp.MatcherSets) tdmWay {
	if len(sets) == 0 || w.unexpressible != "" {
		return w
	}
	var patterns []string
	for _, set := range sets {
		if len(set) != 1 {
			return tdmWay{unexpressible: "a route on its way has a matcher other than path"}
		}
		var mp caddyhttp.MatchPath
		switch m := set[0].(type) {
		case caddyhttp.MatchPath:
			mp = m
		case *caddyhttp.MatchPath:
			mp = *m
		default:
			return tdmWay{unexpressible: fmt.Sprintf("a route on its way has a matcher other than path (%s)", routewalk.ModuleName(m))}
		}
		if len(mp) == 0 {
			return tdmWay{unexpressible: "a path matcher on its way has no pattern"}
		}
		for _, p := range mp {
			if strings.Contains(p, "{") {
				return tdmWay{unexpressible: fmt.Sprintf("a path pattern on its way has a placeholder (%q)", p)}
			}
		}
		patterns = append(patterns, mp...)
	}
	if w.paths {
		return tdmWay{unexpressible: "path matchers at two levels are on its way"}
	}
	return tdmWay{patterns: patterns, paths: true}
}

// siteTags are the robots_tag handlers that can run on a request of self's site block: those
// of the top-level route of srv that holds self (the site block), and of the top-level routes
// that can run with it on one request (JSON configs: a route before it that is not terminal,
// a route after it when no route from it on is terminal; a Caddyfile's site blocks are
// terminal), and of the named routes they invoke. None when no top-level route holds self
// (it sits in handle_errors).
func siteTags(srv *caddyhttp.Server, self *RobotsTxt) []tdmTag {
	site := -1
	for i := range srv.Routes {
		found := false
		probe := &routewalk.Walk{Server: srv.Name(), Named: srv.NamedRoutes, Visit: func(f routewalk.Handler) bool {
			found = found || f.Handler == self
			return found
		}}
		if _, _ = probe.Route(&srv.Routes[i], ""); found {
			site = i
			break
		}
	}
	if site < 0 {
		return nil
	}
	top := map[*caddyhttp.Route]int{}
	for i := range srv.Routes {
		top[&srv.Routes[i]] = i
	}
	var tags []tdmTag
	w := &routewalk.Walk{
		Server: srv.Name(), Named: srv.NamedRoutes,
		Skip: func(rt *caddyhttp.Route) bool {
			i, ok := top[rt]
			return ok && !coRuns(srv.Routes, site, i)
		},
		Visit: func(f routewalk.Handler) bool {
			if t, ok := f.Handler.(*RobotsTag); ok {
				tags = append(tags, tdmTag{tag: t, path: f.Path, way: wayOf(f.Way, &srv.Routes[site])})
			}
			return false
		},
	}
	_, _ = w.Routes(srv.Routes, fmt.Sprintf("apps.http.servers.%s.routes", srv.Name()))
	return tags
}

// coRuns reports whether route i of the top-level routes rs can run on a request that the
// route site runs on.
func coRuns(rs caddyhttp.RouteList, site, i int) bool {
	if i < site {
		return !rs[i].Terminal
	}
	for _, rt := range rs[site:i] {
		if rt.Terminal {
			return false
		}
	}
	return true
}

// hostOnly reports whether every match set is one host matcher, a site block's address,
// which tdmrep.json (served on the host) need not state.
func hostOnly(sets caddyhttp.MatcherSets) bool {
	for _, set := range sets {
		if len(set) != 1 {
			return false
		}
		switch set[0].(type) {
		case caddyhttp.MatchHost, *caddyhttp.MatchHost:
		default:
			return false
		}
	}
	return true
}

// buildTDMCore builds the Core serving the TDMRep file of tags, or returns nil when none
// declares tdm, and logs once, at warn level, each route the file leaves out (field path:
// the handler's JSON path in the config).
func buildTDMCore(l *zap.Logger, tags []tdmTag) *serve.Core {
	var cfg policy.Config
	var at []tdmTag
	for _, t := range tags {
		if t.tag.tags.TDM == nil {
			continue
		}
		// Only what the file is made of: the declaration, and content_usage for derive (the
		// handler's own Core has checked both, and logged its rules' warnings).
		r := policy.Route{Tags: policy.Tags{TDM: t.tag.tags.TDM, ContentUsage: t.tag.tags.ContentUsage}}
		if t.way.unexpressible != "" {
			r.Match = func(*http.Request) bool { return false }
		} else {
			r.Paths = t.way.patterns
		}
		cfg.RobotsTag = append(cfg.RobotsTag, r)
		at = append(at, t)
	}
	if len(cfg.RobotsTag) == 0 {
		return nil
	}
	core, err := serve.New(cfg, serve.Options{TDMRepFile: true})
	if err != nil {
		// Each declaration was valid in its own handler: not expected; the file is not served.
		l.Error("tdmrep.json not generated", zap.Error(err))
		return nil
	}
	for _, warning := range core.Warnings() {
		w := *warning
		w.Path = ""
		var fields []zap.Field
		for i, t := range at {
			if warning.Path == configerr.Index("robots_tag", i) {
				w.Path = t.path
				fields = append(fields, zap.String("path", t.path), zap.Strings("paths", t.way.patterns))
				if t.way.unexpressible != "" {
					fields = append(fields, zap.String("because", t.way.unexpressible))
				}
			}
		}
		l.Warn("config: "+w.Error(), fields...)
	}
	return core
}

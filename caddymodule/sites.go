package caddymodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/sitepolicy/caddy-robots/policycheck"
)

// A loaded config becomes the policycheck.Site of each question: for check, what the request
// for one URL meets (a walk that follows the request); for lint, everything of each site block
// (a walk over all its routes).

// where is the part of the config that takes a URL.
type where struct {
	server   string
	handlers []string
	notes    []string
}

// follow walks the routes of the server as the request for rawURL from the agent at client
// (the zero Addr: unknown) runs through them.
func (lc *loadedConfig) follow(server, rawURL, agent string, header http.Header, client netip.Addr) (*walk, error) {
	w := &walk{ctx: lc.ctx, req: newRequest(rawURL, agent, header, client, lc.crawlers)}
	routes := lc.raw.Apps.HTTP.Servers[server].Routes
	_, _, err := w.routes(routes, "apps.http.servers."+server+".routes", nil, false)
	return w, err
}

// inSite walks every route of a site block.
func (lc *loadedConfig) inSite(top topRoute) []found {
	w := &walk{ctx: lc.ctx}
	_, _ = w.route(top.route, top.path, nil, false) // without a request, a walk has no errors
	return w.found
}

// siteFor returns the Site that the request for req.URL meets: the robots.txt served at its
// origin, the robots_tag handlers its request (from req.Agent at req.ClientIP) passes
// through, and the config's crawler verification, started (startCrawlers).
func (lc *loadedConfig) siteFor(req policycheck.Request) (*policycheck.Site, *where, error) {
	rawURL := req.URL
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("--url %q: give an absolute http or https URL, e.g. https://example.com/page.html", rawURL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, _ := strconv.ParseUint(port, 10, 16)
	var name string
	for _, n := range lc.serverNames() {
		for _, l := range lc.raw.Apps.HTTP.Servers[n].Listen {
			addr, err := caddy.ParseNetworkAddress(l)
			if err == nil && uint(p) >= addr.StartPort && uint(p) <= addr.EndPort && name == "" {
				name = n
			}
		}
	}
	if name == "" {
		msg := fmt.Sprintf("no server of the config listens on port %s", port)
		if port == "80" {
			msg += " (Caddy's automatic HTTPS redirects http:// to https://: check the https:// URL)"
		}
		return nil, nil, errors.New(msg)
	}

	// A bad address is Check's error to report; the walk goes on without one.
	client, _ := req.ClientAddr()
	svc, sigs, err := lc.startCrawlers()
	if err != nil {
		return nil, nil, err
	}
	if svc != nil {
		// The walk's crawler matchers ask as a request does (Identify); asked first as Check
		// asks (waiting for reverse DNS), they answer what Check reports.
		svc.IdentifyWait(req.Agent, client)
	}
	header := headerOf(req.Headers)
	forURL, err := lc.follow(name, rawURL, req.Agent, header, client)
	if err != nil {
		return nil, nil, err
	}
	forRobots, err := lc.follow(name, u.Scheme+"://"+u.Host+"/robots.txt", req.Agent, header, client)
	if err != nil {
		return nil, nil, err
	}
	w := &where{server: name, notes: forURL.notes}
	site := &policycheck.Site{Name: name, Hosts: []string{u.Hostname()}, Crawlers: svc, Signatures: sigs}
	// The robots.txt is the one the robots_txt handler that ends the /robots.txt walk serves.
	robotsPath := ""
	for _, f := range forRobots.found {
		if f.handler != "robots_txt" {
			continue
		}
		robotsPath = f.path
		var h RobotsTxt
		if err := json.Unmarshal(f.raw, &h); err != nil {
			return nil, nil, err
		}
		site.RobotsTxt = &policycheck.RobotsTxt{Config: h.RobotsTxt, Source: lc.source(f.path)}
	}
	enforcing := false
	for _, f := range forURL.found {
		src := lc.source(f.path)
		w.handlers = append(w.handlers, f.handler+" at "+src.At("").String())
		switch f.handler {
		case "robots_txt":
			// Enforcement runs in the handler that serves the site's robots.txt, for the
			// requests that pass through it.
			enforcing = enforcing || f.path == robotsPath
		case "robots_tag":
			var h RobotsTag
			if err := json.Unmarshal(f.raw, &h); err != nil {
				return nil, nil, err
			}
			site.Routes = append(site.Routes, policycheck.Route{Tags: h.Tags, Source: src})
		}
	}
	if site.RobotsTxt != nil && !enforcing && site.RobotsTxt.Config.Enforce != nil {
		// The request for the URL does not pass the enforcing handler.
		c := *site.RobotsTxt
		c.Config.Enforce = nil
		site.RobotsTxt = &c
	}
	if len(w.handlers) == 0 {
		w.handlers = []string{"no robots handler"}
	}
	return site, w, nil
}

// sites returns a Site per site block (top-level route) of each server, with every robots
// handler in it: the first robots_txt, and the robots_tag handlers with the paths of their
// routes' path matchers.
func (lc *loadedConfig) sites() []*policycheck.Site {
	var out []*policycheck.Site
	for top := range lc.topRoutes() {
		hosts := top.hosts()
		fs := lc.inSite(top)
		if len(fs) == 0 {
			continue
		}
		site := &policycheck.Site{Name: top.server, Hosts: hosts}
		if len(hosts) > 0 {
			site.Name = strings.Join(hosts, ", ")
		}
		for _, f := range fs {
			src := lc.source(f.path)
			switch f.handler {
			case "robots_txt":
				var h RobotsTxt
				if json.Unmarshal(f.raw, &h) == nil && site.RobotsTxt == nil {
					site.RobotsTxt = &policycheck.RobotsTxt{Config: h.RobotsTxt, Source: src}
				}
			case "robots_tag":
				var h RobotsTag
				if json.Unmarshal(f.raw, &h) != nil {
					continue
				}
				r := policycheck.Route{Tags: h.Tags, Source: src}
				r.Paths, r.Condition = pathsOf(f.matchers)
				if f.rewritten {
					r.Condition = strings.TrimPrefix(r.Condition+"; a rewrite before it", "; ")
				}
				site.Routes = append(site.Routes, r)
			}
		}
		out = append(out, site)
	}
	return out
}

// pathsOf reads the path patterns of the matchers that lead to a handler: the paths of the
// first level whose match sets all have a path matcher bound the paths the handler sees; any
// other matcher, or a further level of paths, makes the route conditional.
func pathsOf(levels []json.RawMessage) (paths []string, condition string) {
	var conds []string
	for _, lvl := range levels {
		var sets []map[string]json.RawMessage
		if json.Unmarshal(lvl, &sets) != nil {
			return nil, "a matcher"
		}
		var ps []string
		all := true
		for _, s := range sets {
			for _, k := range slices.Sorted(maps.Keys(s)) {
				if k == afterGroupKey {
					conds = append(conds, "only where no route of its group before it matches (an earlier handle block)")
					continue
				}
				if k != "path" {
					conds = append(conds, "matcher "+k+" "+string(s[k]))
					continue
				}
				var p []string
				_ = json.Unmarshal(s[k], &p)
				ps = append(ps, p...)
			}
			_, has := s["path"]
			all = all && has
		}
		switch {
		case all && paths == nil:
			paths = ps
		case all:
			conds = append(conds, "nested path matchers")
		}
	}
	return paths, strings.Join(conds, "; ")
}

// hosts are the host names of the route's host matchers: the names a site block serves.
func (top topRoute) hosts() []string {
	var hosts []string
	for _, m := range top.route.Match {
		var hm struct {
			Host []string `json:"host"`
		}
		if json.Unmarshal(m, &hm) == nil {
			hosts = append(hosts, hm.Host...)
		}
	}
	return hosts
}

// servedHosts are the host names the server serves host's site under (a report's title):
// those of its first site block whose host matcher names host, else host alone. (Another
// server may serve the same name on another port, with other names.)
func (lc *loadedConfig) servedHosts(server, host string) []string {
	for top := range lc.topRoutes() {
		if top.server != server {
			continue
		}
		hosts := top.hosts()
		if slices.ContainsFunc(hosts, func(h string) bool { return strings.EqualFold(h, host) }) {
			return hosts
		}
	}
	return []string{host}
}

package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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

// Where is the part of the config that takes a URL.
type Where struct {
	Server   string   // the server's name
	Handlers []string // the robots handlers the request passes through, with their places
	Notes    []string // what the walk did to the request
}

// SiteFor returns the Site that the request for req.URL meets: the robots.txt served at its
// origin, the robots_tag handlers its request (from req.Agent at req.ClientIP) passes
// through, and the config's crawler verification, started (startCrawlers).
func (c *Config) SiteFor(req policycheck.Request) (*policycheck.Site, *Where, error) {
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("--url %q: give an absolute http or https URL, e.g. https://example.com/page.html", req.URL)
	}
	name, err := c.serverFor(u)
	if err != nil {
		return nil, nil, err
	}
	// A bad address is Check's error to report; the walk goes on without one.
	client, _ := req.ClientAddr()
	svc, sigs, err := c.startCrawlers()
	if err != nil {
		return nil, nil, err
	}
	if svc != nil {
		// The walk's crawler matchers ask as a request does (Identify); asked first as Check
		// asks (waiting for reverse DNS), they answer what Check reports.
		svc.IdentifyWait(req.Agent, client)
	}
	header := headerOf(req.Headers)
	forURL, notes, err := c.Follow(name, req.URL, req.Agent, header, client)
	if err != nil {
		return nil, nil, err
	}
	forRobots, _, err := c.Follow(name, u.Scheme+"://"+u.Host+"/robots.txt", req.Agent, header, client)
	if err != nil {
		return nil, nil, err
	}
	site := &policycheck.Site{Name: name, Hosts: []string{u.Hostname()}, Crawlers: svc, Signatures: sigs}
	w := &Where{Server: name, Notes: notes}
	c.addHandlers(site, w, forRobots, forURL)
	return site, w, nil
}

// serverFor is the name of the server that listens on u's port.
func (c *Config) serverFor(u *url.URL) (string, error) {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, _ := strconv.ParseUint(port, 10, 16)
	for _, n := range c.serverNames() {
		for _, l := range c.servers[n].Listen {
			addr, err := caddy.ParseNetworkAddress(l)
			if err == nil && uint(p) >= addr.StartPort && uint(p) <= addr.EndPort {
				return n, nil
			}
		}
	}
	msg := fmt.Sprintf("no server of the config listens on port %s", port)
	if port == "80" {
		msg += " (Caddy's automatic HTTPS redirects http:// to https://: check the https:// URL)"
	}
	return "", errors.New(msg)
}

// addHandlers gives site the robots.txt that the robots_txt handler ending the walk for
// /robots.txt serves (forRobots), and the robots_tag handlers that the URL's request passes
// (forURL), which w lists.
func (c *Config) addHandlers(site *policycheck.Site, w *Where, forRobots, forURL []Found) {
	robotsPath := ""
	for _, f := range forRobots {
		if f.robotsTxt != nil {
			robotsPath = f.Path
			site.RobotsTxt = &policycheck.RobotsTxt{Config: *f.robotsTxt, Source: c.source(f.Path)}
		}
	}
	enforcing := false
	for _, f := range forURL {
		src := c.source(f.Path)
		w.Handlers = append(w.Handlers, f.Handler+" at "+src.At("").String())
		switch {
		case f.robotsTxt != nil:
			// Enforcement runs in the handler that serves the site's robots.txt, for the
			// requests that pass through it.
			enforcing = enforcing || f.Path == robotsPath
		case f.tags != nil:
			site.Routes = append(site.Routes, policycheck.Route{Tags: *f.tags, Source: src})
		}
	}
	if site.RobotsTxt != nil && !enforcing && site.RobotsTxt.Config.Enforce != nil {
		// The request for the URL does not pass the enforcing handler.
		rt := *site.RobotsTxt
		rt.Config.Enforce = nil
		site.RobotsTxt = &rt
	}
	if len(w.Handlers) == 0 {
		w.Handlers = []string{"no robots handler"}
	}
}

// Sites returns a Site per site block (top-level route) of each server, with every robots
// handler in it: the first robots_txt, and the robots_tag handlers with the paths of their
// routes' path matchers.
func (c *Config) Sites() []*policycheck.Site {
	var out []*policycheck.Site
	for top := range c.topRoutes() {
		hosts := c.hosts(top)
		fs := c.inSite(top)
		if len(fs) == 0 {
			continue
		}
		site := &policycheck.Site{Name: top.server, Hosts: hosts}
		if len(hosts) > 0 {
			site.Name = strings.Join(hosts, ", ")
		}
		for _, f := range fs {
			src := c.source(f.Path)
			switch {
			case f.robotsTxt != nil:
				if site.RobotsTxt == nil {
					site.RobotsTxt = &policycheck.RobotsTxt{Config: *f.robotsTxt, Source: src}
				}
			case f.tags != nil:
				r := policycheck.Route{Tags: *f.tags, Source: src}
				r.Paths, r.Condition = pathsOf(f.Matchers)
				if f.Rewritten {
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

// hosts are the host names of the host matchers of a top-level route, as the config writes
// them: the names a site block serves.
func (c *Config) hosts(top topRoute) []string {
	var sets []struct {
		Host []string `json:"host"`
	}
	_ = json.Unmarshal(c.rawAt(top.path+".match"), &sets)
	var hosts []string
	for _, s := range sets {
		hosts = append(hosts, s.Host...)
	}
	return hosts
}

// servedHosts are the host names the server serves host's site under (a report's title):
// those of its first site block whose host matcher names host, else host alone. (Another
// server may serve the same name on another port, with other names.)
func (c *Config) servedHosts(server, host string) []string {
	for top := range c.topRoutes() {
		if top.server != server {
			continue
		}
		hosts := c.hosts(top)
		if slices.ContainsFunc(hosts, func(h string) bool { return strings.EqualFold(h, host) }) {
			return hosts
		}
	}
	return []string{host}
}

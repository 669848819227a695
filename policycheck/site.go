// Package policycheck answers two questions about a caddy-robots configuration before it is
// deployed, offline:
//
//   - Check: what exactly will crawler X see at URL Y? The robots.txt decision (the group
//     chosen and why, the rule that decided and its line in the file), and the Robots-Tag
//     field, X-Robots-Tag lines and <meta> elements the config adds to the response; with the
//     server's crawler verification (Site.Crawlers) and the client's address, who the request
//     is and whether enforce refuses it as an impostor; with its Web Bot Auth verifier
//     (Site.Signatures) and the request's header lines, what its signature proves and why.
//   - Lint: which parts of the policy defeat themselves? (noindex on a page robots.txt keeps
//     the crawler away from, rules that can never decide, misspelt crawler names, ...)
//
// Both work on a Site, a front-end-neutral model: the Caddy module's "caddy robots"
// subcommands build one from a Caddy config (Caddyfile or JSON, loaded as "caddy run" loads
// it), FromConfig builds one from a policy.Config (the net/http middleware's), and the command
// github.com/sitepolicy/caddy-robots/cmd/robots runs both on the nethttp JSON. The package
// does not import Caddy. What the two commands share besides (exit statuses, --format, the
// JSON error report) is package policycheck/cli.
//
// Check and Lint use the serving core itself: the robots.txt is the file the responder
// renders, read back with robotsgen.Parse and decided with robotsgen.Matcher, and the
// response headers and meta elements are produced by the same code that tags responses.
package policycheck

import (
	"fmt"
	"net/http"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// Site is what one site serves: at most one robots.txt and the robots_tag routes, in the order
// they run.
type Site struct {
	// Name says which site this is in messages, e.g. "localhost:8080"; optional.
	Name string
	// Hosts are the host names the site answers to ("example.com", "www.example.com");
	// empty when unknown. Lints about sitemap hosts need them.
	Hosts []string
	// RobotsTxt is the site's robots.txt; nil if the config serves none.
	RobotsTxt *RobotsTxt
	// Routes are the robots_tag routes of the site.
	Routes []Route
	// Crawlers is the crawler verification the site's server runs, started (its lists read);
	// nil when it verifies no crawlers. With it, Check reports the request's identity and the
	// state of the lists, and enforcement answers impostors as the server does. Check fetches
	// nothing itself: give a Service whose lists are ReadOnly so that it does not either.
	Crawlers *identity.Service
	// Signatures is the Web Bot Auth verification the site's server runs; nil when it
	// verifies no signatures. With it, Check judges the signature of the request's header
	// lines (Request.Headers) and reports what it makes of the identity. Check fetches
	// nothing itself: give a verifier that fetches no key directory (webbotauth.Options
	// Offline).
	Signatures *webbotauth.Verifier
}

// RobotsTxt is a robots.txt config and where it came from.
type RobotsTxt struct {
	Config policy.RobotsTxt
	Source Source
}

// File returns the robots.txt file the config describes.
func (r *RobotsTxt) File() robotsgen.File { return r.Config.File() }

// Route is one robots_tag route: its tags and the requests it applies to.
type Route struct {
	// Paths are path patterns with the semantics of Caddy's path matcher (see policy.Route);
	// empty means every path.
	Paths []string
	// Match, if set, must also accept the request for Check to apply the route.
	Match func(*http.Request) bool
	// Condition, when not empty, says in words what else than Paths the route depends on
	// (a host, a header, a nested matcher, a rewrite before it, ...). Lint compares routes
	// with one only with care: it never calls such a route broader than another, and it
	// reads its paths as an upper bound.
	Condition string
	// Tags are the route's rules and output options.
	Tags policy.Tags
	// Source is where the route's robots_tag came from.
	Source Source
}

// Source says where a handler's config came from, so that findings can name a line (from a
// Caddyfile) or a JSON path.
type Source struct {
	// JSONPath is the handler's place in the JSON config, e.g. "robots_tag[1]" or
	// "apps.http.servers.srv0.routes[0].handle[0].routes[2].handle[0]".
	JSONPath string `json:"json_path,omitempty"`
	// File and Line are the directive's place in a Caddyfile, when known.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Lines maps field paths of the handler's config ("groups[0].rules[1]", `rules["*"]`)
	// to the Caddyfile lines that set them.
	Lines map[string]int `json:"-"`
}

// Location is a place in the config.
type Location struct {
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	JSONPath string `json:"json_path,omitempty"`
}

// String is "File:Line" when the line is known, else the JSON path.
func (l Location) String() string {
	switch {
	case l.Line > 0 && l.File != "":
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	case l.Line > 0:
		return fmt.Sprintf("line %d", l.Line)
	case l.JSONPath != "":
		return l.JSONPath
	}
	return "config"
}

// At returns the location of the field at path in the handler: the line of the nearest
// field the Caddyfile set (the field itself or a parent), else the directive's line; the
// JSON path is always the full path.
func (s Source) At(field string) Location {
	loc := Location{File: s.File, Line: s.Line, JSONPath: configerr.JoinPath(s.JSONPath, field)}
	for p := field; p != ""; p = configerr.ParentPath(p) {
		if l, ok := s.Lines[p]; ok {
			loc.Line = l
			break
		}
	}
	return loc
}

// FromConfig returns the Site of a whole config (the net/http middleware's); JSON paths are
// those of its JSON ("robots_txt.groups[0]", "robots_tag[1]"). hosts are the site's host
// names, if known.
func FromConfig(cfg policy.Config, hosts ...string) *Site {
	s := &Site{Hosts: hosts}
	if cfg.RobotsTxt != nil {
		s.RobotsTxt = &RobotsTxt{Config: *cfg.RobotsTxt, Source: Source{JSONPath: "robots_txt"}}
	}
	for i, r := range cfg.RobotsTag {
		rt := Route{Paths: r.Paths, Match: r.Match, Tags: r.Tags, Source: Source{JSONPath: configerr.Index("robots_tag", i)}}
		if r.Match != nil {
			rt.Condition = "a Match function"
		}
		s.Routes = append(s.Routes, rt)
	}
	return s
}

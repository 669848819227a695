package policycheck

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
)

// The package answers with the serving core, built by serve.New as every front end builds it:
// the robots.txt served and the headers and meta elements of a tagged response are what a
// request gets.

// newCore builds the core of robots (may be nil) and routes (all of the site's, or none),
// with config errors named by the handlers' own JSON paths; identify, if not nil, is the
// crawler identity enforcement reads (serve.Options.Identify).
func newCore(robots *RobotsTxt, routes []Route, identify func(*http.Request) identity.Identity) (*serve.Core, error) {
	var cfg policy.Config
	if robots != nil {
		c := robots.Config
		cfg.RobotsTxt = &c
	}
	for _, r := range routes {
		cfg.RobotsTag = append(cfg.RobotsTag, policy.Route{Paths: r.Paths, Match: r.Match, Tags: r.Tags})
	}
	if identify == nil && cfg.RobotsTxt != nil && cfg.RobotsTxt.Pay != nil {
		// Pay needs the front end's crawler verification, which a check without one stands
		// in for: nothing is verified, so nothing is asked to pay.
		identify = func(*http.Request) identity.Identity { return identity.Identity{} }
	}
	core, err := serve.New(cfg, serve.Options{Identify: identify})
	if err == nil {
		return core, nil
	}
	if robots != nil {
		err = configerr.Reroot(err, "robots_txt", robots.Source.JSONPath)
	}
	for i := range routes {
		err = configerr.Reroot(err, configerr.Index("robots_tag", i), routes[i].Source.JSONPath)
	}
	return nil, err
}

// offline is r's config as check can serve it: the backend's robots.txt (merge_upstream) is
// not seen.
func offline(r *RobotsTxt) *RobotsTxt {
	c := *r
	c.Config.MergeUpstream, c.Config.MergeUpstreamTimeout = false, 0
	return &c
}

// robotsBody returns the robots.txt that r serves at origin ("https://example.com"), without
// the backend's file (merge_upstream).
func robotsBody(r *RobotsTxt, origin string) ([]byte, error) {
	core, err := checkCore(&Site{RobotsTxt: r}, nil)
	if err != nil {
		return nil, err
	}
	defer core.Close()
	return servedBody(core, r, origin)
}

// checkCore is the core a check of site asks: its robots.txt as check can serve it (without
// the backend's file, with enforce, answering impostors by identify) and its routes, once the
// robots.txt config is checked as a front end checks it (merge_upstream included). A site
// with neither has no core: nil.
func checkCore(site *Site, identify func(*http.Request) identity.Identity) (*serve.Core, error) {
	if site.RobotsTxt == nil && len(site.Routes) == 0 {
		return nil, nil
	}
	var robots *RobotsTxt
	if r := site.RobotsTxt; r != nil {
		if err := validRobotsTxt(r); err != nil {
			return nil, err
		}
		robots = offline(r)
	}
	return newCore(robots, site.Routes, identify)
}

// servedBody returns the robots.txt core serves at origin for r.
func servedBody(core *serve.Core, r *RobotsTxt, origin string) ([]byte, error) {
	rec := httptest.NewRecorder()
	err := core.ServeRobotsTxt(rec, httptest.NewRequest(http.MethodGet, origin+policy.RobotsTxtPath, nil), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: robots.txt answered: %w", r.Source.At(""), err)
	}
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("%s: robots.txt answered %d: %s", r.Source.At(""), rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	return rec.Body.Bytes(), nil
}

// validRobotsTxt checks a robots.txt config as a front end does, merge_upstream included.
func validRobotsTxt(r *RobotsTxt) error {
	core, err := newCore(r, nil, nil)
	if core != nil {
		core.Close()
	}
	return err
}

// validRoute checks a route as a front end does.
func validRoute(rt *Route) error {
	_, err := newCore(nil, []Route{*rt}, nil)
	return err
}

// validate runs the checks every front end runs on the site's config.
func validate(site *Site) error {
	var errs []error
	if r := site.RobotsTxt; r != nil {
		errs = append(errs, validRobotsTxt(r))
	}
	for i := range site.Routes {
		errs = append(errs, validRoute(&site.Routes[i]))
	}
	return errors.Join(errs...)
}

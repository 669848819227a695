package policycheck

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
)

// The package answers with the serving core, built by serve.New as every front end builds it:
// the robots.txt served and the headers and meta elements of a tagged response are what a
// request gets.

// newCore builds the core of robots (may be nil) and routes (all of the site's, or none),
// with config errors named by the handlers' own JSON paths.
func newCore(robots *RobotsTxt, routes []Route) (*serve.Core, error) {
	var cfg policy.Config
	if robots != nil {
		c := robots.Config
		cfg.RobotsTxt = &c
	}
	for _, r := range routes {
		cfg.RobotsTag = append(cfg.RobotsTag, policy.Route{Paths: r.Paths, Match: r.Match, Tags: r.Tags})
	}
	core, err := serve.New(cfg, serve.Options{})
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
// not seen, and with enforce only when keepEnforce.
func offline(r *RobotsTxt, keepEnforce bool) *RobotsTxt {
	c := *r
	c.Config.MergeUpstream, c.Config.MergeUpstreamTimeout = false, 0
	if !keepEnforce {
		c.Config.Enforce = nil
	}
	return &c
}

// robotsBody returns the robots.txt that r serves at origin ("https://example.com"), without
// the backend's file (merge_upstream).
func robotsBody(r *RobotsTxt, origin string) ([]byte, error) {
	if err := validRobotsTxt(r); err != nil {
		return nil, err
	}
	core, err := newCore(offline(r, false), nil)
	if err != nil {
		return nil, err
	}
	defer core.Close()
	rec := httptest.NewRecorder()
	err = core.ServeRobotsTxt(rec, httptest.NewRequest(http.MethodGet, origin+policy.RobotsTxtPath, nil), nil)
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
	core, err := newCore(r, nil)
	if core != nil {
		core.Close()
	}
	return err
}

// validRoute checks a route as a front end does.
func validRoute(rt *Route) error {
	_, err := newCore(nil, []Route{*rt})
	return err
}

// enforcement is the core that enforces r as served: the declared file merged with
// merge_file (merge_upstream's backend file is not seen offline).
func enforcement(r *RobotsTxt) (*serve.Core, error) {
	if err := validRobotsTxt(r); err != nil {
		return nil, err
	}
	return newCore(offline(r, true), nil)
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

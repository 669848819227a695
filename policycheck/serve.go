package policycheck

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/serve"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// The package answers with the serving core as the net/http middleware runs it: the robots.txt
// served and the headers and meta elements of a tagged response are what a request gets.

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// robotsBody returns the robots.txt that r serves at origin ("https://example.com").
func robotsBody(r *RobotsTxt, origin string) ([]byte, error) {
	cfg := r.Config
	mw, err := nethttp.New(nethttp.Config{RobotsTxt: &cfg}, nethttp.Options{Logger: discard})
	if err != nil {
		return nil, reroot(err, "robots_txt", r.Source.JSONPath)
	}
	rec := httptest.NewRecorder()
	mw.Handler(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, origin+"/robots.txt", nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("%s: robots.txt answered %d: %s", r.Source.At(""), rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	return rec.Body.Bytes(), nil
}

// validRoute checks a route as the middleware does.
func validRoute(rt *Route) error {
	_, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{{Paths: rt.Paths, TagConfig: rt.Tags}}}, nethttp.Options{Logger: discard})
	return reroot(err, "robots_tag[0]", rt.Source.JSONPath)
}

// reroot moves the config errors in err from under prefix to under to.
func reroot(err error, prefix, to string) error {
	all := configerr.All(err)
	if len(all) == 0 {
		return err
	}
	errs := make([]error, 0, len(all))
	for _, e := range all {
		c := *e
		if rest, ok := strings.CutPrefix(c.Path, prefix); ok {
			c.Path = configerr.JoinPath(to, strings.TrimPrefix(rest, "."))
		}
		errs = append(errs, &c)
	}
	return errors.Join(errs...)
}

// newEnforcer is the enforcement of r as the middleware builds it: of the file served, merged
// with merge_file (merge_upstream's backend file is not seen offline).
func newEnforcer(r *RobotsTxt) (*serve.Enforcer, error) {
	c := &r.Config
	opts := serve.MergeOptions{File: c.MergeFile}
	rt, _, err := serve.NewMergingRobotsTxt(r.File(), time.Duration(c.MaxAge), opts, serve.Log{}, nil)
	if err != nil {
		return nil, reroot(err, "", r.Source.JSONPath)
	}
	e, err := serve.NewEnforcer(rt, nil, c.Enforce.Status)
	return e, reroot(err, "", r.Source.JSONPath)
}

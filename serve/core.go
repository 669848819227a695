// Package serve is the serving core of caddy-robots, the per-request work every front end
// shares: New builds a Core from a policy.Config, checking it whole (every problem named by
// its field path), and the Core answers /robots.txt (merged with the site's own file when
// the config says so), refuses the requests enforcement refuses, and sets robots tags,
// Content-Usage and <meta> elements on the responses of the handler it wraps.
//
// Front ends stay thin: package nethttp wraps an http.Handler with one Core; the Caddy module
// builds one Core per handler, each from the part of the config that handler's JSON holds.
// Everything a response can carry is computed when the Core is built; a request costs a path
// comparison or two and, on tagged responses, a pooled response wrapper.
package serve

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// Options are the parts of a Core that are not config.
type Options struct {
	// Log is told about requests: why a response was left unchanged (debug), what an operator
	// must fix (warn, once per route and kind).
	Log Log
	// Warn is told, at any time, what happens to merge_file: the lines of the other file that
	// were skipped or changed, the combinations the merge could not encode exactly, and a
	// changed file that could not be merged (the last good merge stays). Nil drops them.
	Warn func(msg string)
	// Identify is the crawler identity of a request (identity.Verifier.Identify with the
	// client address the front end trusts), read by enforcement when it answers impostors
	// (policy.Enforce.Impostors). Nil means identities are not known here, and no request is
	// refused as an impostor.
	Identify func(*http.Request) identity.Identity
	// Counters, if set, counts the requests of crawlers (the crawler of the bot catalogue
	// their User-Agent names, or a name of the served robots.txt), by identity status
	// (Identify's; metrics.Unchecked without it) and outcome, and their requests for
	// robots.txt. Counting needs robots_txt: without it nothing is counted.
	Counters *metrics.Counters
	// Violations, if set, is told of requests from crawlers for paths the served robots.txt
	// disallows for them, which are served (not refused by enforcement): at most
	// ViolationBurst per crawler per ViolationInterval.
	Violations func(*http.Request, Violation)

	// Now, if set, is the clock that crawl-delay and the limits of the violation and refusal
	// logs measure time with (only the time between its readings counts); nil is the
	// monotonic clock. For tests.
	Now func() time.Time
	// TDMRepFile serves /.well-known/tdmrep.json, generated from the routes' TDMRep
	// declarations, when some route has one (IsTDMRep, ServeTDMRep); a route that no location
	// can express is a warning. A front end sets it when the Core holds every route of the
	// site with its paths: nethttp's does; in Caddy, robots_txt builds such a Core from the
	// robots_tag handlers of its site block (a route whose way no path states has a Match).
	TDMRepFile bool
}

// Core serves one config. It is safe for concurrent use. Close it when it is replaced, to
// stop merge_upstream's timers.
type Core struct {
	robots   *robotsTxt
	merge    *upstream
	enforce  *enforcer
	routes   []route
	index    *routeIndex  // with indexMinRoutes routes or more
	paths    bool         // some route has path patterns
	docs     []licenseDoc // RSL license documents served beside robots.txt
	tdmFile  *tdmFile     // with Options.TDMRepFile and a route declaring TDMRep
	tdmRules *TDMRepRules // tdmFile's rules as an agent reads them; nil without it
	warnings []*configerr.Error
}

type route struct {
	patterns []pathPattern
	match    func(*http.Request) bool
	tagger   *tagger
}

// New checks cfg and builds its Core. The error joins a *configerr.Error for every problem,
// each with the field path in the JSON form of cfg ("robots_txt.groups[0].rules[1].path",
// `robots_tag[2].rules["*"][0]`). What is valid but may not work as meant is in Warnings.
func New(cfg policy.Config, opts Options) (*Core, error) {
	c := &Core{}
	var errs []error
	if rc := cfg.RobotsTxt; rc != nil {
		file := rc.File()
		docs, derr := newLicenseDocs(rc.LicenseDocuments)
		errs = append(errs, configerr.Prefix("robots_txt", derr))
		c.docs = docs
		file.Licenses = withDocumentLicenses(file.Licenses, docs)
		rt, up, err := newMergingRobotsTxt(file, time.Duration(rc.MaxAge), rc.Merge, opts.Log, opts.Warn)
		c.robots, c.merge = rt, up
		if err != nil {
			errs = append(errs, configerr.Prefix("robots_txt", err))
		} else if rc.Enforce != nil || opts.Counters != nil || opts.Violations != nil {
			c.enforce, err = newEnforcer(rt, up, rc.Enforce, opts)
			errs = append(errs, configerr.Prefix("robots_txt", err))
		}
		c.warnings = append(c.warnings, configerr.PrefixAll("robots_txt", file.Warnings())...)
	}
	for i, r := range cfg.RobotsTag {
		at := configerr.Index("robots_tag", i)
		cr := route{match: r.Match}
		for j, p := range r.Paths {
			pp, err := compilePathPattern(p)
			if err != nil {
				errs = append(errs, configerr.New(configerr.Index(at+".paths", j), p, err.Error()))
				continue
			}
			cr.patterns = append(cr.patterns, pp)
		}
		c.paths = c.paths || len(cr.patterns) > 0
		t, err := newTagger(r.Rules, r.Except, r.ContentUsage, r.TDM, r.Meta, r.XRobotsTag, r.Licenses, opts.Log)
		if err != nil {
			errs = append(errs, configerr.Prefix(at, err))
		}
		c.warnings = append(c.warnings, configerr.PrefixAll(at+".rules", tagemit.Warnings(r.Rules))...)
		cr.tagger = t
		c.routes = append(c.routes, cr)
	}
	if opts.TDMRepFile && errors.Join(errs...) == nil { // errs may hold nils
		declared := false
		for _, r := range c.routes {
			declared = declared || !r.tagger.out.tdm.decl.IsEmpty()
		}
		if declared {
			rules, warnings := tdmRouteRules(cfg, c.routes)
			c.tdmFile = newTDMFile(rules)
			// The fields state the policy the file states for the path (tdmLocated).
			located := newTDMLocated(rules)
			c.tdmRules = &TDMRepRules{located: located}
			for i := range c.routes {
				c.routes[i].tagger.tdmFile = located
			}
			c.warnings = append(c.warnings, warnings...)
		}
	}
	c.warnings = append(c.warnings, docRouteWarnings(c.docs, c.routes)...)
	if len(c.routes) >= indexMinRoutes {
		c.index = newRouteIndex(c.routes)
	}
	if cfg.RobotsTxt == nil && len(cfg.RobotsTag) == 0 {
		errs = append(errs, configerr.New("", "", "nothing to do: configure robots_txt, robots_tag, or both"))
	}
	if err := errors.Join(errs...); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Warnings are what New found valid but likely not meant, with field paths as in New's
// errors.
func (c *Core) Warnings() []*configerr.Error { return c.warnings }

// LogWarnings logs Warnings at warn level, each with its field path under the key "path".
func (c *Core) LogWarnings(l *slog.Logger) {
	for _, w := range c.warnings {
		l.Warn("config: "+w.Error(), "path", w.Path)
	}
}

// Close stops merge_upstream's background revalidation timers. The Core still serves.
func (c *Core) Close() {
	if c.merge != nil {
		c.merge.Stop()
	}
}

// IsRobotsTxt reports whether the Core answers r itself: it serves robots.txt and r's path is
// /robots.txt, or the path of one of its RSL license documents (which, as robots.txt,
// enforcement never refuses: a crawler must be able to read the terms).
func (c *Core) IsRobotsTxt(r *http.Request) bool {
	return c.robots != nil && (c.robots.Matches(r) || c.doc(r) != nil)
}

// ServeRobotsTxt answers a request for /robots.txt or a license document (see IsRobotsTxt):
// GET and HEAD get the file, or 304 Not Modified. An error is a *StatusError for the front end to answer its own
// way: 405 (the Allow header is set) for another method, 400 for an unusable Host when a
// sitemap is a path, the backend's status when merge_upstream has no merge to serve.
// upstream is how merge_upstream asks the wrapped handler for its file; it is not called
// without merge_upstream.
func (c *Core) ServeRobotsTxt(w http.ResponseWriter, r *http.Request, upstream func(*http.Request) Fetch) error {
	if d := c.doc(r); d != nil {
		return c.serveDoc(w, r, d)
	}
	if c.enforce != nil {
		c.enforce.countRobotsTxt(r)
	}
	if c.merge != nil {
		return c.merge.ServeHTTP(w, r, upstream)
	}
	return c.robots.ServeHTTP(w, r)
}

// IsTDMRep reports whether the Core answers r itself with the generated TDMRep file: it
// serves one (Options.TDMRepFile) and r's path is /.well-known/tdmrep.json.
func (c *Core) IsTDMRep(r *http.Request) bool {
	return c.tdmFile != nil && r.URL.Path == tdmrep.WellKnownPath
}

// ServeTDMRep answers a request for the TDMRep file (see IsTDMRep): GET and HEAD get it as
// application/json with robots.txt's Cache-Control (1h) and validators, or 304 Not
// Modified; another method gets the Allow header and a 405 *StatusError.
func (c *Core) ServeTDMRep(w http.ResponseWriter, r *http.Request) error {
	return c.tdmFile.serve(w, r)
}

// Enforce reports whether enforcement refuses r: its User-Agent names a crawler that the
// served robots.txt disallows for r's path. It is false without enforce, for /robots.txt, and
// for the RSL license documents (a crawler must be able to read the terms). With
// Options.Counters or Options.Violations, it also counts and reports r: front ends call it
// for every request but those for robots.txt (see Observes).
func (c *Core) Enforce(r *http.Request) (Block, bool) {
	if c.enforce == nil || c.IsRobotsTxt(r) {
		return Block{}, false
	}
	return c.enforce.Check(r)
}

// Observes reports whether requests must go through Enforce: enforcement is configured, or
// requests are counted or reported.
func (c *Core) Observes() bool { return c.enforce != nil }

// Crawler is the crawler that r's User-Agent names as enforcement reads it, and the decision
// of the file enforcement decides with at r's path; ok is false without enforce or when the
// header names no crawler of a group that names crawlers.
func (c *Core) Crawler(r *http.Request) (token string, d robotsgen.Decision, ok bool) {
	if c.enforce == nil {
		return "", robotsgen.Decision{}, false
	}
	return c.enforce.Crawler(r)
}

// Tag runs next with the robots tags of every route that applies to r set on its response;
// with none, it is next.ServeHTTP. When an enclosing Core already tags this response (two
// Caddy handlers on one request), the rules join it: the response carries one union.
func (c *Core) Tag(w http.ResponseWriter, r *http.Request, next Handler) error {
	return c.TagTDMRep(w, r, next, nil)
}

// TDMRepRules is the rules of a generated tdmrep.json as a TDM agent reads them (the first
// rule whose location matches the path), from Core.TDMRepRules.
type TDMRepRules struct{ located *tdmLocated }

// TDMRepRules returns the rules of the TDMRep file the Core serves (Options.TDMRepFile), or
// nil when it serves none. A front end that serves the file from another Core than the one
// that tags (Caddy: robots_txt serves it, each robots_tag handler tags) gives them to
// TagTDMRep, so that the tdm-policy fields state the file's policy for the path.
func (c *Core) TDMRepRules() *TDMRepRules {
	return c.tdmRules
}

// TagTDMRep is Tag, with the tdm-reservation and tdm-policy fields (and meta elements) of
// the response stating, for its path, the policy of the first rule of file that matches it
// when that rule states the response's reservation, as the Core serving the file does for
// its own routes. A nil file is Tag.
func (c *Core) TagTDMRep(w http.ResponseWriter, r *http.Request, next Handler, file *TDMRepRules) error {
	if len(c.routes) == 0 {
		return next.ServeHTTP(w, r)
	}
	var buf [4]*tagger
	matched := c.match(r, buf[:0])
	if len(matched) == 0 {
		return next.ServeHTTP(w, r)
	}
	var located *tdmLocated
	if file != nil {
		located = file.located
	}
	return tag(w, r, next, located, matched...)
}

// match appends to matched the taggers of the routes that apply to r, in route order.
func (c *Core) match(r *http.Request, matched []*tagger) []*tagger {
	var reqPath string
	if c.paths {
		reqPath = requestPath(r)
	}
	if c.index != nil {
		return c.index.lookup(c.routes, r, reqPath, matched)
	}
	for i := range c.routes {
		if c.routes[i].matches(r, reqPath) {
			matched = append(matched, c.routes[i].tagger)
		}
	}
	return matched
}

// Routes returns the indexes in the config's RobotsTag of the routes that apply to r, in
// order: the routes Tag combines for it.
func (c *Core) Routes(r *http.Request) []int {
	var out []int
	for _, t := range c.match(r, nil) {
		for i := range c.routes {
			if c.routes[i].tagger == t {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

func (cr *route) matches(r *http.Request, reqPath string) bool {
	if len(cr.patterns) > 0 {
		ok := false
		for i := range cr.patterns {
			if cr.patterns[i].Match(r, reqPath) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return cr.match == nil || cr.match(r)
}

// WriteError answers a request with code and a short text body saying why: the response of
// a refused request (Block.Message) or of a robots.txt StatusError, for front ends without
// their own error pages.
func WriteError(w http.ResponseWriter, code int, msg string) {
	http.Error(w, strconv.Itoa(code)+" "+http.StatusText(code)+": "+msg, code)
}

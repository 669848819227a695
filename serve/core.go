// Package serve is the serving core of caddy-robots, the per-request work every front end
// shares: New builds a Core from a policy.Config, checking it whole (every problem named by
// its field path), and the Core answers /robots.txt (merged with the site's own file when
// the config says so), refuses the requests enforcement refuses, and sets robots tags,
// Content-Usage and <meta> elements on the responses of the handler it wraps.
//
// Front ends stay thin: each request runs Core.ServeHTTP, the one pipeline, and what differs
// between front ends (the logger, how an error status is written, how merge_upstream asks the
// wrapped handler, where the TDMRep file comes from) is given once, in Options. Package
// nethttp wraps an http.Handler with one Core; the Caddy module builds one Core per handler,
// each from the part of the config that handler's JSON holds.
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
	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// Options are the parts of a Core that are not config: what differs between front ends,
// given once.
type Options struct {
	// Logger, if set, is told about requests, each line with the request's "method", "host"
	// and "uri": why a response was left unchanged (debug), what an operator must fix (warn,
	// once per route and kind), refusals (info; a crawler over its crawl-delay at debug),
	// violations (LogViolations); and, at any time, what happens to merge_file (warn): the
	// lines of the other file that were skipped or changed, the combinations the merge could
	// not encode exactly, and a changed file that could not be merged (the last good merge
	// stays). Nil logs nothing.
	Logger *slog.Logger
	// Identify is the crawler identity of a request (an identity.Identifier's, with the
	// client address the front end trusts), read by enforcement, the counters and
	// crawl-delay. ServeHTTP asks it once for every request that reaches enforcement, before
	// tdmrep.json is answered. Nil means identities are not known here, and no request is
	// refused as an impostor (policy.Enforce.Impostors).
	Identify func(*http.Request) identity.Identity
	// Counters, if set, counts the requests of crawlers (the crawler of the bot catalogue
	// their User-Agent names, or a name of the served robots.txt), by identity status
	// (Identify's; metrics.Unchecked without it) and outcome, and their requests for
	// robots.txt. Counting needs robots_txt: without it nothing is counted.
	Counters *metrics.Counters
	// LogViolations logs, at info level, the requests from crawlers for paths the served
	// robots.txt disallows for them that are served (not refused by enforcement): at most
	// ViolationBurst per crawler per ViolationInterval, the next line counting those left out.
	// The line is ViolationMessage with "crawler", "token", "identity_status", "method",
	// "host", "path", "rule", "line" and "suppressed".
	LogViolations bool

	// Error writes the response of a request ServeHTTP answers with an error status, and what
	// it returns ServeHTTP returns: a refusal (enforcement's status, Block.Message as Msg, the
	// refusal's header fields set already), or a request for robots.txt, a license document
	// or tdmrep.json that cannot be served (405 with the Allow header set; 400 for an unusable
	// Host when a sitemap is a path; the backend's status when merge_upstream has no merge to
	// serve). Nil is WriteError, which returns nil.
	Error func(w http.ResponseWriter, r *http.Request, err *StatusError) error
	// Upstream is how merge_upstream asks next, the handler ServeHTTP wraps, for the site's
	// own robots.txt when a fetch starts for r (copying from r what the sub-request needs);
	// nil runs next itself on the sub-request. It is not called without merge_upstream.
	Upstream func(r *http.Request, next Handler) Fetch

	// TDMRepFile serves /.well-known/tdmrep.json, generated from the routes' TDMRep
	// declarations, when some route has one; a route that no location can express is a
	// warning. A front end sets it when the Core holds every route of the site with its
	// paths: nethttp's does; in Caddy, robots_txt builds such a Core from the robots_tag
	// handlers of its site block (a route whose way no path states has a Match).
	TDMRepFile bool
	// TDMRep, if set, is the Core generating the TDMRep file of r's site (TDMRepFile; nil when
	// the site has none), for a front end in which another Core than this one generates it
	// (Caddy: robots_txt, from the robots_tag handlers of its site block). A Core serving
	// robots.txt answers /.well-known/tdmrep.json with that file, and the tdm-reservation and
	// tdm-policy fields (and meta elements) of tagged responses state, for their path, the
	// policy of its first rule matching it, when that rule states the response's reservation,
	// as the Core serving the file does for its own routes.
	TDMRep func(*http.Request) *Core

	// Now, if set, is the clock that crawl-delay and the limits of the violation and refusal
	// logs measure time with (only the time between its readings counts); nil is the
	// monotonic clock. For tests.
	Now func() time.Time

	// Store, if set, is the state the instances of a fleet share (package fleet): the
	// crawl-delay budgets and the limits of the violation and refusal logs are then the
	// fleet's, one store decision per request that needs one (a crawler's over its budget,
	// a refusal or violation to log), never for a browser's. A failed call falls back:
	// crawl-delay serves the request, the log limits are this process's (docs/fleet.md).
	// Nil keeps all of it in the process.
	Store fleet.Store
	// Pay holds what charging crawlers (policy.Pay) needs beside the config: a shared
	// payment store, the facilitator's transport. Nil is the defaults.
	Pay *Pay

	// violations, if set, is told of each violation logged (LogViolations): for tests.
	violations func(*http.Request, violation)
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
	tdmRules *tdmLocated  // tdmFile's rules as an agent reads them; nil without it
	warnings []*configerr.Error

	log      *slog.Logger                          // never nil
	identify func(*http.Request) identity.Identity // set when enforcement reads identities
	onError  func(w http.ResponseWriter, r *http.Request, err *StatusError) error
	tdmOf    func(*http.Request) *Core // Options.TDMRep
	pay      *payer                    // robots_txt.pay; nil without
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
	c := &Core{log: opts.Logger, onError: opts.Error, tdmOf: opts.TDMRep}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	log := newRequestLog(c.log)
	if opts.LogViolations && opts.violations == nil {
		opts.violations = c.logViolation
	}
	var errs []error
	if rc := cfg.RobotsTxt; rc != nil {
		file := rc.File()
		docs, derr := newLicenseDocs(rc.LicenseDocuments)
		errs = append(errs, configerr.Prefix("robots_txt", derr))
		c.docs = docs
		file.Licenses = withDocumentLicenses(file.Licenses, docs)
		rt, up, err := newMergingRobotsTxt(file, time.Duration(rc.MaxAge), rc.Merge, log, opts.Upstream)
		c.robots, c.merge = rt, up
		if err != nil {
			errs = append(errs, configerr.Prefix("robots_txt", err))
		} else if rc.Enforce != nil || opts.Counters != nil || opts.violations != nil {
			c.enforce, err = newEnforcer(rt, up, rc.Enforce, opts)
			errs = append(errs, configerr.Prefix("robots_txt", err))
			if c.enforce != nil && c.enforce.identifies() {
				c.identify = opts.Identify
			}
		}
		c.warnings = append(c.warnings, configerr.PrefixAll("robots_txt", file.Warnings())...)
		if rc.Pay != nil {
			pay, err := newPayer(cfg, opts)
			errs = append(errs, configerr.Prefix("robots_txt", err))
			c.pay = pay
			if pay != nil {
				c.identify = opts.Identify
			}
		}
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
		t, err := newTagger(r.Rules, r.Except, r.ContentUsage, r.TDM, r.Meta, r.XRobotsTag, r.Licenses, log)
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
			c.tdmRules = located
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

// ServeHTTP is the request pipeline every front end runs, in this order:
//
//   - robots.txt and the RSL license documents (IsRobotsTxt) are answered: GET and HEAD get
//     the file or 304 Not Modified (with merge_upstream, the site's own file merged in, asked
//     of next through Options.Upstream);
//   - the request is identified (Options.Identify), when enforcement reads identities;
//   - /.well-known/tdmrep.json is answered with the generated TDMRep file (Options.TDMRepFile,
//     Options.TDMRep);
//   - a request enforcement refuses (Enforce) is logged and answered with its status;
//   - a verified crawler's request that robots_txt.pay prices (Price) is charged with x402:
//     answered 402 with the price, or its payment verified, next run and its success
//     settled before it is sent (docs/payment.md);
//   - next runs, with the robots tags of every route that applies to r set on its response
//     (Tag); with no route, it is next.ServeHTTP.
//
// An answer with an error status is written by Options.Error, whose error ServeHTTP returns.
func (c *Core) ServeHTTP(w http.ResponseWriter, r *http.Request, next Handler) error {
	if c.IsRobotsTxt(r) {
		return c.fail(w, r, c.ServeRobotsTxt(w, r, next))
	}
	var id identity.Identity
	if c.identify != nil {
		// Identified before tdmrep.json, as a front end that keeps the identity for the
		// handlers after it (Caddy's placeholders) expects of every request but robots.txt.
		id = c.identify(r)
	}
	if r.URL.Path == tdmrep.WellKnownPath {
		if f := c.tdmFileFor(r); f != nil {
			return c.fail(w, r, f.serve(w, r))
		}
	}
	if c.enforce != nil {
		if b, refused := c.enforce.Check(r, id); refused {
			return c.refuse(w, r, b)
		}
	}
	if c.pay != nil {
		if pr := c.pay.price(r, id); pr != nil {
			return c.charge(w, r, next, pr, id)
		}
	}
	if len(c.routes) == 0 {
		return next.ServeHTTP(w, r)
	}
	return c.tag(w, r, next)
}

// fail answers r with err, a *StatusError, through Options.Error; nil is nil.
func (c *Core) fail(w http.ResponseWriter, r *http.Request, err error) error {
	if err == nil {
		return nil
	}
	var se *StatusError
	if !errors.As(err, &se) {
		se = &StatusError{http.StatusInternalServerError, err.Error()}
	}
	if c.onError != nil {
		return c.onError(w, r, se)
	}
	WriteError(w, se.Code, se.Msg)
	return nil
}

// refuse logs the refusal b of r (within the refusal log's limit: Block.Unlogged) and
// answers it. A crawler over its crawl-delay is refused often, and is logged at debug level
// (the counters count each).
func (c *Core) refuse(w http.ResponseWriter, r *http.Request, b Block) error {
	msg := b.Message()
	level := slog.LevelInfo
	if b.RetryAfter > 0 {
		level = slog.LevelDebug
	}
	if !b.Unlogged && c.log.Enabled(r.Context(), level) {
		c.log.Log(r.Context(), level, msg, "token", b.Token, "rule", b.LogRule(), "status", b.Status,
			"method", r.Method, "host", r.Host, "uri", r.RequestURI, "suppressed", b.Suppressed)
	}
	b.setHeaders(w.Header())
	return c.fail(w, r, &StatusError{b.Status, msg})
}

// logViolation logs a violation (Options.LogViolations).
func (c *Core) logViolation(r *http.Request, v violation) {
	if c.log.Enabled(r.Context(), slog.LevelInfo) {
		c.log.InfoContext(r.Context(), ViolationMessage, "crawler", v.Crawler, "token", v.Token, "identity_status", v.Status,
			"method", r.Method, "host", r.Host, "path", v.Path, "rule", v.ruleText(), "line", v.Line, "suppressed", v.Suppressed)
	}
}

// tdmFileFor is the TDMRep file the Core answers r's /.well-known/tdmrep.json with, or nil.
func (c *Core) tdmFileFor(r *http.Request) *tdmFile {
	if c.tdmFile != nil {
		return c.tdmFile
	}
	if c.tdmOf != nil && c.robots != nil {
		if f := c.tdmOf(r); f != nil {
			return f.tdmFile
		}
	}
	return nil
}

// IsRobotsTxt reports whether the Core answers r itself: it serves robots.txt and r's path is
// /robots.txt, or the path of one of its RSL license documents (which, as robots.txt,
// enforcement never refuses: a crawler must be able to read the terms).
func (c *Core) IsRobotsTxt(r *http.Request) bool {
	return c.robots != nil && (c.robots.Matches(r) || c.doc(r) != nil)
}

// ServeRobotsTxt answers a request for /robots.txt or a license document (see IsRobotsTxt)
// as ServeHTTP does, but for an error status: that is returned, a *StatusError, unwritten.
// next is the handler merge_upstream asks for the site's own file (see Options.Upstream).
func (c *Core) ServeRobotsTxt(w http.ResponseWriter, r *http.Request, next Handler) error {
	if d := c.doc(r); d != nil {
		return c.serveDoc(w, r, d)
	}
	if c.enforce != nil {
		c.enforce.countRobotsTxt(r)
	}
	if c.merge != nil {
		return c.merge.ServeHTTP(w, r, next)
	}
	return c.robots.ServeHTTP(w, r)
}

// Enforce reports whether enforcement refuses r, as ServeHTTP decides it for a request that
// is not for robots.txt (nor a license document: a crawler must be able to read the terms):
// its User-Agent names a crawler that the served robots.txt disallows for r's path, or an
// impostor (Options.Identify), or one over its crawl-delay. It is false without enforce. With
// Options.Counters or Options.LogViolations, it also counts and reports r.
func (c *Core) Enforce(r *http.Request) (Block, bool) {
	if c.enforce == nil || c.IsRobotsTxt(r) {
		return Block{}, false
	}
	var id identity.Identity
	if c.identify != nil {
		id = c.identify(r)
	}
	return c.enforce.Check(r, id)
}

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
	if len(c.routes) == 0 {
		return next.ServeHTTP(w, r)
	}
	return c.tag(w, r, next)
}

// tag is Tag for a Core with routes. With Options.TDMRep, the tdm fields state the policy of
// the site's TDMRep file for the path.
func (c *Core) tag(w http.ResponseWriter, r *http.Request, next Handler) error {
	var buf [4]*tagger
	matched := c.match(r, buf[:0])
	if len(matched) == 0 {
		return next.ServeHTTP(w, r)
	}
	var located *tdmLocated
	if c.tdmOf != nil {
		if f := c.tdmOf(r); f != nil {
			located = f.tdmRules
		}
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

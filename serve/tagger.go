package serve

import (
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/mimetype"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/rsl"
	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/tdmrep"
	"github.com/sitepolicy/caddy-robots/usage"
)

// requestLog is how the parts of a Core log (Options.Logger). Each func is nil without a
// Logger.
type requestLog struct {
	// Debug is told why a response was left unchanged (a HEAD request, a 206, an encoded
	// body, ...) or why a backend's header could not be read in full.
	Debug func(r *http.Request, msg string)
	// Warn is told what an operator must act on: restrictions dropped to keep the Robots-Tag
	// field within the size parsers honour, or meta elements that a misplaced directive keeps
	// from ever being added. Each kind of warning is given once per tagger.
	Warn func(r *http.Request, msg string)
	// File is told what happens to merge_file, which no request causes.
	File func(msg string)
}

// newRequestLog logs through l (nil: nothing), each line about a request with its method,
// host and URI.
func newRequestLog(l *slog.Logger) requestLog {
	if l == nil {
		return requestLog{}
	}
	at := func(level slog.Level) func(*http.Request, string) {
		return func(r *http.Request, msg string) {
			if l.Enabled(r.Context(), level) {
				l.Log(r.Context(), level, msg, "method", r.Method, "host", r.Host, "uri", r.RequestURI)
			}
		}
	}
	return requestLog{Debug: at(slog.LevelDebug), Warn: at(slog.LevelWarn), File: func(msg string) { l.Warn(msg) }}
}

// tagger sets one route's robots tags on responses. Everything it sends for its own rules is
// serialised once, when it is built. It is safe for concurrent use.
type tagger struct {
	policy tagemit.Policy
	usage  usage.Prefs // Content-Usage preferences; empty if none
	lics   []string    // RSL license URLs; nil if none
	// tdmFile is the served tdmrep.json's rules, whose policy the fields state; nil
	// without the file.
	tdmFile *tdmLocated
	meta    bool
	xrt     bool
	log     requestLog

	out tagOutput

	// warned records which kinds of warning this Tagger has given, so each is logged once.
	warned [numWarnings]atomic.Bool

	// unions caches the combined output of this Tagger (first) with others that apply to the
	// same request, so that overlapping routes cost a map lookup, not a union, per request.
	unions sync.Map // unionKey -> *tagOutput
}

// The kinds of warning a Tagger gives once.
const (
	warnFieldTooLong = iota // restrictions dropped to keep Robots-Tag within MaxFieldSize
	warnEncodedBody         // meta wanted, but the body arrived already encoded
	warnUsageTooLong        // extension preferences dropped to keep Content-Usage within MaxFieldSize
	numWarnings
)

// tagOutput is what a policy sends, precomputed. Header values are single-element slices with
// no spare capacity: assigning them to a header map costs nothing, and an append by a later
// handler copies instead of writing into the shared array.
type tagOutput struct {
	policy     tagemit.Policy
	robotsTag  []string
	xRobotsTag []string
	meta       []byte

	// usage is the Content-Usage preferences, contentUsage their field value (nil when
	// there are none, so that a backend's own field is left alone); usageMerged caches
	// them merged with what backends sent, per distinct value.
	usage        usage.Prefs
	contentUsage []string
	usageMerged  usageCache
	// usageDropped names the extension preferences left out to keep the Content-Usage value
	// of a union of routes within tagemit.MaxFieldSize.
	usageDropped []string

	// legacy is set when the X-Robots-Tag lines are sent, so they count in the size limit too.
	legacy bool

	// lic is the RSL license links (licenseSet), shared by the outputs merged from this one.
	lic *licenseSet
	// tdm is the routes' TDMRep declaration and its fields.
	tdm tdmOutput

	// dropped names the members left out to keep the Robots-Tag value (and with legacy the
	// X-Robots-Tag lines) within tagemit.MaxFieldSize; errs are what could not be read of a
	// backend's header.
	dropped []string
	errs    []error

	// merged caches this output merged with what backends sent, per distinct value.
	merged mergeCache
}

// newTagOutput precomputes what the routes' policy p and preferences u send, legacy telling
// whether X-Robots-Tag is sent too.
func newTagOutput(p tagemit.Policy, u usage.Prefs, legacy bool) *tagOutput {
	p, dropped := tagemit.FitUnion(p, tagemit.Policy{}, legacy)
	return buildTagOutput(p, dropped, u, legacy)
}

// withLicenses sets the RSL license links o sends: lics in order, each once.
func (o *tagOutput) withLicenses(lics []string) *tagOutput {
	o.lic = newLicenseSet(lics)
	return o
}

// licenseLinks are a set of license links as sent to one origin: the <link> elements
// (tagemit.Licenses, for the injector) and the Link field lines, one per license, each with
// no spare capacity; link is nil when there is no license.
type licenseLinks struct {
	licenses tagemit.Licenses
	link     []string
}

func newLicenseLinks(lics []string, origin string) *licenseLinks {
	l := &licenseLinks{licenses: tagemit.NewLicensesAt(lics, origin)}
	for _, w := range l.licenses.Written() {
		l.link = append(l.link, rsl.LinkValue(w))
	}
	l.link = slices.Clip(l.link)
	return l
}

// licenseSet is a route's (or union's) RSL licenses. RSL 1.0 asks for absolute license URLs,
// so a license given as a path is sent as its URL on the request's origin (scheme and host),
// as robots.txt's License lines are resolved (robotsgen.File.Render): the links are built
// once per origin and cached, at most maxOriginCache origins (the Host header is the
// client's); past that, built per response. A Host that is not a plain host[:port] gets the
// path as written, a relative reference its client resolves against the page's URL (RFC 8288
// section 3.2).
type licenseSet struct {
	hrefs    []string
	asGiven  *licenseLinks // every license as configured: no path, or no usable origin
	hasPath  bool
	mu       sync.RWMutex
	byOrigin map[originKey]*licenseLinks
}

func newLicenseSet(lics []string) *licenseSet {
	s := &licenseSet{hrefs: slices.Clip(lics), asGiven: newLicenseLinks(lics, "")}
	for _, l := range lics {
		s.hasPath = s.hasPath || strings.HasPrefix(l, "/")
	}
	return s
}

// isEmpty reports whether there is no license.
func (s *licenseSet) isEmpty() bool { return s == nil || s.asGiven.licenses.IsEmpty() }

// forRequest returns the links to send in the response to r.
func (s *licenseSet) forRequest(r *http.Request) *licenseLinks {
	if !s.hasPath || !plainHost(r.Host) {
		return s.asGiven
	}
	key := originKey{https: r.TLS != nil, host: strings.ToLower(r.Host)}
	s.mu.RLock()
	l := s.byOrigin[key]
	s.mu.RUnlock()
	if l != nil {
		return l
	}
	l = newLicenseLinks(s.hrefs, key.String())
	s.mu.Lock()
	if s.byOrigin == nil {
		s.byOrigin = make(map[originKey]*licenseLinks)
	}
	if len(s.byOrigin) < maxOriginCache {
		s.byOrigin[key] = l
	}
	s.mu.Unlock()
	return l
}

// plainHost reports whether h is a host[:port] that can be written into a URL as it is:
// letters, digits, "-", ".", "_", "~", and ":" "[" "]" for a port or an IPv6 literal.
func plainHost(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~:[]", c) >= 0) {
			return false
		}
	}
	return true
}

// setLink adds the Link field lines of l to h, after the handler's own; one whose license
// the handler's lines already link to (rsl.HasLicenseLink: the license as configured, a path
// also matching its absolute URL on host) is not added. Without Link lines of the handler's
// the precomputed slice is assigned, which costs nothing.
func (l *licenseLinks) setLink(h http.Header, host string) {
	own := h["Link"]
	if len(own) == 0 {
		h["Link"] = l.link
		return
	}
	n := len(own)
	for i, lic := range l.licenses.Hrefs() {
		if !rsl.HasLicenseLink(own[:n], lic, host) {
			own = append(own, l.link[i])
		}
	}
	h["Link"] = own
}

// buildTagOutput precomputes what a policy that fits sends.
func buildTagOutput(p tagemit.Policy, dropped []string, u usage.Prefs, legacy bool) *tagOutput {
	u, usageDropped := u.Fit()
	o := &tagOutput{policy: p, meta: p.MetaElements(), dropped: dropped, usage: u, usageDropped: usageDropped, legacy: legacy}
	if v := u.String(); v != "" {
		o.contentUsage = []string{v}
	}
	if v := p.RobotsTag(); v != "" {
		o.robotsTag = []string{v}
	}
	if lines := p.XRobotsTag(); len(lines) > 0 {
		o.xRobotsTag = lines[:len(lines):len(lines)]
	}
	return o
}

// backendKey is what a backend sent: its Robots-Tag and X-Robots-Tag field lines, each
// joined with NUL (which no field value holds) when there are several.
type backendKey struct{ rt, xrt string }

// Backends send the same few values again and again, so the merge with each is computed
// once. The cache is bounded: at most maxMerged values of at most MaxFieldSize bytes each;
// when it is full it starts afresh, so a backend sending ever new values costs a parse per
// response (as without a cache) and bounded memory.
const maxMerged = 128

type mergeCache struct {
	mu sync.RWMutex
	m  map[backendKey]*tagOutput
}

// withBackend returns the response's output when the handler sent its own robots headers:
// the union of o and what they state. When the union must be cut to fit the field size, the
// routes' members are kept first and the backend's most restrictive ones next
// (tagemit.FitUnion).
func (o *tagOutput) withBackend(rt, xrt []string) *tagOutput {
	key := backendKey{joinKey(rt), joinKey(xrt)}
	c := &o.merged
	c.mu.RLock()
	m, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return m
	}
	var backend tagemit.Policy
	var errs []error
	// Restrictions stated in either field count; none is ever dropped for being in the
	// legacy one.
	if len(rt) > 0 {
		q, e := tagemit.ParseRobotsTag(rt)
		backend, errs = backend.Union(q), append(errs, e...)
	}
	if len(xrt) > 0 {
		q, e := tagemit.ParseXRobotsTag(xrt)
		backend, errs = backend.Union(q), append(errs, e...)
	}
	p, dropped := tagemit.FitUnion(o.policy, backend, o.legacy)
	m = buildTagOutput(p, append(slices.Clip(o.dropped), dropped...), o.usage, o.legacy)
	m.meta, m.errs, m.tdm = o.meta, errs, o.tdm
	m.lic = o.lic
	if len(key.rt)+len(key.xrt) <= tagemit.MaxFieldSize {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxMerged {
			c.m = make(map[backendKey]*tagOutput)
		}
		c.m[key] = m
		c.mu.Unlock()
	}
	return m
}

// usageCache caches a route's Content-Usage merged with the values backends send, bounded
// as mergeCache is.
type usageCache struct {
	mu sync.RWMutex
	m  map[string]usageMerge
}

type usageMerge struct {
	value []string // the field to send
	err   error    // what of the backend's value is not in it, for the debug log
}

// withBackendUsage returns the Content-Usage field to send when the handler sent its own:
// o's preferences combined with the backend's, and every other member of the backend's
// field kept as sent (usage.MergeHeader). Of a value that does not parse only the members
// with the value n are kept; err says what was left out, for the debug log. Both the key
// and the value are at most MaxFieldSize bytes, and err's message is bounded, so the cache
// stays bounded.
func (o *tagOutput) withBackendUsage(lines []string) ([]string, error) {
	key := joinKey(lines)
	c := &o.usageMerged
	c.mu.RLock()
	m, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return m.value, m.err
	}
	v, err := usage.MergeHeader(o.usage, lines)
	m = usageMerge{value: o.contentUsage, err: err}
	if v != o.usage.String() {
		m.value = []string{v}
	}
	if len(key) <= usage.MaxFieldSize {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxMerged {
			c.m = make(map[string]usageMerge)
		}
		c.m[key] = m
		c.mu.Unlock()
	}
	return m.value, m.err
}

// xRobotsTagSize is the size of p's X-Robots-Tag lines joined, as parsers count them.
func xRobotsTagSize(p tagemit.Policy) int {
	n := 0
	for i, l := range p.XRobotsTag() {
		if i > 0 {
			n += len(", ")
		}
		n += len(l)
	}
	return n
}

func joinKey(lines []string) string {
	switch len(lines) {
	case 0:
		return ""
	case 1:
		return lines[0]
	}
	return strings.Join(lines, "\x00")
}

// newTagger checks a route's rules (product token -> rules, as tagemit.NewPolicy reads them),
// the crawlers its presets leave out (tagemit.NewPolicyExcept, tagemit.CheckExcept) and its
// Content-Usage preferences (usage.ContentUsage.FromConfig: {"train-ai": "n"}), and
// precomputes everything it sends: the Robots-Tag field, the X-Robots-Tag lines when
// xRobotsTag is set, the meta elements when meta is set, the Content-Usage field, and the
// TDMRep fields of tdm (newTDM). A route needs rules, preferences, an RSL license or a TDMRep
// declaration; xRobotsTag needs rules, meta rules or a declaration. Errors name the field:
// "rules", "except[1]", `content_usage["key"]`, "tdm.policy", "meta", "x_robots_tag",
// "licenses[0]". The RSL license URLs (licenses) are checked as robots.txt's
// (robotsgen.File.Licenses) and sent as Link field lines, and with meta as <link> elements.
func newTagger(rules map[string][]string, except []string, contentUsage map[string]string, tdm *policy.TDM, meta, xRobotsTag bool, licenses []string, log requestLog) (*tagger, error) {
	p, err := tagemit.NewPolicyExcept(rules, except)
	if err != nil {
		err = configerr.Prefix("rules", err)
	}
	err = errors.Join(err, configerr.Prefix("except", tagemit.CheckExcept(rules, except)))
	u, uerr := usage.ContentUsage.FromConfig(contentUsage)
	if n := len(u.String()); uerr == nil && n > tagemit.MaxFieldSize {
		// The same bound as Robots-Tag: a larger field line is refused by common proxies.
		uerr = configerr.New("", "", fmt.Sprintf("the Content-Usage field would be %d bytes, over the %d that servers and proxies are sure to pass; keep to the vocabulary's keys and a few extensions", n, tagemit.MaxFieldSize))
	}
	if n := xRobotsTagSize(p); err == nil && xRobotsTag && n > tagemit.MaxFieldSize {
		// Parsers read the lines together under the same limit as Robots-Tag's.
		err = configerr.New("x_robots_tag", "", fmt.Sprintf("the X-Robots-Tag lines would be %d bytes together, over the %d-byte limit parsers must honour (the Robots-Tag field is %d); give fewer tokens or rules, or leave x_robots_tag out", n, tagemit.MaxFieldSize, len(p.RobotsTag())))
	}
	d, terr := newTDM(tdm, u)
	// The license URLs are checked as robots.txt's are, with the same field paths.
	lerr := (&robotsgen.File{Licenses: licenses}).Validate()
	if err = errors.Join(err, configerr.Prefix("content_usage", uerr), terr, lerr); err != nil {
		return nil, err
	}
	if p.IsEmpty() && len(licenses) == 0 {
		if u.IsEmpty() && d.IsEmpty() {
			return nil, configerr.New("rules", "", "no rules: give at least one rule, e.g. noindex, Content-Usage preferences (content_usage), an RSL license (licenses) or a TDMRep declaration (tdm)")
		}
		var errs []error
		if meta && d.IsEmpty() {
			errs = append(errs, configerr.New("meta", "", "meta writes the route's robots rules and TDMRep declaration as <meta> elements, and the route has none (Content-Usage preferences have no meta element)"))
		}
		if xRobotsTag {
			errs = append(errs, configerr.New("x_robots_tag", "", "x_robots_tag sends the route's robots rules as X-Robots-Tag, and the route has none"))
		}
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
	}
	if p.IsEmpty() && xRobotsTag {
		return nil, configerr.New("x_robots_tag", "", "x_robots_tag sends the route's robots rules as X-Robots-Tag, and the route has none")
	}
	t := &tagger{policy: p, usage: u, lics: slices.Clip(licenses), meta: meta, xrt: xRobotsTag, log: log}
	t.out = *newTagOutput(p, u, xRobotsTag).withLicenses(licenses)
	t.out.tdm = newTDMOutput(d)
	return t, nil
}

// Handler is the next handler in a chain, in the shape of Caddy's caddyhttp.Handler, so that
// both front ends can pass their own.
type Handler interface {
	ServeHTTP(http.ResponseWriter, *http.Request) error
}

// ServeHTTP runs next with the Tagger's rules applied to its response. When an enclosing
// Tagger already wraps this response (two overlapping routes, two Caddy handlers), the rules
// join that wrapper, so the response carries one field line with the union of both.
func (t *tagger) ServeHTTP(w http.ResponseWriter, r *http.Request, next Handler) error {
	return tag(w, r, next, nil, t)
}

// tag runs next with the union of the taggers' rules applied to its response. It is the shared
// core of the Caddy handler and the net/http middleware.
func tag(w http.ResponseWriter, r *http.Request, next Handler, file *tdmLocated, taggers ...*tagger) error {
	if len(taggers) == 0 {
		return next.ServeHTTP(w, r)
	}
	if tw := findTagWriter(w); tw != nil && !tw.wroteHeader {
		for _, t := range taggers {
			tw.add(t)
		}
		if file != nil {
			tw.tdmFile = file
		}
		return next.ServeHTTP(w, withoutRangeIfRewritten(r, tw))
	}
	tw := getTagWriter(w, r)
	tw.tdmFile = file
	for _, t := range taggers {
		tw.add(t)
	}
	r = withoutRangeIfRewritten(r, tw)
	tw.req = r
	defer tw.finish()
	return next.ServeHTTP(tw, r)
}

// withoutRangeIfRewritten returns r, or, for a Range request on a route with meta elements
// for a path that may be an HTML page, a copy without Range and If-Range. A byte range of the
// unrewritten page does not address the rewritten page a client resumes (RFC 9110 §14.2 lets
// a server ignore Range), and whether the response is HTML is known only once it is written,
// when the backend has already cut it. The handler cannot simply be asked again: Caddy's
// route groups run once per request. So the path decides: no extension, or one whose type
// is HTML, gets the full page; other files keep their ranges (video seeking, resumable
// downloads). A non-HTML file at an extensionless path is sent whole instead of in part, and
// an HTML page at another extension keeps its range unrewritten (it gets no meta elements).
func withoutRangeIfRewritten(r *http.Request, tw *tagWriter) *http.Request {
	if !tw.wantMeta || r.Method != http.MethodGet {
		return r
	}
	if _, ok := r.Header["Range"]; !ok || !mayBeHTML(r.URL.Path) {
		return r
	}
	c := r.Clone(r.Context())
	delete(c.Header, "Range")
	delete(c.Header, "If-Range")
	return c
}

// mayBeHTML reports whether a request path may name an HTML page: no extension (directories,
// pretty URLs), a server-page extension, or an extension whose MIME type is HTML.
func mayBeHTML(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	switch ext {
	case "", ".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp", ".cgi":
		return true
	}
	mt, _ := mimetype.Parse(mime.TypeByExtension(ext))
	return mt.IsHTML() || mt.IsXHTML()
}

// findTagWriter returns the TagWriter that w is or wraps, if any.
func findTagWriter(w http.ResponseWriter) *tagWriter {
	for range 16 { // wrappers nest shallowly; the bound guards against a cycle
		if tw, ok := w.(*tagWriter); ok {
			return tw
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// maxCachedUnion is how many taggers a cached union may combine.
const maxCachedUnion = 4

type unionKey [maxCachedUnion]*tagger

// combined returns the precomputed output for the union of taggers (taggers[0] holds the cache).
func combined(taggers []*tagger) *tagOutput {
	if len(taggers) == 1 {
		return &taggers[0].out
	}
	var key unionKey
	cacheable := len(taggers) <= maxCachedUnion
	if cacheable {
		copy(key[:], taggers)
		if o, ok := taggers[0].unions.Load(key); ok {
			return o.(*tagOutput)
		}
	}
	p, u, legacy, d := taggers[0].policy, taggers[0].usage, taggers[0].xrt, taggers[0].out.tdm.decl
	lics := taggers[0].lics
	for _, t := range taggers[1:] {
		p, u, legacy, d = p.Union(t.policy), usage.Combine(u, t.usage), legacy || t.xrt, tdmrep.Combine(d, t.out.tdm.decl)
		lics = append(slices.Clip(lics), t.lics...)
	}
	o := newTagOutput(p, u, legacy).withLicenses(lics)
	o.tdm = newTDMOutput(d)
	if cacheable {
		if prev, loaded := taggers[0].unions.LoadOrStore(key, o); loaded {
			return prev.(*tagOutput)
		}
	}
	return o
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(http.ResponseWriter, *http.Request) error

// ServeHTTP calls f(w, r).
func (f HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) error { return f(w, r) }

// Package policy is the configuration schema of caddy-robots: what a site declares about
// crawlers, as Go values or JSON. Every front end reads this one schema: the net/http
// middleware (package nethttp) takes a Config, each Caddy handler's JSON is one of its parts
// (the robots_txt handler's is a RobotsTxt, the robots_tag handler's a Tags), the Caddyfile
// adapter fills these types, and package policycheck checks them.
//
// The package only describes; package serve validates a Config (every problem named by its
// field path, a *configerr.Error) and serves it.
package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// Defaults and bounds of the config's fields.
const (
	// RobotsTxtPath is the only path robots.txt is served at (RFC 9309 §2.3: lower case, at
	// the top of the origin).
	RobotsTxtPath = "/robots.txt"
	// DefaultRobotsTxtMaxAge is the Cache-Control max-age sent with robots.txt when MaxAge is
	// 0.
	DefaultRobotsTxtMaxAge = time.Hour
	// MaxRobotsTxtMaxAge is the longest MaxAge accepted: RFC 9309 §2.4 asks crawlers not to
	// use a robots.txt cached for longer than 24 hours.
	MaxRobotsTxtMaxAge = 24 * time.Hour
	// DefaultUpstreamTimeout bounds one fetch of the backend's robots.txt when
	// MergeUpstreamTimeout is 0.
	DefaultUpstreamTimeout = 5 * time.Second
	// MaxUpstreamTimeout is the longest MergeUpstreamTimeout accepted.
	MaxUpstreamTimeout = time.Minute
	// DefaultEnforceStatus is the status of a request refused by enforcement when
	// Enforce.Status is 0.
	DefaultEnforceStatus = http.StatusForbidden
)

// Config is a site's whole configuration: its robots.txt and its robots_tag routes. Its JSON
// is the net/http middleware's config; "robots_txt" is also the Caddy robots_txt handler's
// JSON, and each "robots_tag" entry a robots_tag handler's plus the paths it applies to, so a
// config moves between the front ends unchanged.
type Config struct {
	// RobotsTxt, if set, is served at /robots.txt.
	RobotsTxt *RobotsTxt `json:"robots_txt,omitempty"`

	// RobotsTag lists the routes whose responses get robots tags. Every route that matches a
	// request contributes its rules; the response carries their union.
	RobotsTag []Route `json:"robots_tag,omitempty"`
}

// RobotsTxt is the robots.txt file to serve (see robotsgen.File for what each part renders
// as), how long caches may keep it, what it is merged with, and whether it is enforced.
type RobotsTxt struct {
	// Comments are "# text" lines at the top of the file.
	Comments []string `json:"comments,omitempty"`
	// Groups are the groups of rules, in order.
	Groups []robotsgen.Group `json:"groups,omitempty"`
	// Sitemaps are absolute http(s) URLs, or paths such as "/sitemap.xml" resolved against
	// each request's scheme and host.
	Sitemaps []string `json:"sitemaps,omitempty"`
	// Records are file-level other records, e.g. Host.
	Records []robotsgen.Record `json:"records,omitempty"`
	// Licenses are RSL license documents (RSL 1.0 "License" directive), written "License:
	// URL" lines: absolute http(s) URLs, or paths such as "/license.xml" resolved against each
	// request's scheme and host, as sitemaps are.
	Licenses []string `json:"licenses,omitempty"`
	// LicenseDocuments are RSL license documents rendered at load and served, with
	// robots.txt's Cache-Control, at their paths (Content-Type application/rsl+xml); the URL
	// of each becomes a License line of robots.txt unless Licenses names it already.
	LicenseDocuments []rsl.Document `json:"license_documents,omitempty"`
	// MaxAge is the Cache-Control max-age of the response, from 1s to 24h; 0 means 1h.
	MaxAge Duration `json:"max_age,omitempty"`
	// Enforce, if set, answers requests from crawlers that the file disallows (see Enforce).
	Enforce *Enforce `json:"enforce,omitempty"`
	// Pay, if set, charges verified crawlers per request with x402 (see Pay): after
	// enforcement, before the site's handler.
	Pay *Pay `json:"pay,omitempty"`
	// Merge merges the file with the site's own robots.txt: "merge_file", "merge_upstream",
	// "merge_upstream_timeout".
	Merge
}

// File is the robots.txt file the config declares, before any merge.
func (c *RobotsTxt) File() robotsgen.File {
	return robotsgen.File{Comments: c.Comments, Groups: c.Groups, Sitemaps: c.Sitemaps, Records: c.Records, Licenses: c.Licenses}
}

// Enforce makes the file binding on the crawlers it names: a request whose User-Agent
// header names a crawler of a group that names crawlers (product tokens or presets, never
// the "*" group), for a path the file disallows for that crawler, is answered with Status
// and a short text body, and logged at info level. /robots.txt itself is always served.
// User-Agent headers can lie: this stops crawlers that say who they are, and is no
// authentication.
type Enforce struct {
	// Status is the response status, 400 to 599; 0 means 403.
	Status int `json:"status,omitempty"`
	// Impostors, if set, answers first, wherever the path, a request whose User-Agent names
	// a crawler whose operator publishes how to verify it and whose client address fails
	// that verification (package identity). It needs the front end's crawler verification:
	// the Caddy "crawlers" app, or nethttp's Options.Verifier.
	Impostors *Impostors `json:"impostors,omitempty"`
	// AcceptSignature sends, with every refusal, an Accept-Signature field asking for a Web
	// Bot Auth signature (webbotauth.AcceptSignature), so that a signing agent knows what to
	// send to be verified.
	AcceptSignature bool `json:"accept_signature,omitempty"`
	// CrawlDelay answers 429 Too Many Requests, with Retry-After in whole seconds, to a
	// crawler that a group with a crawl_delay names when it asks sooner than that delay after
	// its last request served. Crawlers are told apart by the name the file's group names
	// them by, never by address (crawlers use many); with crawler verification configured, a
	// verified crawler has a budget of its own, which requests that claim its name without
	// being verified do not use up. Without verification anyone who sends a crawler's
	// User-Agent uses up that crawler's budget. The memory is one slot per crawler name with
	// a delay, fixed when the file is loaded, per server instance: a fleet needs a
	// distributed rate limiter (docs/observability.md, "Crawl-delay in a fleet"). Waits are
	// measured on the monotonic clock; a delay over a day is enforced as a day. A new version
	// of the served file (merge_file changed, merge_upstream merged again) keeps the budgets
	// of the names whose delay is unchanged; a config load starts them afresh.
	CrawlDelay bool `json:"crawl_delay,omitempty"`
}

// Impostors is how enforcement answers a request that claims a crawler it does not come
// from.
type Impostors struct {
	// Status is the response status, 400 to 599; 0 means 403.
	Status int `json:"status,omitempty"`
}

// Merge merges the declared file with a robots.txt the site already has (a CMS's, an app's),
// so that both files' restrictions hold: where a rule of the declared group that applies to a
// crawler matches a path, the declared file decides; elsewhere the other file does
// (robotsgen.Merge says exactly how, and which combinations err towards disallow).
type Merge struct {
	// MergeFile is a robots.txt file read when the config loads, and again when it changes.
	// A file that cannot be read is a config error; lines it skips or changes are logged at
	// warn level with their line numbers.
	MergeFile string `json:"merge_file,omitempty"`

	// MergeUpstream merges the wrapped handler's own /robots.txt at serve time: on GET or HEAD
	// of /robots.txt the handler is asked for its file (a GET without conditional headers,
	// credentials or compression), whose first 500 KiB are merged and served with the usual
	// headers. The merge is cached per scheme and host and revalidated after MaxAge in the
	// background; a 4xx or an HTML page means the handler has no rules (the declared file is
	// served); a 5xx or timeout serves the last good merge, or passes the status on.
	MergeUpstream bool `json:"merge_upstream,omitempty"`

	// MergeUpstreamTimeout bounds one fetch of the handler's robots.txt, at most 1m; 0 means
	// 5s.
	MergeUpstreamTimeout Duration `json:"merge_upstream_timeout,omitempty"`
}

// Route is a set of robots tags and the requests they apply to.
type Route struct {
	// Paths are path patterns with the semantics of Caddy's path matcher: case-insensitive,
	// "/exact", "/prefix/*", "*.pdf", "*substring*", or a glob. Empty means every path.
	Paths []string `json:"paths,omitempty"`

	// Match, if set, must also accept the request. It is not part of the JSON form.
	Match func(*http.Request) bool `json:"-"`

	Tags
}

// Tags are the robots tags and usage preferences a route sends.
type Tags struct {
	// Rules are the robots rules per product token ("*" = every accessor), e.g.
	// {"*": ["noindex"], "examplebot": ["max-snippet=20"]}: noindex, nosnippet, nofollow,
	// none, noarchive, nocache, noimageindex, notranslate, indexifembedded, max-snippet=N,
	// max-video-preview=N, max-image-preview=none|standard|large, unavailable_after=DATE.
	Rules map[string][]string `json:"rules"`

	// Except names crawlers that the presets of Rules ("preset:<category>" keys) leave out,
	// as the catalogue writes them (compared without case): {"preset:ai-search": ["noindex"]}
	// with "except": ["Applebot"] gives every AI search crawler but Applebot noindex. A crawler
	// left out keeps the rules given to its own token and to "*". Each name must be a crawler
	// of one of the presets.
	Except []string `json:"except,omitempty"`

	// Meta also adds <meta name="robots"> (and per-token) elements to the <head> of HTML
	// responses.
	Meta bool `json:"meta,omitempty"`

	// XRobotsTag also sends the legacy X-Robots-Tag header, which the draft deprecates but
	// crawlers read today.
	XRobotsTag bool `json:"x_robots_tag,omitempty"`

	// ContentUsage is the route's AI usage preferences (draft-ietf-aipref-vocab), sent as one
	// Content-Usage response field (draft-ietf-aipref-attach), e.g. {"train-ai": "n",
	// "search": "y"}: keys train-ai, ai-use and search, or an extension written "+key"; values y or
	// n. The preferences of every matching route and a Content-Usage the handler sent are
	// combined (any n wins, else any y). A route needs Rules, ContentUsage, Licenses or TDM (or
	// several).
	ContentUsage map[string]string `json:"content_usage,omitempty"`

	// Licenses are RSL license documents of the route's responses (RSL 1.0): absolute http(s)
	// URLs, or paths such as "/license.xml". Each is sent as a Link field value
	// `<URL>; rel="license"; type="application/rsl+xml"`, after any Link the handler sent
	// (one naming the same license is not repeated), and with Meta as a <link rel="license">
	// element in the <head> of HTML pages. A path stays a relative reference there, which the
	// client resolves against the page's URL (RFC 8288 section 3.2): the same document as
	// robots.txt's License line. A route may have only licenses.
	Licenses []string `json:"licenses,omitempty"`

	// TDM is the route's TDM Reservation Protocol declaration (W3C TDMRep): the
	// tdm-reservation and tdm-policy response fields, with Meta their <meta> elements too, and
	// the route's rule in /.well-known/tdmrep.json where the front end serves it.
	TDM *TDM `json:"tdm,omitempty"`
}

// TDM is a route's TDMRep declaration (docs/licensing.md, "TDMRep"): a reservation, given or
// derived from the route's Content-Usage, and optionally the URL of a TDM Policy. Exactly one
// of Reservation and Derive is set.
type TDM struct {
	// Reservation is 1 (TDM rights are reserved: the opt-out of Article 4 of the EU DSM
	// Directive) or 0 (they are not).
	Reservation *int `json:"reservation,omitempty"`

	// Derive sets the reservation to 1 because the route's ContentUsage has train-ai=n, so
	// that the choice is written once. A route whose ContentUsage does not say train-ai=n is
	// a config error: a permission is never derived from silence.
	Derive bool `json:"derive,omitempty"`

	// Policy is the absolute http(s) URL of the TDM Policy: how to acquire a license.
	Policy string `json:"policy,omitempty"`
}

// Decode reads a Config from JSON, refusing unknown fields (a misspelt field would otherwise
// silently drop a restriction) and anything after the object.
func Decode(data []byte) (Config, error) {
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, err
	}
	if dec.More() {
		return Config{}, errors.New("unexpected data after the JSON object")
	}
	return cfg, nil
}

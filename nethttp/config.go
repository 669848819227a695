package nethttp

import (
	"net/http"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// Config is the middleware's configuration, from Go values or JSON. Its parts have the JSON of
// the Caddy module's handlers: "robots_txt" is a robots_txt handler, each "robots_tag" entry a
// robots_tag handler plus the paths it applies to, so a config moves between the two
// unchanged.
type Config struct {
	// RobotsTxt, if set, is served at /robots.txt.
	RobotsTxt *RobotsTxtConfig `json:"robots_txt,omitempty"`

	// RobotsTag lists the routes whose responses get robots tags. Every route that matches a
	// request contributes its rules; the response carries their union.
	RobotsTag []Route `json:"robots_tag,omitempty"`
}

// RobotsTxtConfig is the robots.txt file to serve (see robotsgen.File for what each part
// renders as) and how long caches may keep it.
type RobotsTxtConfig struct {
	// Comments are "# text" lines at the top of the file.
	Comments []string `json:"comments,omitempty"`
	// Groups are the groups of rules, in order.
	Groups []robotsgen.Group `json:"groups,omitempty"`
	// Sitemaps are absolute http(s) URLs, or paths such as "/sitemap.xml" resolved against
	// each request's scheme and host.
	Sitemaps []string `json:"sitemaps,omitempty"`
	// Records are file-level other records, e.g. Host.
	Records []robotsgen.Record `json:"records,omitempty"`
	// MaxAge is the Cache-Control max-age of the response, from 1s to 24h; 0 means 1h.
	MaxAge Duration `json:"max_age,omitempty"`
	// Enforce, if set, answers requests from crawlers that the file disallows (see Enforce).
	Enforce *Enforce `json:"enforce,omitempty"`
	// MergeConfig merges the file with the site's own robots.txt: "merge_file",
	// "merge_upstream", "merge_upstream_timeout".
	MergeConfig
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
}

// file is the robots.txt file the config describes.
func (c *RobotsTxtConfig) file() robotsgen.File {
	return robotsgen.File{Comments: c.Comments, Groups: c.Groups, Sitemaps: c.Sitemaps, Records: c.Records}
}

// Route is a set of robots tags and the requests they apply to.
type Route struct {
	// Paths are path patterns with the semantics of Caddy's path matcher: case-insensitive,
	// "/exact", "/prefix/*", "*.pdf", "*substring*", or a glob. Empty means every path.
	Paths []string `json:"paths,omitempty"`

	// Match, if set, must also accept the request. It is not part of the JSON form.
	Match func(*http.Request) bool `json:"-"`

	TagConfig
}

// TagConfig is the robots tags of a route.
type TagConfig struct {
	// Rules are the robots rules per product token ("*" = every accessor), e.g.
	// {"*": ["noindex"], "examplebot": ["max-snippet=20"]}: noindex, nosnippet, nofollow,
	// none, noarchive, nocache, noimageindex, notranslate, indexifembedded, max-snippet=N,
	// max-video-preview=N, max-image-preview=none|standard|large, unavailable_after=DATE.
	Rules map[string][]string `json:"rules"`

	// Meta also adds <meta name="robots"> (and per-token) elements to the <head> of HTML
	// responses.
	Meta bool `json:"meta,omitempty"`

	// XRobotsTag also sends the legacy X-Robots-Tag header, which the draft deprecates but
	// crawlers read today.
	XRobotsTag bool `json:"x_robots_tag,omitempty"`

	// ContentUsage is the route's AI usage preferences (draft-ietf-aipref-vocab), sent as one
	// Content-Usage response field (draft-ietf-aipref-attach), e.g. {"train-ai": "n",
	// "search": "y"}: keys train-ai and search, or an extension written "+key"; values y or
	// n. The preferences of every matching route and a Content-Usage the handler sent are
	// combined (any n wins, else any y). A route needs Rules, ContentUsage or both.
	ContentUsage map[string]string `json:"content_usage,omitempty"`
}

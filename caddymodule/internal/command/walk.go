package command

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/routewalk"
	"github.com/sitepolicy/caddy-robots/policy"
)

// The commands find the robots handlers of a config with the one walk over its provisioned
// routes (routewalk): check follows one request through the routes of its server; lint, and
// the pairing of handlers with Caddyfile lines, visit every route of a site block.

// Found is a robots handler met in a walk.
type Found struct {
	Handler string // "robots_txt" or "robots_tag"
	Path    string // JSON path of the handler
	// Matchers are the match sets of the routes that lead to the handler, outermost first:
	// those of a route the walk started in (a site block's host matcher) are left out, and
	// each entry is one route's match sets (ORed) as one JSON array; AfterGroupMatcher
	// follows those of a route that comes after a route of its group with matchers.
	Matchers []json.RawMessage
	// Rewritten says whether a rewrite ran before the handler (routewalk.Handler.Rewritten).
	Rewritten bool

	robotsTxt *policy.RobotsTxt // the config of a robots_txt handler
	tags      *policy.Tags      // the config of a robots_tag handler
}

// AfterGroupMatcher stands, in Found.Matchers, for "no earlier route of the handler's group
// matched": the handler's route follows a route of the same group (a handle block before
// it) that has matchers.
var AfterGroupMatcher = json.RawMessage(`[{"` + afterGroupKey + `": true}]`)

const afterGroupKey = "(after its group)"

// matchersOf are the match sets of the routes of way (Found.Matchers), as the config's JSON
// writes them.
func (c *Config) matchersOf(way []routewalk.Level) []json.RawMessage {
	var ms []json.RawMessage
	for _, l := range way {
		if len(l.Route.MatcherSets) > 0 {
			ms = append(ms, c.rawAt(l.Path+".match"))
		}
		if l.AfterGroup {
			ms = append(ms, AfterGroupMatcher)
		}
	}
	return ms
}

// JoinSets keeps a route's match sets (ORed) as one JSON array.
func JoinSets(sets []json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(sets)
	return b
}

// newRequest prepares a request for rawURL from agent (a User-Agent header; none for "" and
// "*") at client as a Caddy server would see it. Without a client (the zero Addr) the
// address is httptest's, 192.0.2.1, a documentation address in no one's ranges, for the IP
// matchers; crawlers, when not nil, then gives the request the identity of an unknown
// address (pending for a verifiable crawler), or its signature's, as check reports it.
// header holds the client's other header lines (a signature's).
func newRequest(rawURL, agent string, header http.Header, client netip.Addr, crawlers Crawlers) *http.Request {
	r := httptest.NewRequest(http.MethodGet, rawURL, nil)
	for k, v := range header {
		r.Header[k] = v
	}
	if agent != "" && agent != "*" {
		r.Header.Set("User-Agent", agent)
	}
	if client.IsValid() {
		r.RemoteAddr = netip.AddrPortFrom(client, 0).String()
	}
	repl := caddy.NewReplacer()
	r = caddyhttp.PrepareRequest(r, repl, httptest.NewRecorder(), &caddyhttp.Server{})
	if !client.IsValid() && crawlers != nil {
		crawlers.Identify(r)
	}
	return r
}

// Follow walks the routes of the server as the request for rawURL from the agent at client
// (the zero Addr: unknown) runs through them, and returns the robots handlers it meets and
// what the walk did to the request.
func (c *Config) Follow(server, rawURL, agent string, header http.Header, client netip.Addr) (found []Found, notes []string, err error) {
	w := c.walk(server, newRequest(rawURL, agent, header, client, c.crawlers), &found)
	_, err = w.Routes(c.servers[server].Routes, "apps.http.servers."+server+".routes")
	return found, w.Notes, err
}

// inSite walks every route of a site block.
func (c *Config) inSite(top topRoute) []Found {
	var found []Found
	_, _ = c.walk(top.server, nil, &found).Route(top.route, top.path) // without a request, a walk has no errors
	return found
}

// SiteHandlers are the robots handlers of every site block, in config order, as lint visits
// them.
func (c *Config) SiteHandlers() []Found {
	var found []Found
	for top := range c.topRoutes() {
		found = append(found, c.inSite(top)...)
	}
	return found
}

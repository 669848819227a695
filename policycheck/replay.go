package policycheck

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
)

// Replay decides requests read from an access log against a site as it is configured now:
// which crawler of the bot catalogue each names, whether it is a request for the site's
// robots.txt, whether it violates the served robots.txt (and the line that disallows it), and,
// when the site verifies crawlers, whether the claim holds from the client address. It is
// what "robots report" asks of every line of a log.
//
// A violation means what enforcement means: the User-Agent names a crawler that a group of
// the served file names (not "*"), and that group disallows the path. Replay reads it with
// the serving core's enforcement (serve.Core.Crawler), whether or not the config enforces its
// file, so that a report and an enforcing server always agree.
//
// A Replay is safe for concurrent use (the report's workers share one).
type Replay struct {
	site   *Site
	core   *serve.Core // the site's robots.txt with enforcement on; nil when it serves none
	robots *robotsText // the file served, for the lines of its rules
	body   []byte      // that file
	mu     sync.Mutex  // guards lines
	lines  map[ruleKey]*RuleInfo
}

type ruleKey struct {
	token string
	rule  robotsgen.Rule
}

// NewReplay prepares the replay of requests to site at origin ("https://example.com"), the
// scheme and host its robots.txt is rendered for. The site's crawler verification
// (Site.Crawlers), if any, answers the identities: give one that fetches and looks up
// nothing (lists ReadOnly or Offline, reverse DNS off) to replay offline.
func NewReplay(site *Site, origin string) (*Replay, error) {
	rp := &Replay{site: site, lines: map[ruleKey]*RuleInfo{}}
	if site.RobotsTxt == nil {
		return rp, nil
	}
	if err := validRobotsTxt(site.RobotsTxt); err != nil {
		return nil, err
	}
	served := offline(site.RobotsTxt)
	core, err := newCore(served, nil, nil)
	if err != nil {
		return nil, err
	}
	body, err := servedBody(core, served, origin)
	core.Close()
	if err != nil {
		return nil, err
	}
	rp.robots, rp.body = readRobots(body), body
	// Enforcement reads the crawler and decides: on here whatever the config says, since a
	// violation is what it would refuse. A file no group of which names a crawler has no
	// violations (serve.New refuses enforcement there).
	enforcing := *served
	enforcing.Config.Enforce = &policy.Enforce{}
	if rp.core, err = newCore(&enforcing, nil, nil); err != nil {
		rp.core = nil
	}
	return rp, nil
}

// Close releases the replay's serving core.
func (rp *Replay) Close() {
	if rp.core != nil {
		rp.core.Close()
	}
}

// RobotsTxt returns the robots.txt the site serves, as replayed; nil when it serves none.
func (rp *Replay) RobotsTxt() []byte {
	if rp.robots == nil {
		return nil
	}
	return rp.body
}

// Replayed is what Replay makes of one request.
type Replayed struct {
	// Bot is the catalogue ID of the bot the User-Agent names (crawlers.IdentifyBotName); ""
	// for none.
	Bot string
	// Name is the crawler's name the User-Agent carries (crawlers.IdentifyBotName): the
	// crawler the request is, of the several an entry may hold; "" for none.
	Name string
	// Token is the name of a group of the served robots.txt that the User-Agent names, as
	// enforcement reads it; "" when it names none.
	Token string
	// RobotsTxt is true when the request is for the site's robots.txt.
	RobotsTxt bool
	// Violation is the rule of the served file that disallows the request's path for Token;
	// nil when the request is no violation. Its Line and Text are 0 and "" for a crawler
	// whose name is never written to the file (a preset's), which enforcement decides with
	// its preset's group.
	Violation *RuleInfo
}

// Request replays a request from agent (its User-Agent header) for target (the path and
// query as sent).
func (rp *Replay) Request(agent, target string) Replayed {
	var out Replayed
	out.Bot, out.Name, _ = crawlers.IdentifyBotName(agent)
	path := target
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	out.RobotsTxt = path == policy.RobotsTxtPath
	if rp.core == nil {
		return out
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		u = &url.URL{Path: path}
	}
	r := &http.Request{Method: http.MethodGet, URL: u, RequestURI: target, Header: http.Header{"User-Agent": {agent}}, Host: u.Host}
	tok, d, ok := rp.core.Crawler(r)
	if !ok {
		return out
	}
	out.Token = tok
	if out.RobotsTxt || d.Allowed || d.Rule == nil {
		return out
	}
	// The file's lines are read as check reads a URL: its path escaped (a log's raw UTF-8
	// "/café/" as "/caf%C3%A9/", as the served file writes its rules).
	esc := u.EscapedPath()
	if esc == "" {
		esc = "/"
	}
	if u.RawQuery != "" {
		esc += "?" + u.RawQuery
	}
	out.Violation = rp.ruleInfo(tok, *d.Rule, esc)
	return out
}

// escapeOctets percent-encodes the octets outside ASCII, as the served file writes a rule's
// path (RFC 9309 section 2.2.2).
func escapeOctets(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= 0x80 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ruleInfo is the rule of the served file that decided for tok, with its line, found once
// per crawler and rule.
func (rp *Replay) ruleInfo(tok string, rule robotsgen.Rule, target string) *RuleInfo {
	k := ruleKey{strings.ToLower(tok), rule}
	rp.mu.Lock()
	ri, ok := rp.lines[k]
	rp.mu.Unlock()
	if ok {
		return ri
	}
	ri = &RuleInfo{Type: string(rule.Type), Path: rule.Path}
	if d := rp.robots.decide(tok, "", target); d.Rule != nil && d.Rule.Type == ri.Type && d.Rule.Path == escapeOctets(ri.Path) {
		ri = d.Rule
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if old, ok := rp.lines[k]; ok {
		return old // found at the same time by another goroutine: one answer for all
	}
	rp.lines[k] = ri
	return ri
}

// Identify returns what the site's crawler verification says of a request from agent at
// client; identity.None without verification, and Pending without an address.
func (rp *Replay) Identify(agent string, client netip.Addr) identity.Identity {
	if rp.site.Crawlers == nil {
		return identity.Identity{}
	}
	return rp.site.Crawlers.Identify(agent, client)
}

// Verifies reports whether the site verifies crawlers (Identify tells impostors).
func (rp *Replay) Verifies() bool { return rp.site.Crawlers != nil }

// NewFileReplay prepares the replay of requests against the robots.txt file at path, as the
// site served it (saved from it: what merge_upstream made of the backend's file, say),
// instead of the file the site's config declares: enforcement decides with the file's groups
// (merged into an empty config, as merge_file merges it), and the lines violations name are
// the lines of the file as saved. The site's crawler verification answers the identities, as
// in NewReplay.
func NewFileReplay(site *Site, path, origin string) (*Replay, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg policy.RobotsTxt
	cfg.MergeFile = path
	s := *site
	s.RobotsTxt = &RobotsTxt{Config: cfg}
	rp, err := NewReplay(&s, origin)
	if err != nil {
		return nil, err
	}
	rp.robots = readRobots(body)
	return rp, nil
}

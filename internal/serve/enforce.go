package serve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// DefaultEnforceStatus is the status a request blocked by enforcement gets when none is
// configured.
const DefaultEnforceStatus = http.StatusForbidden

// Enforcer answers requests from crawlers that the served robots.txt disallows. Only groups
// that name a crawler (a product token or a preset) enforce, never "*": a browser is not
// blocked because "*" disallows a path. A request is blocked when its User-Agent header names
// such a crawler (crawlers.UAMatcher: ASCII case-insensitive, whole words) and the file's
// Matcher disallows its path for that name. Names of presets that are never written to
// robots.txt ("ChatGPT Agent") are matched too, and decided as their group says.
//
// It is safe for concurrent use. A request whose User-Agent names no crawler costs one
// UAMatcher scan and no allocation.
type Enforcer struct {
	status int
	ua     *crawlers.UAMatcher
	m      *robotsgen.Matcher
}

// Block is what Check found: the crawler's name as configured and the rule that disallows.
type Block struct {
	Token string
	Rule  robotsgen.Rule
}

// NewEnforcer prepares enforcement of file, which NewRobotsTxt has accepted, answering with
// status (0 = DefaultEnforceStatus). Errors: a status that is not 4xx or 5xx (path
// "enforce.status"), and a file in which no group names a crawler, where enforcement would
// never apply (path "enforce").
func NewEnforcer(file robotsgen.File, status int) (*Enforcer, error) {
	if status == 0 {
		status = DefaultEnforceStatus
	}
	if status < 400 || status > 599 {
		return nil, configerr.New("enforce.status", fmt.Sprint(status), "the status of a blocked request is a client or server error, 400 to 599 (default 403)")
	}
	ef := file.Expand(true)
	var tokens []string
	for _, g := range ef.Groups {
		for _, ua := range g.UserAgents {
			if ua != "*" {
				tokens = append(tokens, ua)
			}
		}
	}
	if len(tokens) == 0 {
		return nil, configerr.New("enforce", "", "no group names a crawler or a preset, so enforcement would never apply: it answers only crawlers that a group names, never for the * group")
	}
	ua, err := crawlers.NewUAMatcher(tokens)
	if err != nil {
		// Validate accepts only names NewUAMatcher takes.
		return nil, configerr.New("enforce", "", err.Error())
	}
	return &Enforcer{status: status, ua: ua, m: robotsgen.NewMatcher(ef)}, nil
}

// Status is the status a blocked request gets.
func (e *Enforcer) Status() int { return e.status }

// Check reports whether r comes from a crawler that robots.txt disallows for r's path (its
// path and query as sent). Requests for /robots.txt are never blocked.
func (e *Enforcer) Check(r *http.Request) (Block, bool) {
	for _, ua := range r.Header["User-Agent"] {
		tok, ok := e.ua.Match(ua)
		if !ok {
			continue
		}
		d := e.m.Decide(tok, "", requestTarget(r))
		if d.Allowed || d.Rule == nil {
			return Block{}, false
		}
		return Block{Token: tok, Rule: *d.Rule}, true
	}
	return Block{}, false
}

// requestTarget is r's path and query as the client sent them.
func requestTarget(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

// Message is the short text a blocked request is told, and that is logged.
func (b Block) Message() string {
	rule := "Disallow"
	if b.Rule.Type == robotsgen.Allow {
		rule = "Allow"
	}
	return fmt.Sprintf("robots.txt disallows this path for %s (%s: %s)", b.Token, rule, b.Rule.Path)
}

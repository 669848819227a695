package serve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// enforcer answers requests from crawlers that the served robots.txt disallows: the file a
// RobotsTxt serves, merged as it is served (merge_file, and merge_upstream per origin). Only
// groups that name a crawler (a product token or a preset) enforce, never "*": a browser is
// not blocked because "*" disallows a path. A request is blocked when its User-Agent header
// names such a crawler (crawlers.UAMatcher: ASCII case-insensitive, whole words) and the
// file's Matcher disallows its path for that name. Names of presets that are never written
// to robots.txt ("ChatGPT Agent") are matched too, and decided as their group says
// (robotsgen.MergeForMatching).
//
// With merge_upstream, an origin whose robots.txt has been served is decided with the merge
// served there; before that, with the responder's file, which that merge only adds
// restrictions to for the crawlers it names.
//
// It is safe for concurrent use. A request whose User-Agent names no crawler costs one
// UAMatcher scan and no allocation.
type enforcer struct {
	status int
	rt     *robotsTxt
	up     *upstream
}

// enforceState is what enforcement decides with for one version of the served file.
type enforceState struct {
	ua *crawlers.UAMatcher // nil when no group names a crawler
	m  *robotsgen.Matcher
}

// newEnforceState prepares f, a file for matching (robotsgen.File.Expand(true),
// robotsgen.MergeForMatching), for Check.
func newEnforceState(f *robotsgen.File) *enforceState {
	ef := f.Expand(true)
	var tokens []string
	for _, g := range ef.Groups {
		for _, ua := range g.UserAgents {
			if ua != "*" {
				tokens = append(tokens, ua)
			}
		}
	}
	es := &enforceState{m: robotsgen.NewMatcher(ef)}
	if len(tokens) > 0 {
		// Validate and Parse accept only names NewUAMatcher takes.
		es.ua, _ = crawlers.NewUAMatcher(tokens)
	}
	return es
}

// Block is a request enforcement refuses: the crawler's name as configured, the rule that
// disallows the path, and the status to answer with.
type Block struct {
	Token  string
	Rule   robotsgen.Rule
	Status int
}

// newEnforcer prepares enforcement of what rt serves, and of up's merges when up is not nil,
// answering with status (0 = policy.DefaultEnforceStatus). Errors: a status that is not 4xx or 5xx
// (path "enforce.status"), and a file in which no group names a crawler, where enforcement
// would never apply (path "enforce").
func newEnforcer(rt *robotsTxt, up *upstream, status int) (*enforcer, error) {
	if status == 0 {
		status = policy.DefaultEnforceStatus
	}
	if status < 400 || status > 599 {
		return nil, configerr.New("enforce.status", fmt.Sprint(status), "the status of a blocked request is a client or server error, 400 to 599 (default 403)")
	}
	st := rt.state.Load()
	es := newEnforceState(st.matching)
	if es.ua == nil {
		return nil, configerr.New("enforce", "", "no group names a crawler or a preset, so enforcement would never apply: it answers only crawlers that a group names, never for the * group")
	}
	st.enforce.Store(es)
	rt.enforcing.Store(true)
	return &enforcer{status: status, rt: rt, up: up}, nil
}

// Status is the status a blocked request gets.
func (e *enforcer) Status() int { return e.status }

// Check reports whether r comes from a crawler that robots.txt disallows for r's path (its
// path and query as sent). Requests for /robots.txt are never blocked.
func (e *enforcer) Check(r *http.Request) (Block, bool) {
	es := e.stateFor(r)
	if es == nil {
		return Block{}, false
	}
	for _, ua := range r.Header["User-Agent"] {
		tok, ok := es.ua.Match(ua)
		if !ok {
			continue
		}
		b, blocked := es.block(tok, r)
		b.Status = e.status
		return b, blocked
	}
	return Block{}, false
}

func (es *enforceState) block(tok string, r *http.Request) (Block, bool) {
	d := es.m.Decide(tok, "", requestTarget(r))
	if d.Allowed || d.Rule == nil {
		return Block{}, false
	}
	return Block{Token: tok, Rule: *d.Rule}, true
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

// Crawler returns the crawler that r's User-Agent names, as Check reads it, and the decision
// of the file enforcement reads for it at r's path; ok is false when the header names none.
func (e *enforcer) Crawler(r *http.Request) (token string, d robotsgen.Decision, ok bool) {
	es := e.stateFor(r)
	if es == nil {
		return "", robotsgen.Decision{}, false
	}
	for _, ua := range r.Header["User-Agent"] {
		if tok, ok := es.ua.Match(ua); ok {
			return tok, es.m.Decide(tok, "", requestTarget(r)), true
		}
	}
	return "", robotsgen.Decision{}, false
}

// stateFor is what enforcement decides with for r: the merge served at r's origin, else the
// responder's file; nil when no group names a crawler.
func (e *enforcer) stateFor(r *http.Request) *enforceState {
	es := e.rt.state.Load().enforce.Load()
	if e.up != nil {
		if hs := e.up.enforceFor(r); hs != nil {
			es = hs
		}
	}
	if es == nil || es.ua == nil {
		return nil
	}
	return es
}

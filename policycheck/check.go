package policycheck

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/internal/httplex"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/usage"
)

// Request is what Check explains: one crawler fetching one URL.
type Request struct {
	// URL is the absolute http or https URL fetched.
	URL string
	// Agent is the crawler: a product token ("Googlebot") or a whole User-Agent header
	// ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"), from
	// which the product token is taken. Empty or "*" means any crawler.
	Agent string
	// Purpose is the crawler's User-Agent-Purpose token (draft-illyes-rep-purpose), if any.
	Purpose string
	// BackendHeaders are "Name: value" header lines the backend sends itself (e.g. a
	// "Robots-Tag: ..." of an app), which the response merges with the config's tags.
	BackendHeaders []string
	// RobotsFile, when not nil, is the robots.txt to decide with instead of the site's.
	RobotsFile []byte
	// RobotsFileName names RobotsFile in the report.
	RobotsFileName string
	// ClientIP is the client's address as the server trusts it (after its trusted proxies),
	// e.g. "66.249.66.1"; "" for none. When the site verifies crawlers (Site.Crawlers), the
	// crawler the Agent names is verified from it.
	ClientIP string
	// Headers are "Name: value" lines the client sends besides its User-Agent (which is
	// Agent): a Web Bot Auth signature's Signature-Input, Signature and Signature-Agent, and
	// the fields it covers. When the site verifies signatures (Site.Signatures), the
	// signature is judged as the server judges it.
	Headers []string
}

// Report is Check's answer. Its JSON form is the output of "check --format json"; the
// package documentation of the fields is the schema (testdata/check-*.json are examples).
type Report struct {
	// URL is the URL checked.
	URL string `json:"url"`
	// Agent is the agent as given.
	Agent string `json:"agent"`
	// ProductToken is the product token robots.txt groups are matched against ("*" for any
	// crawler).
	ProductToken string `json:"product_token"`
	// AgentNote says how the token was taken from a User-Agent header, if it was.
	AgentNote string `json:"agent_note,omitempty"`
	// Purpose is the crawler's purpose token, if given.
	Purpose string `json:"purpose,omitempty"`
	// Allowed is robots.txt's answer: may the crawler fetch the URL? It is the exit status
	// of check (0 allowed, 1 disallowed).
	Allowed bool `json:"allowed"`
	// RobotsTxt is the robots.txt decision.
	RobotsTxt RobotsDecision `json:"robots_txt"`
	// Response is what the config adds to the response for the URL.
	Response ResponseTags `json:"response"`
	// Preferences are the AI usage preferences robots.txt states for the crawler and path.
	Preferences Preferences `json:"preferences"`
	// Enforcement says whether the config's enforcement would answer the request itself.
	Enforcement Enforcement `json:"enforcement"`
	// Payment is what the site's pay per crawl (robots_txt's pay, x402) asks of the request:
	// the price a verified crawler of the User-Agent is asked for the URL, and whether this
	// request is asked it; absent when the site charges no crawler.
	Payment *Payment `json:"payment,omitempty"`
	// Verification is what the site's crawler verification says of the request (its
	// identity) and the state of its lists; absent when the site verifies no crawlers.
	Verification *Verification `json:"verification,omitempty"`
	// SignalConflicts are the uses on which two of the site's signals (robots.txt
	// Content-Usage and Content-Signal, the Content-Usage header, ...) disagree for this
	// crawler at this URL, as lint's signal-conflict finds them; empty when they agree.
	SignalConflicts []SignalConflict `json:"signal_conflicts"`
	// Notes are remarks on the combination, e.g. tags the crawler never sees.
	Notes []string `json:"notes,omitempty"`
}

// Preferences are the effective AI usage preferences of robots.txt for one crawler and path
// (robotsgen.Matcher.Preferences: only a path the crawler may fetch has any), in their
// configuration form ({"train-ai": "n"}); empty objects when the file states none.
type Preferences struct {
	// ContentUsage are the Content-Usage preferences (draft-ietf-aipref-vocab).
	ContentUsage map[string]string `json:"content_usage"`
	// ContentSignal are the Content-Signal preferences (draft-romm-aipref-contentsignals).
	ContentSignal map[string]string `json:"content_signal"`
}

// Enforcement is what robots_txt's enforce option does with the request: it answers
// requests whose User-Agent header names a crawler of a named group, for a path that group
// disallows, with Status instead of passing them on.
type Enforcement struct {
	// Configured is true when the config enforces its robots.txt.
	Configured bool `json:"configured"`
	// Blocked is true when the request (with the agent as its User-Agent header) is answered
	// with Status.
	Blocked bool `json:"blocked"`
	// Status is the status of a blocked request; 0 when not blocked.
	Status int `json:"status,omitempty"`
	// Message is the text a blocked request is told.
	Message string `json:"message,omitempty"`
	// Impostor is true when the request is blocked because its identity is an impostor
	// (enforce's impostors: Verification.Identity.Reason says what failed), not for a rule
	// of the file.
	Impostor bool `json:"impostor,omitempty"`
}

// RobotsDecision is the robots.txt decision for one crawler and path.
type RobotsDecision struct {
	// Source is "config" for the site's robots.txt, or the name of the file given.
	Source string `json:"source"`
	// Location is where the config's robots_txt handler is; absent for a file.
	Location *Location `json:"location,omitempty"`
	// Origin is the scheme and host the config's file was rendered for.
	Origin string `json:"origin,omitempty"`
	// Served is false when the config serves no robots.txt for the URL: everything is
	// allowed.
	Served bool `json:"served"`
	// Path is the URL path and query that the rules were matched against.
	Path string `json:"path"`
	// Allowed says whether the crawler may fetch the path.
	Allowed bool `json:"allowed"`
	// Group is the group the crawler obeys; null when none applies.
	Group *GroupInfo `json:"group"`
	// Rule is the rule that decided; null when no rule matches (the path is allowed).
	Rule *RuleInfo `json:"rule"`
	// Reason explains the decision in one sentence.
	Reason string `json:"reason"`
	// Diagnostics are the lines of the file that crawlers skip or read differently than
	// written ("line N: reason: text"); our own files have none.
	Diagnostics []string `json:"diagnostics,omitempty"`
}

// GroupInfo is the robots.txt group a crawler obeys.
type GroupInfo struct {
	// Index is the group's index among the file's groups, in file order, from 0.
	Index int `json:"index"`
	// Line is the line (from 1) of the user-agent or purpose line that starts the group.
	Line int `json:"line"`
	// MergedLines are the lines of further groups naming the same token, whose rules are
	// merged with this group's.
	MergedLines []int    `json:"merged_lines,omitempty"`
	UserAgents  []string `json:"user_agents"`
	Purposes    []string `json:"purposes,omitempty"`
	// MatchedBy is "product_token", "purpose" or "star".
	MatchedBy string `json:"matched_by"`
	// Matched is the token or purpose that matched, or "*".
	Matched string `json:"matched"`
}

// RuleInfo is the allow or disallow line that decided.
type RuleInfo struct {
	// Type is "allow" or "disallow".
	Type string `json:"type"`
	// Path is the rule's pattern.
	Path string `json:"path"`
	// Line is the line of the rule in the file, from 1.
	Line int `json:"line"`
	// Text is that line as written.
	Text string `json:"text"`
}

// ResponseTags is what the config adds to a response for the URL (a 200 HTML page for the
// meta elements), merged with the backend headers given.
type ResponseTags struct {
	// Routes are the robots_tag routes that apply, in order.
	Routes []Location `json:"routes"`
	// RobotsTxtResponder is true when the URL is the site's robots.txt, which the responder
	// answers itself: no robots_tag route and no backend takes part.
	RobotsTxtResponder bool `json:"robots_txt_responder,omitempty"`
	// BackendHeaders are the backend's header lines given to the check.
	BackendHeaders []string `json:"backend_headers,omitempty"`
	// RobotsTag is the Robots-Tag field value sent; "" for none.
	RobotsTag string `json:"robots_tag"`
	// XRobotsTag are the X-Robots-Tag field lines sent; empty for none.
	XRobotsTag []string `json:"x_robots_tag"`
	// Meta are the <meta> elements inserted into the <head> of HTML pages; "" for none.
	Meta string `json:"meta"`
	// ContentUsage is the Content-Usage field sent (the routes' content_usage combined with
	// the backend's); "" for none.
	ContentUsage string `json:"content_usage"`
	// TDMReservation and TDMPolicy are the TDMRep tdm-reservation and tdm-policy fields sent
	// (the routes' tdm combined with the backend's); "" for none.
	TDMReservation string `json:"tdm_reservation,omitempty"`
	TDMPolicy      string `json:"tdm_policy,omitempty"`
	// RulesForAgent are the Robots-Tag rules that apply to the crawler's product token (its
	// own and those for "*").
	RulesForAgent []string `json:"rules_for_agent"`
}

// RequestError is a Request that Check cannot answer.
type RequestError struct {
	// Field is the field of Request at fault: "URL", "BackendHeaders", "ClientIP" or
	// "Headers".
	Field string
	// Value is the value at fault: the URL, the header line or the address.
	Value string
	// Problem says what is wrong and what would be right.
	Problem string
}

func (e *RequestError) Error() string {
	what := e.Field
	switch e.Field {
	case "BackendHeaders":
		what = "backend header line"
	case "Headers":
		what = "header line"
	}
	return fmt.Sprintf("%s %q: %s", what, e.Value, e.Problem)
}

// Check explains what the crawler of req sees at req.URL on site: the robots.txt decision,
// the tags of the response and, when the site verifies crawlers, the request's identity. An
// error is a problem with the request (a *RequestError) or with the config.
func Check(site *Site, req Request) (*Report, error) {
	u, probe, addr, err := checkRequest(req)
	if err != nil {
		return nil, err
	}
	rep := &Report{URL: req.URL, Agent: req.Agent, Purpose: req.Purpose}
	identify := rep.identify(site, req, probe, addr)
	// One core answers every question below, as one serves a request.
	core, err := checkCore(site, identify)
	if err != nil {
		return nil, err
	}
	if core != nil {
		defer core.Close()
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	robots, err := rep.readRobots(core, site, req, u, path)
	if err != nil {
		return nil, err
	}
	rep.decideRobots(core, site, req, probe, robots)
	if robots != nil {
		rep.Preferences.ContentUsage = robots.m.Preferences(usage.ContentUsage, rep.ProductToken, req.Purpose, path).Map()
		rep.Preferences.ContentSignal = robots.m.Preferences(usage.ContentSignal, rep.ProductToken, req.Purpose, path).Map()
	}
	if rep.Enforcement.Configured {
		if b, blocked := core.Enforce(probe); blocked {
			rep.Enforcement.Blocked, rep.Enforcement.Status, rep.Enforcement.Message = true, b.Status, b.Message()
			rep.Enforcement.Impostor = b.Impostor != nil
		}
	}
	rep.pay(core, site, probe, identify)
	if err := rep.respond(core, site, req, u, probe, path); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkRequest reads req: the URL, and the request as the client sends it (its User-Agent
// and header lines) with the client's address.
func checkRequest(req Request) (*url.URL, *http.Request, netip.Addr, error) {
	u, ok := httplex.AbsoluteURL(req.URL)
	if !ok {
		return nil, nil, netip.Addr{}, &RequestError{Field: "URL", Value: req.URL, Problem: httplex.NotAbsoluteURL + ", e.g. https://example.com/page.html"}
	}
	addr, err := req.ClientAddr()
	if err != nil {
		return nil, nil, netip.Addr{}, err
	}
	header, err := clientHeader(req)
	if err != nil {
		return nil, nil, netip.Addr{}, err
	}
	probe := httptest.NewRequest(http.MethodGet, u.String(), nil)
	for k, v := range header {
		probe.Header[k] = v
	}
	probe.Header.Set("User-Agent", req.Agent)
	return u, probe, addr, nil
}

// identify verifies the crawler of probe as site does (its lists and reverse DNS, then its
// signature), into rep.Verification, and returns the identity found for enforcement to read,
// as a server's reads it; nil when the site verifies nothing.
func (rep *Report) identify(site *Site, req Request, probe *http.Request, addr netip.Addr) func(*http.Request) identity.Identity {
	var id identity.Identity
	if site.Crawlers != nil {
		rep.Verification, id = verify(site.Crawlers, req, addr)
		bot, _ := crawlers.BotByID(id.Bot)
		if rep.Verification.byDNS(id, bot) {
			rep.Notes = append(rep.Notes, "reverse DNS was looked up for this check; a server answers the first requests from an address as pending (and enforce lets them through) until its own lookup is in, unless it waits for a first answer (DNSOptions.Wait, Caddy's dns_wait), then keeps the answer (a day when confirmed, an hour when not)")
		}
	} else if req.ClientIP != "" {
		rep.Notes = append(rep.Notes, "the site verifies no crawlers, so the client address is not used")
	}
	if len(probe.Header["Signature-Input"]) > 0 {
		if site.Signatures == nil {
			rep.Notes = append(rep.Notes, "the site verifies no Web Bot Auth signatures, so the request's signature is not looked at")
		} else {
			if rep.Verification == nil {
				rep.Verification = &Verification{ClientIP: req.ClientIP, Lists: []CrawlerList{}, signaturesOnly: true}
				rep.Verification.describe(id, addr)
			}
			v := rep.Verification
			var sig *Signature
			unsigned := v.Identity
			sig, id = judgeSignature(site.Signatures, probe, id)
			if sig.Decided {
				v.describe(id, addr)
				v.Identity.Reason = sig.identityReason(id)
				sig.UnsignedIdentity = &unsigned
			}
			v.Signature = sig
		}
	}
	if rep.Verification == nil {
		return nil
	}
	return func(*http.Request) identity.Identity { return id }
}

// readRobots reads the robots.txt the crawler decides with: req's file, else the one site
// serves at u's origin (nil when it serves none), and says in rep.RobotsTxt where it is from.
func (rep *Report) readRobots(core *serve.Core, site *Site, req Request, u *url.URL, path string) (*robotsText, error) {
	rd := RobotsDecision{Path: path, Allowed: true}
	var robots *robotsText
	switch {
	case req.RobotsFile != nil:
		robots = readRobots(req.RobotsFile)
		rd.Source = req.RobotsFileName
		if rd.Source == "" {
			rd.Source = "file"
		}
	case site.RobotsTxt != nil:
		origin := u.Scheme + "://" + u.Host
		body, err := servedBody(core, site.RobotsTxt, origin)
		if err != nil {
			return nil, err
		}
		robots = readRobots(body)
		loc := site.RobotsTxt.Source.At("")
		rd.Source, rd.Location, rd.Origin = "config", &loc, origin
		if site.RobotsTxt.Config.MergeUpstream {
			// The backend's file is known only at serve time. The merge never lifts a
			// restriction of the file shown, so a disallow here holds; an allow may not.
			rep.Notes = append(rep.Notes, "robots_txt merges the backend's own robots.txt at serve time (merge_upstream), which check cannot see: the decision is the declared file's (with merge_file's). A disallow holds in the merge; an allow holds only where the declared group has a matching Allow. To decide with the backend's rules too, save its robots.txt and pass it as merge_file, or check the served file with --robots-file")
		}
	default:
		rd.Source = "config"
		rd.Reason = "this config serves no robots.txt for " + u.Scheme + "://" + u.Host + ": everything is allowed"
	}
	rep.RobotsTxt = rd
	return robots, nil
}

// decideRobots finds the crawler's product token and decides robots.txt for it at the
// path. With enforce, the crawler is the one enforcement reads from the User-Agent, so that
// the decision shown and the enforcement shown are about the same crawler.
func (rep *Report) decideRobots(core *serve.Core, site *Site, req Request, probe *http.Request, robots *robotsText) {
	var fileTokens []string
	if robots != nil {
		for _, g := range robots.file.Groups {
			fileTokens = append(fileTokens, g.UserAgents...)
		}
	}
	rep.ProductToken, rep.AgentNote = productToken(req.Agent, fileTokens)
	var enfTok string
	var enfDecision robotsgen.Decision
	if rt := site.RobotsTxt; rt != nil && rt.Config.Enforce != nil && req.RobotsFile == nil {
		rep.Enforcement.Configured = true
		var ok bool
		if enfTok, enfDecision, ok = core.Crawler(probe); ok && !strings.EqualFold(enfTok, rep.ProductToken) {
			rep.ProductToken, rep.AgentNote = enfTok, fmt.Sprintf("found the crawler name %q in the User-Agent header, as enforcement reads it", enfTok)
		}
	}
	rep.Preferences = Preferences{ContentUsage: map[string]string{}, ContentSignal: map[string]string{}}
	if robots == nil {
		rep.Allowed = rep.RobotsTxt.Allowed
		return
	}
	rd := &rep.RobotsTxt
	src, loc, origin := rd.Source, rd.Location, rd.Origin
	*rd = robots.decide(rep.ProductToken, req.Purpose, rd.Path)
	rd.Source, rd.Location, rd.Origin = src, loc, origin
	for _, d := range robots.diags {
		rd.Diagnostics = append(rd.Diagnostics, d.Error())
	}
	if enfTok != "" && !crawlers.IsToken(enfTok) && req.Purpose == "" {
		// The name cannot be written to robots.txt; its preset's group decides for it
		// where enforcement does.
		rd.Allowed, rd.Group, rd.Rule = enfDecision.Allowed, nil, nil
		if r := enfDecision.Rule; r != nil {
			rd.Rule = &RuleInfo{Type: string(r.Type), Path: r.Path}
		}
		rd.Reason = fmt.Sprintf("%q is never written to robots.txt (it is not a product token), so no group of the file names it; enforce decides it as the group of its preset, and so does this check", enfTok)
	}
	rep.Allowed = rd.Allowed
}

// respond reads the response's tags for the crawler, the signals that disagree at the path,
// and notes the rules of a response robots.txt keeps the crawler from.
func (rep *Report) respond(core *serve.Core, site *Site, req Request, u *url.URL, probe *http.Request, path string) error {
	resp, err := responseTags(core, site, u, req)
	if err != nil {
		return err
	}
	rep.Response = *resp
	rep.SignalConflicts = []SignalConflict{}
	if req.RobotsFile == nil && !resp.RobotsTxtResponder {
		var routes []int
		if core != nil {
			routes = core.Routes(probe)
		}
		rep.SignalConflicts = signalConflictsAt(site, rep.ProductToken, req.Purpose, path, routes)
	}
	if p, _ := tagemit.ParseRobotsTag([]string{resp.RobotsTag}); resp.RobotsTag != "" {
		rep.Response.RulesForAgent = p.RulesFor(rep.ProductToken)
	}
	if rep.Response.RulesForAgent == nil {
		rep.Response.RulesForAgent = []string{}
	}
	if !rep.Allowed && len(rep.Response.RulesForAgent) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("robots.txt keeps %s from fetching this URL, so it never sees the rules of the response (%s); a disallowed URL can still be indexed from links: allow it in robots.txt if the rules must apply", rep.ProductToken, strings.Join(rep.Response.RulesForAgent, ", ")))
	}
	return nil
}

// htmlPage is the page the check's backend answers, to see the meta elements inserted.
const htmlPage = "<!DOCTYPE html><html><head><title>check</title></head><body></body></html>"

// responseTags runs core, the check's core of site, on a request for u with a backend sending
// req.BackendHeaders and an HTML page, and reads what the response carries from the routes
// that apply.
func responseTags(core *serve.Core, site *Site, u *url.URL, req Request) (*ResponseTags, error) {
	out := &ResponseTags{Routes: []Location{}, XRobotsTag: []string{}, BackendHeaders: req.BackendHeaders}
	backend, err := requestHeader(req.BackendHeaders, "BackendHeaders", "Robots-Tag: noindex")
	if err != nil {
		return nil, err
	}
	r := httptest.NewRequest(http.MethodGet, u.String(), nil)
	// The site's robots.txt responder is in front, as when serving: it answers /robots.txt
	// itself, without tags. Enforcement is not asked here (Check reports it separately).
	if site.RobotsTxt == nil && len(site.Routes) == 0 {
		return out, nil
	}
	if core.IsRobotsTxt(r) {
		// The robots.txt responder answers: no route and no backend header applies.
		out.RobotsTxtResponder = true
		return out, nil
	}
	for _, i := range core.Routes(r) {
		out.Routes = append(out.Routes, site.Routes[i].Source.At(""))
	}
	rec := httptest.NewRecorder()
	_ = core.Tag(rec, r, serve.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error {
		for k, v := range backend {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, err := w.Write([]byte(htmlPage))
		return err
	}))
	hdr := rec.Result().Header
	out.RobotsTag = strings.Join(hdr.Values("Robots-Tag"), ", ")
	out.ContentUsage = strings.Join(hdr.Values("Content-Usage"), ", ")
	out.TDMReservation = strings.Join(hdr.Values("Tdm-Reservation"), ", ")
	out.TDMPolicy = strings.Join(hdr.Values("Tdm-Policy"), ", ")
	if v := hdr.Values("X-Robots-Tag"); len(v) > 0 {
		out.XRobotsTag = v
	}
	body := rec.Body.Bytes()
	if i, j := bytes.Index(body, []byte("<head>")), bytes.Index(body, []byte("<title>")); i >= 0 && j > i {
		out.Meta = string(body[i+len("<head>") : j])
	}
	return out, nil
}

// productToken returns the product token robots.txt groups are matched against for agent
// (crawlers.AgentToken, the file's names fileTokens first) and, when agent is a User-Agent
// header, a note on how the token was found.
func productToken(agent string, fileTokens []string) (token, note string) {
	token, found := crawlers.AgentToken(agent, fileTokens)
	switch found {
	case crawlers.FoundName:
		note = fmt.Sprintf("found the crawler name %q in the User-Agent header", token)
	case crawlers.FoundProduct:
		note = fmt.Sprintf("no known crawler name in the User-Agent header: using the product %q it names as its own", token)
	case crawlers.FoundFirst:
		note = fmt.Sprintf("no known crawler name in the User-Agent header: using its first product %q", token)
	case crawlers.FoundNone:
		note = "no product token in the User-Agent header: read as any crawler (*)"
	}
	return token, note
}

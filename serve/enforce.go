package serve

import (
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/webbotauth"
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
	// refuse is set when enforcement is configured; without it the enforcer only observes
	// (observe), and refuses nothing.
	refuse bool
	status int
	rt     *robotsTxt
	up     *upstream
	// impostors is the status of a request whose claim to be a crawler fails verification
	// (its identity says so); 0 when impostors are not answered.
	impostors int
	// identified is set when requests come with their identities (Options.Identify).
	identified bool
	// acceptSignature is the Accept-Signature value refusals carry; "" for none.
	acceptSignature string
	// observe, if not nil, counts and reports requests from crawlers (Options.Counters,
	// Options.LogViolations); Check then decides once for all of them (checkObserved).
	observe *observer
	// crawlDelay answers crawlers that ask sooner than their group's crawl_delay
	// (Enforce.CrawlDelay); it needs observe.
	crawlDelay bool
	// refusals limits the refusals logged, by crawler and kind (refusalKey).
	refusals *logLimit
	// store, if set, holds the fleet's crawl-delay budgets (Options.Store).
	store fleet.Store
	// log is Options.Logger (nil: none), which says whether a refusal's line would be
	// written at all: one that would not is not worth a round trip to the store.
	log *slog.Logger
}

// enforceState is what enforcement decides with for one version of the served file.
type enforceState struct {
	ua *crawlers.UAMatcher // nil when no group names a crawler
	m  *robotsgen.Matcher
	// custom is set when a group names a crawler that crawlers.IdentifyBot does not know, so
	// that a header naming no bot of the catalogue must be scanned for the file's names.
	custom bool
	// delays are the crawl-delay budgets of the names whose groups have a crawl_delay (by
	// the name as UAMatcher returns it), made when the state is.
	delays map[string]*delaySlot
	// crawlers are the metrics slots of all the names (metrics.CrawlerNamed), which key the
	// refusal log's limit.
	crawlers map[string]metrics.Crawler
	// slots are the metrics slots of the names (metrics.CrawlerNamed), for requests whose
	// User-Agent names no bot of the catalogue (a crawler only the AI catalogue knows).
	slots map[string]metrics.Crawler
}

// newEnforceState prepares f, a file for matching (robotsgen.File.Expand(true),
// robotsgen.MergeForMatching), for Check. prev, if not nil, is the state of the version of
// the file it replaces: a name whose crawl delay is unchanged keeps its budget, so that a new
// version (merge_file changed, an origin's robots.txt merged again) grants no early request.
func newEnforceState(f *robotsgen.File, prev *enforceState) *enforceState {
	ef := f.Expand(true)
	var tokens []string
	for _, g := range ef.Groups {
		for _, ua := range g.UserAgents {
			if ua != "*" {
				tokens = append(tokens, ua)
			}
		}
	}
	es := &enforceState{m: robotsgen.NewMatcher(ef), crawlers: make(map[string]metrics.Crawler, len(tokens))}
	for _, t := range tokens {
		es.crawlers[t] = metrics.CrawlerNamed(t)
		if _, ok := crawlers.IdentifyBot(t); !ok {
			es.custom = true
			if es.slots == nil {
				es.slots = make(map[string]metrics.Crawler)
			}
			es.slots[t] = metrics.CrawlerNamed(t)
		}
	}
	for _, t := range tokens {
		if _, ok := es.delays[t]; ok {
			continue
		}
		groups, _ := es.m.Select(t, "")
		var delay float64
		for _, g := range groups {
			delay = max(delay, ef.Groups[g].CrawlDelay)
		}
		if delay > 0 {
			if es.delays == nil {
				es.delays = make(map[string]*delaySlot)
			}
			d := enforcedDelay(delay)
			if old := prev.delaySlot(t); old != nil && old.delay == d {
				es.delays[t] = old
			} else {
				es.delays[t] = newDelaySlot(d)
			}
		}
	}
	if len(tokens) > 0 {
		// Validate and Parse accept only names NewUAMatcher takes.
		es.ua, _ = crawlers.NewUAMatcher(tokens)
	}
	return es
}

// Block is a request enforcement refuses: the crawler's name as configured, the rule that
// disallows the path, and the status to answer with; or, for an impostor, the identity it
// failed to prove.
type Block struct {
	Token  string
	Rule   robotsgen.Rule
	Status int
	// AcceptSignature, if not "", is the Accept-Signature field the refusal carries
	// (Enforce.AcceptSignature), which ServeHTTP sets.
	AcceptSignature string
	// RetryAfter, when not 0, is the Retry-After of a request refused for asking sooner than
	// its group's crawl_delay (Enforce.CrawlDelay), in whole seconds, which ServeHTTP sets. Such a
	// refusal is logged at debug level: it is frequent, and the counters count each.
	RetryAfter int
	// Impostor is set when the request was refused because its identity is an impostor
	// (Enforce.Impostors): its User-Agent names a crawler whose verification it fails, or its
	// Web Bot Auth signature fails (identity.Identity.Failure says which). Token is then the
	// crawler's name the User-Agent carries (identity.Identity.Name), or the first name of the
	// bot whose claim failed ("" for a signature of an agent the config does not trust), and
	// Rule is zero.
	Impostor *identity.Identity
	// Unlogged is set when the refusal is not logged: its crawler (the one
	// claimed, for an impostor) has had ViolationBurst refusals of its kind (a rule,
	// impostor, crawl-delay) logged in the current ViolationInterval. A client repeating a
	// refused request cannot flood the log; the counters count every refusal.
	Unlogged bool
	// Suppressed is how many refusals of this crawler and kind were not logged since the last
	// one logged, logged with the refusal ("suppressed").
	Suppressed int

	// crawler keys the refusal log's limit: the slot of the name refused (Token), or of the
	// crawler an impostor claims.
	crawler metrics.Crawler
}

// maxEnforcedCrawlDelay is the longest crawl delay enforcement holds a crawler to: a group's
// longer Crawl-delay (robots.txt may carry any number) is enforced as this long, never
// ignored.
const maxEnforcedCrawlDelay = 24 * time.Hour

// enforcedDelay is a group's crawl delay in seconds (> 0) as enforcement holds it: at most
// maxEnforcedCrawlDelay, so that no value overflows a time.Duration.
func enforcedDelay(seconds float64) time.Duration {
	if seconds >= maxEnforcedCrawlDelay.Seconds() {
		return maxEnforcedCrawlDelay
	}
	return time.Duration(seconds * float64(time.Second))
}

// delaySlot returns the budget of name in es, nil if es is nil or has none.
func (es *enforceState) delaySlot(name string) *delaySlot {
	if es == nil {
		return nil
	}
	return es.delays[name]
}

// delaySlot is one crawler's crawl-delay budget: the earliest time its next request is
// served, as a reading of the observer's monotonic clock (observer.elapsed), for requests
// not verified ([0]: without verification, every request) and for verified ones ([1]), so
// that a claim cannot use up the budget of the crawler it claims to be.
type delaySlot struct {
	delay time.Duration
	next  [2]atomic.Int64 // math.MinInt64: none served yet
}

func newDelaySlot(delay time.Duration) *delaySlot {
	s := &delaySlot{delay: delay}
	s.next[0].Store(math.MinInt64)
	s.next[1].Store(math.MinInt64)
	return s
}

// take serves a request at now (a reading of the observer's clock) from budget k, or reports
// how long until one is served. A request is refused only within delay of the last one
// served: a clock that went back (an injected one; the default is monotonic) never refuses
// for longer than delay.
func (s *delaySlot) take(k int, now time.Duration) (wait time.Duration, limited bool) {
	n := int64(now)
	for {
		next := s.next[k].Load()
		if n < next && next-n <= int64(s.delay) {
			return time.Duration(next - n), true
		}
		if s.next[k].CompareAndSwap(next, n+int64(s.delay)) {
			return 0, false
		}
	}
}

// held reports whether budget k is known to be taken at now (hold), and for how long more.
// Like take, it never refuses for longer than delay.
func (s *delaySlot) held(k int, now time.Duration) (wait time.Duration, limited bool) {
	next := s.next[k].Load()
	if n := int64(now); n < next && next-n <= int64(s.delay) {
		return time.Duration(next - n), true
	}
	return 0, false
}

// hold records that budget k is taken until at least until (a reading of the observer's
// clock): the fleet's store said so (enforcer.takeDelay). A later hold never shortens an
// earlier one.
func (s *delaySlot) hold(k int, until time.Duration) {
	u := int64(until)
	for {
		next := s.next[k].Load()
		if next >= u || s.next[k].CompareAndSwap(next, u) {
			return
		}
	}
}

// retryAfter is wait in whole seconds, rounded up, at least 1.
func retryAfter(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

// newEnforcer prepares enforcement of what rt serves, and of up's merges when up is not nil,
// as cfg says (a zero status is policy.DefaultEnforceStatus), and the observation of
// requests opts asks for (Counters, Violations); cfg is nil when only observing. opts.Identify,
// when set, is the request's crawler identity, which impostors are refused by. Errors: a
// status that is not 4xx or 5xx (path "enforce.status", "enforce.impostors.status"), and an
// enforcement that would never apply: a file in which no group names a crawler (path
// "enforce").
func newEnforcer(rt *robotsTxt, up *upstream, cfg *policy.Enforce, opts Options) (*enforcer, error) {
	e := &enforcer{rt: rt, up: up, observe: newObserver(opts, false), identified: opts.Identify != nil,
		refusals: newLogLimit(metrics.NumCrawlers()*refusalKinds, opts), store: opts.Store, log: opts.Logger}
	e.refusals.store, e.refusals.name = opts.Store, refusalLimitName
	st := rt.state.Load()
	es := newEnforceState(st.matching, nil)
	if cfg != nil {
		status, err := enforceStatus(cfg.Status, "enforce.status")
		if err != nil {
			return nil, err
		}
		var impostors int
		if cfg.Impostors != nil {
			if impostors, err = enforceStatus(cfg.Impostors.Status, "enforce.impostors.status"); err != nil {
				return nil, err
			}
		}
		if es.ua == nil && cfg.Impostors == nil {
			return nil, configerr.New("enforce", "", "no group names a crawler or a preset, so enforcement would never apply: it answers only crawlers that a group names, never for the * group")
		}
		if cfg.CrawlDelay && len(es.delays) == 0 {
			return nil, configerr.New("enforce.crawl_delay", "", "no group that names a crawler has a crawl_delay, so crawl-delay enforcement would never apply (the * group's is not enforced)")
		}
		e.crawlDelay = cfg.CrawlDelay
		if e.crawlDelay && e.observe == nil {
			e.observe = newObserver(opts, true)
		}
		e.refuse, e.status = true, status
		if cfg.AcceptSignature {
			e.acceptSignature = webbotauth.AcceptSignature("sig1")
		}
		if opts.Identify != nil {
			e.impostors = impostors
		}
	}
	st.enforce.Store(es)
	rt.enforcing.Store(true)
	return e, nil
}

// enforceStatus is the status a refused request gets: 0 means policy.DefaultEnforceStatus;
// anything but a client or server error is an error at path.
func enforceStatus(status int, path string) (int, error) {
	if status == 0 {
		return policy.DefaultEnforceStatus, nil
	}
	if status < 400 || status > 599 {
		return 0, configerr.New(path, fmt.Sprint(status), "the status of a blocked request is a client or server error, 400 to 599 (default 403)")
	}
	return status, nil
}

// Status is the status a blocked request gets.
func (e *enforcer) Status() int { return e.status }

// identifies reports whether the enforcer reads the identities of requests: to answer
// impostors, or to count, report and give crawl-delay budgets by identity status.
func (e *enforcer) identifies() bool {
	return e.identified && (e.impostors != 0 || e.observe != nil)
}

// Check reports whether r, whose identity is id (zero without Options.Identify), comes from a
// crawler that robots.txt disallows for r's path (its path and query as sent), is an
// impostor, or is over its crawl-delay. Requests for /robots.txt are never blocked. A
// refusal says whether to log it (Block.Unlogged, Block.Suppressed).
func (e *enforcer) Check(r *http.Request, id identity.Identity) (Block, bool) {
	return e.checkSeen(r, id, nil)
}

// checkSeen is Check that also tells, through sn when not nil, what observation found of r
// (which crawler, its status), for the counts of platforms (platformVisit).
func (e *enforcer) checkSeen(r *http.Request, id identity.Identity, sn *seen) (Block, bool) {
	b, blocked := e.check(r, id, sn)
	if blocked {
		n, ok := e.allowRefusalLine(r, b)
		b.Unlogged, b.Suppressed = !ok, n
	}
	return b, blocked
}

// refusalKinds are the kinds of refusal logged within limits of their own: by a rule, as an
// impostor, for crawl-delay.
const refusalKinds = 3

// refusalKey is b's key in the refusal log's limit: its crawler's metrics slot (the crawler
// claimed, for an impostor; a name neither catalogue knows shares metrics.Other) and kind.
func refusalKey(b Block) int {
	kind := 0
	switch {
	case b.Impostor != nil:
		kind = 1
	case b.RetryAfter > 0:
		kind = 2
	}
	return int(b.crawler)*refusalKinds + kind
}

// check is Check without the log limit.
func (e *enforcer) check(r *http.Request, id identity.Identity, sn *seen) (Block, bool) {
	if e.observe != nil {
		return e.checkObserved(r, id, sn)
	}
	if e.impostors != 0 && !e.rt.Matches(r) {
		if id.Status == identity.Impostor {
			return impostorBlock(id, e.impostors, e.acceptSignature), true
		}
	}
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
		b.Status, b.AcceptSignature = e.status, e.acceptSignature
		return b, blocked
	}
	return Block{}, false
}

// impostorBlock is the refusal of an impostor whose identity is id. Its own function, so
// that only a refusal puts the identity on the heap, not every identified request.
//
//go:noinline
func impostorBlock(id identity.Identity, status int, acceptSignature string) Block {
	// crawler keys the refusal log's limit: the claimed crawler, or one slot for the rest.
	return Block{Token: botName(id), Status: status, Impostor: &id, AcceptSignature: acceptSignature, crawler: metrics.CrawlerOf(id.Bot)}
}

func (es *enforceState) block(tok string, r *http.Request) (Block, bool) {
	d := es.m.Decide(tok, "", requestTarget(r))
	if d.Allowed || d.Rule == nil {
		return Block{}, false
	}
	return Block{Token: tok, Rule: *d.Rule, crawler: es.crawlers[tok]}, true
}

// requestTarget is r's path and query as the client sent them.
func requestTarget(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

// botName is the crawler's name an identity's User-Agent carries; for a bot a signature
// decided that the User-Agent does not name, the bot's first name, else its ID.
func botName(id identity.Identity) string {
	if id.Name != "" {
		return id.Name
	}
	if b, ok := crawlers.BotByID(id.Bot); ok && len(b.Names) > 0 {
		return b.Names[0]
	}
	return id.Bot
}

// LogRule names, for the log line of a refusal, what refused the request: the rule
// ("disallow: /private/"), "impostor: " and the checks it failed ("impostor: ip-list",
// "impostor: ip-list,reverse-dns", "impostor: signature"), or "crawl-delay".
func (b Block) LogRule() string {
	switch {
	case b.RetryAfter > 0:
		return "crawl-delay"
	case b.Impostor != nil:
		return "impostor: " + b.Impostor.Failed.String()
	}
	return string(b.Rule.Type) + ": " + b.Rule.Path
}

// setHeaders sets the header fields the refusal carries: Retry-After for a crawler over its
// crawl-delay, Accept-Signature when enforcement asks for a signature.
func (b Block) setHeaders(h http.Header) {
	if b.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(b.RetryAfter))
	}
	if b.AcceptSignature != "" {
		h.Set("Accept-Signature", b.AcceptSignature)
	}
}

// Message is the short text a blocked request is told, and that is logged.
func (b Block) Message() string {
	if b.RetryAfter > 0 {
		return fmt.Sprintf("robots.txt asks %s to wait between requests (Crawl-delay): retry after %d s", b.Token, b.RetryAfter)
	}
	if b.Impostor != nil {
		return "refused as an impostor: " + b.Impostor.Failure()
	}
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

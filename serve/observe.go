package serve

import (
	"net/http"
	"sync"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// Violation is a request from a crawler for a path that the served robots.txt disallows for
// it, which was served (Options.Violations). Crawler is its metrics label (metrics.Crawler
// .Name: a catalogue's name, "other" for a crawler that only the file names); Token is the name the file's group names it by ("" when no group names it and
// the "*" group decided).
type Violation struct {
	Crawler string
	Token   string
	Status  string // the identity status (metrics.StatusLabel): "unchecked" when no verification is configured
	Path    string // the path and query as sent
	Rule    robotsgen.Rule
	// Line is the rule's line in the robots.txt served to the request's origin (the line
	// `robots check` shows), 0 when the rule is not written there (a name robots.txt cannot
	// carry, decided by its preset's group).
	Line int
	// Suppressed is how many violations of this crawler were not reported since the last
	// one reported (ViolationBurst per ViolationInterval).
	Suppressed int
}

// ViolationMessage is the message a violation is logged with; its fields carry the rest.
const ViolationMessage = "a crawler fetched a path robots.txt disallows for it"

// RuleText is the rule as robots.txt writes it, "disallow: /private/".
func (v Violation) RuleText() string { return string(v.Rule.Type) + ": " + v.Rule.Path }

// How many violations a crawler has reported: the first ViolationBurst in each
// ViolationInterval, then none until the next interval, whose first report counts the
// suppressed ones. A crawl cannot flood the log: at most ViolationBurst lines per crawler of
// the catalogue (and one slot for all others) per interval.
const (
	ViolationBurst    = 10
	ViolationInterval = time.Minute
)

// observer is what requests from crawlers are counted and reported with, besides
// enforcement.
type observer struct {
	counters   *metrics.Counters              // nil: not counted
	violations func(*http.Request, Violation) // nil: not reported
	limits     []violationLimit               // by metrics.Crawler
	now        func() time.Time
}

// violationLimit is one crawler's count of reports in the current interval.
type violationLimit struct {
	mu         sync.Mutex
	start      time.Time
	n          int
	suppressed int
}

func newObserver(opts Options) *observer {
	if opts.Counters == nil && opts.Violations == nil {
		return nil
	}
	o := &observer{counters: opts.Counters, violations: opts.Violations, now: opts.now}
	if o.now == nil {
		o.now = time.Now
	}
	if o.violations != nil {
		o.limits = make([]violationLimit, metrics.NumCrawlers())
	}
	return o
}

// allow reports whether crawler c may report a violation now, and how many it did not
// report before.
func (o *observer) allow(c metrics.Crawler) (suppressed int, ok bool) {
	l := &o.limits[c]
	now := o.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.start.IsZero() || now.Sub(l.start) >= ViolationInterval {
		l.start, l.n = now, 0
	}
	if l.n >= ViolationBurst {
		l.suppressed++
		return 0, false
	}
	l.n++
	suppressed, l.suppressed = l.suppressed, 0
	return suppressed, true
}

// checkObserved is Check when requests are counted or reported: one decision (which crawler,
// whether the file disallows the path for it and by which rule) serves enforcement, the
// counters, the report of violations and crawl-delay.
func (e *enforcer) checkObserved(r *http.Request) (Block, bool) {
	o := e.observe
	status := metrics.Unchecked
	var bot string
	if e.identify != nil {
		id := e.identify(r)
		status, bot = id.Status, id.Bot
		if e.impostors != 0 && id.Status == identity.Impostor {
			o.count(metrics.CrawlerOf(bot), status, metrics.Impostor)
			return Block{Token: botName(bot), Status: e.impostors, Impostor: &id, AcceptSignature: e.acceptSignature}, true
		}
	}
	if bot == "" {
		bot, _ = crawlers.IdentifyBotHeader(r.Header["User-Agent"])
	}
	es := e.rt.state.Load().enforce.Load()
	if e.up != nil {
		if hs := e.up.enforceFor(r); hs != nil {
			es = hs
		}
	}
	// The file's names are looked for in the header when enforcement needs them, or when the
	// header names a bot (a browser's costs no scan), or when the file names a crawler that
	// is not in the catalogue.
	var tok string
	if es.ua != nil && (e.refuse || bot != "" || es.custom) {
		for _, ua := range r.Header["User-Agent"] {
			if t, ok := es.ua.Match(ua); ok {
				tok = t
				break
			}
		}
	}
	if tok == "" && bot == "" {
		return Block{}, false
	}
	c := metrics.CrawlerOf(bot)
	if bot == "" {
		c = es.slots[tok]
	}
	d := es.m.Decide(tok, "", requestTarget(r))
	disallowed := !d.Allowed && d.Rule != nil
	if disallowed && tok != "" && e.refuse {
		o.count(c, status, metrics.Enforced)
		return Block{Token: tok, Rule: *d.Rule, Status: e.status, AcceptSignature: e.acceptSignature}, true
	}
	if e.crawlDelay && tok != "" {
		if ds := es.delays[tok]; ds != nil {
			k := 0
			if status == identity.Verified {
				k = 1
			}
			if wait, limited := ds.take(k, o.now()); limited {
				o.count(c, status, metrics.RateLimited)
				return Block{Token: tok, Status: http.StatusTooManyRequests, RetryAfter: retryAfter(wait), AcceptSignature: e.acceptSignature}, true
			}
		}
	}
	if !disallowed {
		o.count(c, status, metrics.Allowed)
		return Block{}, false
	}
	o.count(c, status, metrics.DisallowedServed)
	if o.violations != nil {
		if n, ok := o.allow(c); ok {
			o.violations(r, Violation{Crawler: c.Name(), Token: tok, Status: metrics.StatusLabel(status), Path: requestTarget(r), Rule: *d.Rule, Line: e.ruleLine(r, tok, *d.Rule), Suppressed: n})
		}
	}
	return Block{}, false
}

func (o *observer) count(c metrics.Crawler, s identity.Status, out metrics.Outcome) {
	if o.counters != nil {
		o.counters.Request(c, s, out)
	}
}

// ruleLine is the line of rule, which decided for tok ("" for the "*" group), in the
// robots.txt served to r's origin; 0 when it is not written there. Reading the file is
// done once per served body, when its first violation is reported; finding a line parses a
// logarithmic number of its prefixes, for reports that the limit above bounds.
func (e *enforcer) ruleLine(r *http.Request, tok string, rule robotsgen.Rule) int {
	b := e.servedBody(r)
	if b == nil {
		return 0
	}
	t := b.readText()
	groups, _ := t.File.Select(tok, "")
	_, _, line, _ := t.DecidingRule(groups, rule)
	return line
}

// servedBody is the robots.txt served to r's origin: the merge served there, else the
// responder's; nil if there is none.
func (e *enforcer) servedBody(r *http.Request) *robotsBody {
	if e.up != nil {
		if b := e.up.bodyFor(r); b != nil {
			return b
		}
	}
	b, err := e.rt.state.Load().bodyFor(r)
	if err != nil {
		return nil
	}
	return b
}

// countRobotsTxt counts a request for /robots.txt by a crawler of either catalogue.
func (e *enforcer) countRobotsTxt(r *http.Request) {
	if e.observe == nil || e.observe.counters == nil {
		return
	}
	uas := r.Header["User-Agent"]
	if bot, ok := crawlers.IdentifyBotHeader(uas); ok {
		e.observe.counters.RobotsTxt(metrics.CrawlerOf(bot))
		return
	}
	// robots.txt is served from the responder's file: its names.
	if es := e.rt.state.Load().enforce.Load(); es != nil && es.ua != nil && es.custom {
		for _, ua := range uas {
			if t, ok := es.ua.Match(ua); ok {
				if c := es.slots[t]; c != metrics.Other {
					e.observe.counters.RobotsTxt(c)
				}
				return
			}
		}
	}
}

package serve

import (
	"context"
	"hash/maphash"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/internal/coarse"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// violation is a request from a crawler for a path that the served robots.txt disallows for
// it, which was served (Options.LogViolations). Crawler is its metrics label (metrics.Crawler
// .Name: a catalogue's name, "other" for a crawler that only the file names); Token is the name the file's group names it by ("" when no group names it and
// the "*" group decided).
type violation struct {
	Crawler string
	Token   string
	Status  string // the identity status (metrics.StatusLabel): "unchecked" when no verification is configured
	Path    string // the path and query as sent
	Rule    robotsgen.Rule
	// Line is the rule's line in the robots.txt served to the request's origin (the line
	// `robots check` shows), carried by that file's decision for Token; 0 when that decision
	// is by another rule (a name robots.txt cannot carry, decided by its preset's group, which
	// the file's "*" group decides otherwise).
	Line int
	// Suppressed is how many violations of this crawler were not reported since the last
	// one reported (ViolationBurst per ViolationInterval).
	Suppressed int
}

// ViolationMessage is the message a violation is logged with; its fields carry the rest.
const ViolationMessage = "a crawler fetched a path robots.txt disallows for it"

// ruleText is the rule as robots.txt writes it, "disallow: /private/".
func (v violation) ruleText() string { return string(v.Rule.Type) + ": " + v.Rule.Path }

// How many violations a crawler has reported: the first ViolationBurst in each
// ViolationInterval, then none until the next interval, whose first report counts the
// suppressed ones. A crawl cannot flood the log: at most ViolationBurst lines per crawler of
// the catalogue (and one slot for all others) per interval. Refusals are logged within the
// same limit, per crawler and kind of refusal (Block.Unlogged).
const (
	ViolationBurst    = 10
	ViolationInterval = time.Minute
)

// observer is what requests from crawlers are counted and reported with, besides
// enforcement.
type observer struct {
	counters   *metrics.Counters              // nil: not counted
	violations func(*http.Request, violation) // nil: not reported
	limit      *logLimit                      // of violations, by metrics.Crawler
	// elapsed is crawl-delay's clock: time since the observer was made, read from the
	// monotonic clock, so that setting the wall clock back (an NTP step, a virtual machine
	// resumed) does not lock crawlers out.
	elapsed func() time.Duration
	names   nameMemo
}

// nameMemo remembers what headers seen lately name: which of a file's names
// (enforceState.ua) and which crawler of the catalogues (crawlers.IdentifyBotName):
// crawlers and browsers send the same User-Agent over and over, and a hash and a comparison
// cost a fraction of the scan. Like crawlers.IdentifyBot's memory, a fixed number of slots,
// each overwritten by the next header that hashes to it (with a per-observer seed), holding
// headers of at most maxMemoUA bytes: at most about 0.5 MiB, whatever clients send. An answer
// is for the state it was found with: a new version of the file is scanned afresh.
type nameMemo struct {
	seed  maphash.Seed
	slots [1024]atomic.Pointer[nameAnswer]
}

type nameAnswer struct {
	es      *enforceState
	ua, tok string          // tok: the file's name the header names, "" for none
	bot     bool            // the header names a crawler of the catalogues (crawlers.IdentifyBotName)
	slot    metrics.Crawler // that crawler's slot
}

// maxMemoUA is the longest header remembered; longer ones are scanned each time.
const maxMemoUA = 512

// lookup returns what one User-Agent value names: a name of es's file (es.ua.Match) and a
// crawler of the catalogues, remembered.
func (m *nameMemo) lookup(es *enforceState, ua string) nameAnswer {
	if len(ua) > maxMemoUA {
		return scanNames(es, ua)
	}
	slot := &m.slots[maphash.String(m.seed, ua)&uint64(len(m.slots)-1)]
	if a := slot.Load(); a != nil && a.es == es && a.ua == ua {
		return *a
	}
	a := scanNames(es, ua)
	slot.Store(&a)
	return a
}

func scanNames(es *enforceState, ua string) nameAnswer {
	a := nameAnswer{es: es, ua: ua}
	if es.ua != nil {
		a.tok, _ = es.ua.Match(ua)
	}
	if id, name, ok := crawlers.IdentifyBotName(ua); ok {
		a.bot, a.slot = true, metrics.CrawlerIdentified(id, name)
	}
	return a
}

// logLimit bounds the lines a log gets, by key (a crawler, or a crawler and a kind of
// refusal): the first ViolationBurst of a key in each ViolationInterval, then none until the
// next interval, whose first line counts those left out.
type logLimit struct {
	// elapsed is the limit's clock, read from the monotonic clock (to the second by
	// default), so that setting the wall clock back does not silence a key.
	elapsed func() time.Duration
	keys    []limitKey
	// store, if set, is the fleet's limit (Options.Store), asked first; keys are then
	// named by name (a crawler's label, and a kind of refusal), so that every instance
	// counts a crawler's lines under one key. The process's keys are the fallback.
	store fleet.Store
	name  func(k int) string
}

// limitKey is one key's count of lines in the current interval.
type limitKey struct {
	mu         sync.Mutex
	started    bool
	start      time.Duration // a reading of logLimit.elapsed
	n          int
	suppressed int
}

// newLogLimit returns the limit of keys keys, measuring intervals with opts.Now if set, else
// with the coarse monotonic clock (an atomic load).
func newLogLimit(keys int, opts Options) *logLimit {
	l := &logLimit{elapsed: coarse.Elapsed, keys: make([]limitKey, keys)}
	if now := opts.Now; now != nil {
		base := now()
		l.elapsed = func() time.Duration { return now().Sub(base) }
	}
	return l
}

// allowShared is allow, decided by the fleet's store when there is one (and it answers).
func (l *logLimit) allowShared(ctx context.Context, k int) (suppressed int, ok bool) {
	if l.store != nil {
		if n, ok, err := l.store.AllowLog(ctx, l.name(k), ViolationBurst, ViolationInterval); err == nil {
			return n, ok
		}
	}
	return l.allow(k)
}

// allow reports whether key k may log a line now, and how many lines it did not log before.
func (l *logLimit) allow(k int) (suppressed int, ok bool) {
	lk := &l.keys[k]
	now := l.elapsed()
	lk.mu.Lock()
	defer lk.mu.Unlock()
	// A clock that went back (an injected one) starts an interval too, rather than
	// suppressing lines until it has caught up.
	if !lk.started || now-lk.start >= ViolationInterval || now < lk.start {
		lk.started, lk.start, lk.n = true, now, 0
	}
	if lk.n >= ViolationBurst {
		lk.suppressed++
		return 0, false
	}
	lk.n++
	suppressed, lk.suppressed = lk.suppressed, 0
	return suppressed, true
}

// newObserver returns the observer opts asks for, nil for none; crawlDelay asks for one too.
func newObserver(opts Options, crawlDelay bool) *observer {
	if opts.Counters == nil && opts.violations == nil && !crawlDelay {
		return nil
	}
	// The violation limit's interval is a minute: a clock kept to the second will do, and
	// reading it costs an atomic load (newLogLimit). Crawl-delay's waits are told in seconds,
	// from the exact time. Both are monotonic: time.Since reads the monotonic clock.
	o := &observer{counters: opts.Counters, violations: opts.violations}
	o.names.seed = maphash.MakeSeed()
	if now := opts.Now; now != nil {
		base := now()
		o.elapsed = func() time.Duration { return now().Sub(base) }
	} else {
		base := time.Now()
		o.elapsed = func() time.Duration { return time.Since(base) }
	}
	if o.violations != nil {
		o.limit = newLogLimit(metrics.NumCrawlers(), opts)
		o.limit.store, o.limit.name = opts.Store, violationLimitName
	}
	return o
}

// checkObserved is Check when requests are counted or reported: one decision (which crawler,
// whether the file disallows the path for it and by which rule) serves enforcement, the
// counters, the report of violations and crawl-delay.
func (e *enforcer) checkObserved(r *http.Request, id identity.Identity) (Block, bool) {
	o := e.observe
	status := metrics.Unchecked
	var bot string
	if e.identified {
		status, bot = id.Status, id.Bot
		if e.impostors != 0 && id.Status == identity.Impostor {
			o.count(metrics.CrawlerOf(bot), status, metrics.Impostor)
			return impostorBlock(id, e.impostors, e.acceptSignature), true
		}
	}
	es := e.rt.state.Load().enforce.Load()
	if e.up != nil {
		if hs := e.up.enforceFor(r); hs != nil {
			es = hs
		}
	}
	// Which of the file's names the header names, and which crawler of the catalogues: the
	// first value naming one of each, as enforcement and crawlers.IdentifyBotNameHeader read
	// them.
	var tok string
	c, haveBot := metrics.Other, bot != ""
	if haveBot {
		c = metrics.CrawlerOf(bot)
	}
	for _, ua := range r.Header["User-Agent"] {
		a := o.names.lookup(es, ua)
		if !haveBot && a.bot {
			c, haveBot = a.slot, true
		}
		if tok == "" {
			tok = a.tok
		}
	}
	if tok == "" && !haveBot {
		return Block{}, false
	}
	if !haveBot {
		c = es.slots[tok]
	}
	d := es.m.Decide(tok, "", requestTarget(r))
	disallowed := !d.Allowed && d.Rule != nil
	if disallowed && tok != "" && e.refuse {
		o.count(c, status, metrics.Enforced)
		return Block{Token: tok, Rule: *d.Rule, Status: e.status, AcceptSignature: e.acceptSignature, crawler: es.crawlers[tok]}, true
	}
	if e.crawlDelay && tok != "" {
		if ds := es.delays[tok]; ds != nil {
			k := 0
			if status == identity.Verified {
				k = 1
			}
			if wait, limited := e.takeDelay(r, ds, tok, k, o.elapsed); limited {
				o.count(c, status, metrics.RateLimited)
				return Block{Token: tok, Status: http.StatusTooManyRequests, RetryAfter: retryAfter(wait), AcceptSignature: e.acceptSignature, crawler: es.crawlers[tok]}, true
			}
		}
	}
	if !disallowed {
		o.count(c, status, metrics.Allowed)
		return Block{}, false
	}
	o.count(c, status, metrics.DisallowedServed)
	if o.violations != nil {
		if n, ok := o.limit.allowShared(r.Context(), int(c)); ok {
			o.violations(r, violation{Crawler: c.Name(), Token: tok, Status: metrics.StatusLabel(status), Path: requestTarget(r), Rule: *d.Rule, Line: e.ruleLine(r, tok, *d.Rule), Suppressed: n})
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
// robots.txt served to r's origin: the line the served file's decision for tok carries when
// that file decides by the same rule (it does for every name it writes; a name never written
// there reads the "*" group), else 0. The lines are recorded once per served body, by
// rendering it again when its first violation is reported; a violation then costs a decision.
func (e *enforcer) ruleLine(r *http.Request, tok string, rule robotsgen.Rule) int {
	b := e.servedBody(r)
	if b == nil {
		return 0
	}
	t := b.readText()
	if t == nil {
		return 0
	}
	if d := t.Matcher.Decide(tok, "", requestTarget(r)); d.Rule != nil && *d.Rule == rule {
		return d.Line
	}
	return 0
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

// countRobotsTxt counts a request for /robots.txt by a crawler of either catalogue, and by a
// crawler only the served file names (under "other" it is not counted: robots.txt fetches
// are by known crawlers).
func (e *enforcer) countRobotsTxt(r *http.Request) {
	if e.observe == nil || e.observe.counters == nil {
		return
	}
	uas := r.Header["User-Agent"]
	if id, name, ok := crawlers.IdentifyBotNameHeader(uas); ok {
		e.observe.counters.RobotsTxt(metrics.CrawlerIdentified(id, name))
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

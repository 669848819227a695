// Package logreport reads access logs against a site's robots policy: which crawlers came,
// how much they fetched, whether and when they read robots.txt, which requests violated it
// (with the rule and its line in the served file), which claimed a crawler they were not, and
// when. It is "robots report" (cmd/robots) and "caddy robots report".
//
// It reads Caddy's JSON access log and the Common and Combined Log Formats of nginx and
// Apache, plain or gzip-compressed (told by their magic bytes), and replays every request
// against the config as it is now (policycheck.Replay). Its memory is bounded however long
// the log: the paths and violations of a crawler are counted exactly up to a limit and the
// rest as "other", and the timeline's buckets widen as the range grows. Lines it cannot read
// are counted and the first few shown; they never stop it.
//
// A report is written as text (WriteText), JSON (WriteJSON; Report's fields are the schema)
// or one self-contained HTML page (WriteHTML) that embeds the same JSON.
package logreport

import (
	"bytes"
	"cmp"
	"iter"
	"maps"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// Limits bound what a report keeps, whatever the size of the log.
const (
	// MaxPaths is how many distinct paths a crawler's counts keep; later ones count as other.
	MaxPaths = 500
	// MaxViolations is how many distinct (path, rule) violations a crawler keeps.
	MaxViolations = 500
	// TopPaths and TopViolations are how many of them a report shows, by count.
	TopPaths      = 10
	TopViolations = 20
	// MaxBuckets is the most buckets the timeline has: beyond it they double their width.
	MaxBuckets = 96
	// MaxExamples is how many unreadable lines a report shows.
	MaxExamples = 5
	// maxKey is the longest path kept (longer ones are cut, marked with "…").
	maxKey = 256
	// cacheSize is how many decisions each replay cache holds before it starts over, and
	// maxCached the longest key (User-Agent, with the target) it keeps: at most a few
	// megabytes, whatever the log's clients send.
	cacheSize = 1 << 14
	maxCached = 1 << 10
)

// Options configure a Builder.
type Options struct {
	// Host, when set, keeps only the requests for this host (its name, without the port) of
	// logs that record the host (Caddy's); the others are counted as other hosts.
	// Logs that do not record it (Common, Combined) are taken as the site's.
	Host string
}

// Builder reads log lines into a Report. It is not safe for concurrent use.
type Builder struct {
	rp   *policycheck.Replay
	opts Options
	rep  Report
	// byID and impostors are the rows, by rowKey.
	byID      map[string]*crawlerAcc
	impostors map[string]*impostorAcc
	// agents caches what a User-Agent names; decisions caches the replay of (agent, target)
	// for the agents that a group names. Both start over when full.
	agents    map[string]agentInfo
	decisions map[string]policycheck.Replayed
	key       []byte
	timeline  timeline
	// cur is what it counts of the chunk it reads.
	cur   chunkCounts
	entry Entry
	// platforms counts the crawl-to-refer section (platforms.go).
	platforms platformsAcc
}

// agentInfo is what a User-Agent names: the bot of the catalogue, the crawler's name it
// carries (one of the several crawlers an entry may hold) and the group of the file.
type agentInfo struct {
	bot, name, token string
	// key is its row's key (rowKey), made once per User-Agent rather than per request.
	key string
	// platform is 1 + the index of the platform of the catalogue whose crawler it is
	// (crawlers.CrawlerPlatform); 0 for none.
	platform int
}

// crawlerAcc is what the Builder counts of one crawler.
type crawlerAcc struct {
	out        *Crawler
	tool       bool
	series     int
	paths      counter
	violations violationTable
	statuses   map[int]int64
}

// impostorAcc is what the Builder counts of the impostors claiming one crawler.
type impostorAcc struct {
	out      *Impostor
	statuses map[int]int64
}

type violationKey struct {
	path string
	line int
	rule string
}

// rank is the key's place in the order of those a violationTable keeps (as counter's).
func (k violationKey) rank() uint64 {
	h := rank(k.path)
	for _, b := range [...]uint64{0, uint64(k.line), 0} {
		h ^= b
		h *= 1099511628211
	}
	for i := 0; i < len(k.rule); i++ {
		h ^= uint64(k.rule[i])
		h *= 1099511628211
	}
	return h
}

// before orders keys by rank (k's is kr, o's or), then by their fields.
func (k violationKey) before(kr uint64, o violationKey, or uint64) bool {
	if kr != or {
		return kr < or
	}
	return cmp.Or(strings.Compare(k.path, o.path), cmp.Compare(k.line, o.line), strings.Compare(k.rule, o.rule)) < 0
}

// violationTable is a crawler's violations: a row per (path, rule), up to MaxViolations
// rows, those of the keys of the smallest rank (as a counter keeps its keys, whatever their
// order); the rest counted in other.
type violationTable struct {
	rows  map[violationKey]*Violation
	other int64
	// full orders the keys of rows once it is full, the worst on top: the key a new one
	// that ranks before it replaces.
	full *worstHeap[violationKey]
}

// add counts the violations of row (its Count of them, from First to Last) under k.
func (t *violationTable) add(k violationKey, row Violation) {
	if t.rows == nil {
		t.rows = map[violationKey]*Violation{}
	}
	if r := t.rows[k]; r != nil {
		r.Count += row.Count
		if row.First.Before(r.First) {
			r.First = row.First
		}
		if row.Last.After(r.Last) {
			r.Last = row.Last
		}
		return
	}
	if len(t.rows) < MaxViolations {
		t.rows[k] = &row
		return
	}
	// The table is full: k takes the place of the worst key if it ranks before it (which
	// is then counted as other from now on, and never comes back).
	if t.full == nil {
		t.full = newWorstHeap(maps.Keys(t.rows), violationKey.rank, func(a, b ranked[violationKey]) bool { return b.key.before(b.rank, a.key, a.rank) })
	}
	w := t.full.top()
	kr := k.rank()
	if !k.before(kr, w.key, w.rank) {
		t.other += row.Count
		return
	}
	t.other += t.rows[w.key].Count
	delete(t.rows, w.key)
	t.rows[k] = &row
	t.full.replaceTop(ranked[violationKey]{k, kr})
}

// counter counts keys exactly up to MaxPaths distinct ones, the rest together: it keeps
// the keys of the smallest rank (rankBefore), so that which are kept depends on the keys
// seen, not on their order, and counters of parts of a log merge exactly.
type counter struct {
	// n are the counts by key, pointers so that a count is added to without making the
	// key a string (an assignment to m[string(b)] does).
	n     map[string]*int64
	other int64
	// full orders the keys of n once it is full, the worst on top: the key a new one that
	// ranks before it replaces.
	full *worstHeap[string]
}

// add counts k by its clipped text (clip), the key it is stored and shown under: paths longer
// than maxKey bytes that share their first maxKey bytes count together.
func (c *counter) add(k []byte) {
	if c.n == nil {
		c.n = map[string]*int64{}
	}
	if len(k) > maxKey {
		c.addN(clip(k), 1)
		return
	}
	if p := c.n[string(k)]; p != nil {
		*p++
		return
	}
	if len(c.n) >= MaxPaths && !rankBefore(k, c.worstKey()) {
		c.other++ // checked before the key is made a string: the common case of a big site
		return
	}
	c.addN(string(k), 1)
}

// addN counts n requests for the key k.
func (c *counter) addN(k string, n int64) {
	if p := c.n[k]; p != nil {
		*p += n
		return
	}
	if len(c.n) < MaxPaths {
		c.n[k] = &n
		return
	}
	w := c.worstKey()
	if !rankBefore(k, w) {
		c.other += n
		return
	}
	// k takes the place of the worst key, whose counts are other's from now on: a key that
	// leaves never comes back, since the worst key kept only ranks lower from then on.
	c.other += *c.n[w.key]
	delete(c.n, w.key)
	c.n[k] = &n
	c.full.replaceTop(ranked[string]{k, rank(k)})
}

// worstKey is the key of n of the largest rank, with its rank; n is full.
func (c *counter) worstKey() ranked[string] {
	if c.full == nil {
		c.full = newWorstHeap(maps.Keys(c.n), rank[string], func(a, b ranked[string]) bool {
			return a.rank > b.rank || a.rank == b.rank && a.key > b.key
		})
	}
	return c.full.top()
}

// rank is a key's place in the order of the keys a bounded table keeps (the smallest
// first): its 64-bit FNV-1a hash, stable from run to run, spreading the keys kept over all
// those seen.
func rank[T string | []byte](s T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// rankBefore orders keys by rank, then (two keys of one hash) by their bytes: whether a
// comes before b.
func rankBefore[A string | []byte](a A, b ranked[string]) bool {
	if ra := rank(a); ra != b.rank {
		return ra < b.rank
	}
	return string(a) < b.key
}

// ranked is a key of a bounded table with its rank.
type ranked[K any] struct {
	key  K
	rank uint64
}

// worstHeap is the keys of a full bounded table (counter, violationTable) in a heap whose
// top is the worst: the last in the table's order, the one the next key that ranks before it
// replaces. Finding it by a scan of the table cost a hash of every key per replacement, and
// a big site's log replaces often: this costs a few comparisons.
type worstHeap[K any] struct {
	keys []ranked[K]
	// after is the table's order reversed: whether a comes after b.
	after func(a, b ranked[K]) bool
}

// newWorstHeap orders keys, ranked by rankOf, by after.
func newWorstHeap[K any](keys iter.Seq[K], rankOf func(K) uint64, after func(a, b ranked[K]) bool) *worstHeap[K] {
	h := &worstHeap[K]{after: after}
	for k := range keys {
		h.keys = append(h.keys, ranked[K]{k, rankOf(k)})
	}
	for i := len(h.keys)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return h
}

// top is the worst key.
func (h *worstHeap[K]) top() ranked[K] { return h.keys[0] }

// replaceTop puts k in the worst key's place.
func (h *worstHeap[K]) replaceTop(k ranked[K]) {
	h.keys[0] = k
	h.down(0)
}

func (h *worstHeap[K]) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h.keys) {
			return
		}
		c := l
		if r := l + 1; r < len(h.keys) && h.after(h.keys[r], h.keys[l]) {
			c = r
		}
		if !h.after(h.keys[c], h.keys[i]) {
			return
		}
		h.keys[i], h.keys[c] = h.keys[c], h.keys[i]
		i = c
	}
}

// top returns the n largest counts (ties by key) and the sum of the rest.
func (c *counter) top(n int) ([]PathCount, int64) {
	all := make([]PathCount, 0, len(c.n))
	for k, v := range c.n {
		all = append(all, PathCount{Path: k, Count: *v})
	}
	slices.SortFunc(all, func(a, b PathCount) int {
		if a.Count != b.Count {
			return int(b.Count - a.Count)
		}
		return strings.Compare(a.Path, b.Path)
	})
	other := c.other
	if len(all) > n {
		for _, p := range all[n:] {
			other += p.Count
		}
		all = all[:n]
	}
	return all, other
}

// clip is a path as a report keeps it: its first maxKey bytes, marked with "…" when cut.
func clip(b []byte) string {
	if len(b) > maxKey {
		return string(b[:maxKey]) + "…"
	}
	return string(b)
}

// NewBuilder returns a Builder replaying requests with rp.
func NewBuilder(rp *policycheck.Replay, opts Options) *Builder {
	b := &Builder{rp: rp, opts: opts, byID: map[string]*crawlerAcc{}, impostors: map[string]*impostorAcc{},
		agents: map[string]agentInfo{}, decisions: map[string]policycheck.Replayed{}}
	b.rep.Crawlers = []*Crawler{}
	b.rep.Inputs = []*Input{}
	b.rep.Unreadable.Examples = []Unreadable{}
	b.rep.Site.RobotsTxt = string(rp.RobotsTxt())
	b.rep.Site.Host = opts.Host
	b.timeline.init(MaxBuckets)
	b.platforms.init()
	return b
}

// Add counts one request. A request whose crawler claim the site's verification disproves
// (an impostor's) is counted apart, under the crawler it claimed (Report.Impostors), never
// as that crawler's.
func (b *Builder) Add(e *Entry) {
	t := &b.rep.Totals
	if b.opts.Host != "" && e.Host != nil && !sameHost(e.Host, b.opts.Host) {
		t.OtherHosts++
		return
	}
	t.Requests++
	t.Bytes = addSat(t.Bytes, e.Size)
	required, paid := payment(e)
	if required {
		t.PaymentRequired++
	}
	if paid {
		t.Paid++
	}
	ts := e.Time.Unix()
	if t.Requests == 1 || e.Time.Before(b.rep.Range.First) {
		b.rep.Range.First = e.Time.UTC()
	}
	if e.Time.After(b.rep.Range.Last) {
		b.rep.Range.Last = e.Time.UTC()
	}
	ai := b.agent(e.Agent)
	if ai.bot == "" && ai.token == "" {
		t.OtherRequests++
		t.OtherBytes = addSat(t.OtherBytes, e.Size)
		b.timeline.add(ts, seriesOther)
		b.platforms.referral(e, ts)
		return
	}
	verified := false
	if ai.bot != "" && e.Agent != nil && b.rp.Verifies() {
		switch b.rp.Identify(string(e.Agent), clientAddr(e.ClientIP)).Status {
		case identity.Impostor:
			b.addImpostor(e, ai, ts)
			return
		case identity.Verified:
			verified = true
		}
	}
	c := b.crawler(ai)
	out := c.out
	out.Requests++
	out.Bytes = addSat(out.Bytes, e.Size)
	if verified {
		out.Verified++
	}
	if required {
		out.PaymentRequired++
	}
	if paid {
		out.Paid++
	}
	c.statuses[e.Status]++
	b.timeline.add(ts, c.series)
	if ai.platform > 0 && !c.tool { // a platform's HTTP library (AppEngine-Google) is no crawler of it
		b.platforms.crawl(ai.platform-1, out.Name, verified, e, ts)
	}
	if e.Target == nil {
		return
	}
	r := b.decide(e.Agent, e.Target, ai)
	if r.RobotsTxt {
		addFetch(&out.RobotsTxt, e.Time)
	}
	p := pathOf(e.Target)
	c.paths.add(p)
	if r.Violation != nil {
		b.addViolation(c, e, ts, p, r.Violation)
	}
}

// payment reads what a request says of x402 pay per crawl (docs/payment.md): required is a
// 402 Payment Required answer (the price asked, or a payment refused); paid is a success
// (2xx) whose response carried PAYMENT-RESPONSE: the server settles a payment only for a
// success, before it is sent. A 402 that carries PAYMENT-RESPONSE (a settlement that failed)
// is required, not paid. Only Caddy's JSON log records response headers: paid is never
// counted from a Common or Combined log.
func payment(e *Entry) (required, paid bool) {
	return e.Status == 402, e.PaymentResponse && e.Status >= 200 && e.Status < 300
}

// addFetch counts a fetch of robots.txt at tm.
func addFetch(rt *RobotsFetches, tm time.Time) {
	rt.Fetches++
	if rt.First == nil || tm.Before(*rt.First) {
		tt := tm.UTC()
		rt.First = &tt
	}
	if rt.Last == nil || tm.After(*rt.Last) {
		tt := tm.UTC()
		rt.Last = &tt
	}
}

// addViolation counts the crawler c's request e for the path p (as pathOf reads it) that
// robots.txt disallows by v.
func (b *Builder) addViolation(c *crawlerAcc, e *Entry, ts int64, p []byte, v *policycheck.RuleInfo) {
	c.out.Violations.Count++
	b.rep.Totals.Violations++
	b.timeline.add(ts, seriesViolations)
	// Keyed by the path as kept (clip), as the paths are: long paths that share their
	// first maxKey bytes count together.
	k := violationKey{clip(p), v.Line, v.Text}
	if k.rule == "" {
		k.rule = ruleText(v)
	}
	c.violations.add(k, Violation{Path: k.path, Rule: k.rule, Line: v.Line, Count: 1, First: e.Time.UTC(), Last: e.Time.UTC()})
}

// addImpostor counts a request whose claim to be the crawler ai names is disproved.
func (b *Builder) addImpostor(e *Entry, ai agentInfo, ts int64) {
	t := &b.rep.Totals
	t.Impostors++
	t.ImpostorBytes = addSat(t.ImpostorBytes, e.Size)
	b.timeline.add(ts, seriesImpostors)
	k := ai.key
	im := b.impostors[k]
	if im == nil {
		im = &impostorAcc{out: &Impostor{Token: ai.token, First: e.Time.UTC(), Last: e.Time.UTC()}, statuses: map[int]int64{}}
		im.out.ID, im.out.Name, im.out.Operator, _ = describe(ai)
		b.impostors[k] = im
	}
	out := im.out
	out.Requests++
	out.Bytes = addSat(out.Bytes, e.Size)
	im.statuses[e.Status]++
	if e.Time.Before(out.First) {
		out.First = e.Time.UTC()
	}
	if e.Time.After(out.Last) {
		out.Last = e.Time.UTC()
	}
	if e.Target != nil && b.decide(e.Agent, e.Target, ai).Violation != nil {
		out.Disallowed++
	}
}

// addSat adds n ≥ 0 to a sum of sizes, saturating at the largest int64 rather than wrapping.
func addSat(sum, n int64) int64 {
	if n > math.MaxInt64-sum {
		return math.MaxInt64
	}
	return sum + n
}

// clientAddr reads a log's client address: bare ("2001:db8::1", "192.0.2.1"), bracketed
// ("[2001:db8::1]") or with a port; the zero Addr when it is none.
func clientAddr(b []byte) netip.Addr {
	s := string(b)
	if a, err := netip.ParseAddr(s); err == nil {
		return a
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr()
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil {
			return a
		}
	}
	return netip.Addr{}
}

// ruleText is a rule as its line would be written, for a preset's rule that has no line.
func ruleText(v *policycheck.RuleInfo) string {
	if v.Type == "allow" {
		return "Allow: " + v.Path
	}
	return "Disallow: " + v.Path
}

// pathOf is the target without its query: paths are counted as a site's pages.
func pathOf(target []byte) []byte {
	if i := bytes.IndexByte(target, '?'); i >= 0 {
		return target[:i]
	}
	return target
}

func sameHost(h []byte, want string) bool {
	if i := bytes.LastIndexByte(h, ':'); i >= 0 && bytes.IndexByte(h[i:], ']') < 0 {
		h = h[:i]
	}
	h = bytes.TrimSuffix(bytes.TrimPrefix(h, []byte("[")), []byte("]"))
	return strings.EqualFold(string(h), strings.Trim(want, "[]"))
}

// agent is what a User-Agent names: the bot of the catalogue and the group of the file.
func (b *Builder) agent(ua []byte) agentInfo {
	if ua == nil {
		return agentInfo{}
	}
	if ai, ok := b.agents[string(ua)]; ok {
		return ai
	}
	r := b.rp.Request(string(ua), "/")
	ai := agentInfo{bot: r.Bot, name: r.Name, token: r.Token}
	ai.key = rowKey(ai)
	if _, i, ok := crawlers.CrawlerPlatform(r.Bot, r.Name); ok {
		ai.platform = i + 1
	}
	if len(ua) > maxCached {
		return ai
	}
	if len(b.agents) >= cacheSize {
		clear(b.agents)
	}
	b.agents[string(ua)] = ai
	return ai
}

// decide replays a request of a crawler a group may name.
func (b *Builder) decide(ua, target []byte, ai agentInfo) policycheck.Replayed {
	if p := pathOf(target); ai.token == "" && bytes.IndexByte(p, '%') < 0 {
		// No group names the agent: no violation, only whether it asks for robots.txt.
		return policycheck.Replayed{RobotsTxt: string(p) == "/robots.txt"}
	}
	b.key = append(append(append(b.key[:0], ua...), 0), target...)
	if r, ok := b.decisions[string(b.key)]; ok {
		return r
	}
	r := b.rp.Request(string(ua), string(target))
	if len(b.key) > maxCached {
		return r
	}
	if len(b.decisions) >= cacheSize {
		clear(b.decisions)
	}
	b.decisions[string(b.key)] = r
	return r
}

// rowKey is what a report's row counts: one crawler of the catalogue (a name of a bot: one
// entry may hold several crawlers, YandexBot and the AI-training YandexAdditional) as one
// group of the served file decides it. Two User-Agents of one bot that different groups
// decide (ClaudeBot and Claude-Web) are two rows, so that a row's group is the one its
// violations are of.
func rowKey(ai agentInfo) string {
	return ai.bot + "\x00" + ai.name + "\x00" + strings.ToLower(ai.token)
}

// describe is a row's ID, name, operator and categories: those of the crawler's name in the
// catalogue (crawlers.LookupBotName), else the group's name.
func describe(ai agentInfo) (id, name, operator string, categories []string) {
	if bn, ok := crawlers.LookupBotName(ai.bot, ai.name); ok {
		return ai.bot, bn.Name, bn.Operator, bn.Categories
	}
	return ai.bot, ai.token, "", nil
}

func (b *Builder) crawler(ai agentInfo) *crawlerAcc {
	k := ai.key
	if c, ok := b.byID[k]; ok {
		return c
	}
	out := &Crawler{Token: ai.token, Statuses: map[string]int64{}}
	var cats []string
	out.ID, out.Name, out.Operator, cats = describe(ai)
	if len(cats) > 0 {
		out.Categories = cats
	}
	return b.newCrawler(k, out, isTool(cats))
}

// newCrawler adds the row k, described by out, with nothing counted.
func (b *Builder) newCrawler(k string, out *Crawler, tool bool) *crawlerAcc {
	c := &crawlerAcc{out: out, tool: tool, series: b.timeline.newSeries(tool), statuses: map[int]int64{}}
	b.byID[k] = c
	return c
}

// isTool says whether a crawler of these categories is a tool or an HTTP library (curl,
// Wget, python-requests, Go-http-client) rather than a crawler: every category it has is the
// catalogue's "tool" or "programmatic". A tool that also crawls for a purpose (Scrapy, "ai"
// too; OnCrawl, "optimizer") stays a crawler.
func isTool(categories []string) bool {
	for _, c := range categories {
		if c != "tool" && c != "programmatic" {
			return false
		}
	}
	return len(categories) > 0
}

// Report returns the report of the lines read so far.
func (b *Builder) Report() *Report {
	rep := b.rep
	rep.Crawlers = make([]*Crawler, 0, len(b.byID))
	rep.Tools = []*Crawler{}
	for _, c := range b.byID {
		out := *c.out
		out.Statuses = map[string]int64{}
		for s, n := range c.statuses {
			out.Statuses[strconv.Itoa(s)] = n
		}
		out.Paths.Top, out.Paths.Other = c.paths.top(TopPaths)
		rows := make([]Violation, 0, len(c.violations.rows))
		for _, v := range c.violations.rows {
			rows = append(rows, *v)
		}
		slices.SortFunc(rows, func(a, b Violation) int {
			if a.Count != b.Count {
				return int(b.Count - a.Count)
			}
			return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), strings.Compare(a.Rule, b.Rule))
		})
		out.Violations.Other = c.violations.other
		if len(rows) > TopViolations {
			for _, r := range rows[TopViolations:] {
				out.Violations.Other += r.Count
			}
			rows = rows[:TopViolations]
		}
		out.Violations.Top = rows
		out.Timeline = b.timeline.series(c.series)
		if c.tool {
			rep.Totals.ToolRequests += out.Requests
			rep.Totals.ToolBytes = addSat(rep.Totals.ToolBytes, out.Bytes)
			rep.Tools = append(rep.Tools, &out)
			continue
		}
		rep.Totals.CrawlerRequests += out.Requests
		rep.Totals.CrawlerBytes = addSat(rep.Totals.CrawlerBytes, out.Bytes)
		rep.Crawlers = append(rep.Crawlers, &out)
	}
	byRequests := func(a, b *Crawler) int { return rowOrder(a.Requests, b.Requests, a.Name, b.Name, a.Token, b.Token) }
	slices.SortFunc(rep.Crawlers, byRequests)
	slices.SortFunc(rep.Tools, byRequests)
	rep.Impostors = make([]*Impostor, 0, len(b.impostors))
	for _, im := range b.impostors {
		out := *im.out
		out.Statuses = map[string]int64{}
		for s, n := range im.statuses {
			out.Statuses[strconv.Itoa(s)] = n
		}
		rep.Impostors = append(rep.Impostors, &out)
	}
	slices.SortFunc(rep.Impostors, func(a, b *Impostor) int { return rowOrder(a.Requests, b.Requests, a.Name, b.Name, a.Token, b.Token) })
	rep.Timeline = b.timeline.summary()
	rep.CrawlToRefer = b.platforms.report(rep.Timeline)
	if rep.Totals.Requests == 0 {
		rep.Range = Range{}
	}
	// By name, as the examples of unreadable lines are: a report of the same logs is the
	// same whatever their order.
	rep.Inputs = slices.Clone(b.rep.Inputs)
	slices.SortStableFunc(rep.Inputs, func(x, y *Input) int { return strings.Compare(x.Name, y.Name) })
	rep.Unreadable.Examples = slices.Clone(b.rep.Unreadable.Examples)
	return &rep
}

// Report is a report on access logs; its JSON form is the output of "report --format json".
type Report struct {
	// Site is the config replayed.
	Site Site `json:"site"`
	// Notes say what the report could not see, e.g. the backend's robots.txt that
	// merge_upstream merges at serve time.
	Notes []string `json:"notes,omitempty"`
	// Inputs are the logs read, by name.
	Inputs []*Input `json:"inputs"`
	// Range is the time of the first and last request counted; absent without requests.
	Range Range `json:"range"`
	// Totals are the counts over all requests.
	Totals Totals `json:"totals"`
	// Unreadable are the lines that are no access log entry.
	Unreadable UnreadableLines `json:"unreadable"`
	// Crawlers are the crawlers seen, most requests first: one row per bot and group of the
	// served file that decides it. Impostors' requests are not in them, nor tools'.
	Crawlers []*Crawler `json:"crawlers"`
	// Tools are the tools and HTTP libraries of the catalogue seen (curl, Wget,
	// python-requests, Go-http-client: every category of theirs "tool" or "programmatic"),
	// rows as the crawlers', most requests first. They are someone's script, not a crawler.
	Tools []*Crawler `json:"tools"`
	// Impostors are the requests that claimed a crawler and that the site's verification
	// disproves, per crawler claimed (and group), most requests first.
	Impostors []*Impostor `json:"impostors"`
	// Timeline is the requests over time, of crawlers, of other clients and of violations.
	Timeline Timeline `json:"timeline"`
	// CrawlToRefer is, per platform, the HTML pages its crawlers fetched and the HTML visits
	// its products referred.
	CrawlToRefer CrawlToRefer `json:"crawl_to_refer"`
}

// Site is the config the requests were replayed against.
type Site struct {
	// Name names the site: its host names as the config serves them ("example.com,
	// www.example.com"), else its config.
	Name string `json:"name"`
	// Hosts are the host names the config serves the site under, when known.
	Hosts []string `json:"hosts,omitempty"`
	// Config names the config replayed: its file (and the server in it), with the robots.txt
	// file replayed instead of the config's (--robots-file).
	Config string `json:"config"`
	// Host is the host whose requests were kept (Options.Host); "" for all.
	Host string `json:"host,omitempty"`
	// RobotsTxt is the robots.txt the site serves now, whose lines the violations name; ""
	// when it serves none.
	RobotsTxt string `json:"robots_txt"`
}

// Input is one log read.
type Input struct {
	// Name is the file as given, "-" for standard input.
	Name string `json:"name"`
	// Gzip is true when the log was gzip-compressed.
	Gzip bool `json:"gzip"`
	// Lines are the lines read from it.
	Lines int64 `json:"lines"`
	// Formats counts its lines by format: "caddy", "combined", "common".
	Formats map[string]int64 `json:"formats"`
	// Error is why reading stopped before the end (a truncated gzip stream); what was read
	// before it is counted.
	Error string `json:"error,omitempty"`
}

// Range is a time range.
type Range struct {
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
}

// Totals count the requests of all the logs.
type Totals struct {
	// Requests are the requests counted (the lines read, less the unreadable and the other
	// hosts'): those of crawlers, of tools, of impostors and of others. Bytes are the bytes of their
	// responses (a sum that would exceed the largest int64 stays at it).
	Requests int64 `json:"requests"`
	Bytes    int64 `json:"bytes"`
	// CrawlerRequests and CrawlerBytes are those of the crawlers.
	CrawlerRequests int64 `json:"crawler_requests"`
	CrawlerBytes    int64 `json:"crawler_bytes"`
	// ToolRequests and ToolBytes are those of the tools (Report.Tools).
	ToolRequests int64 `json:"tool_requests"`
	ToolBytes    int64 `json:"tool_bytes"`
	// OtherRequests and OtherBytes are those of clients whose User-Agent names no crawler
	// (browsers, unknown tools).
	OtherRequests int64 `json:"other_requests"`
	OtherBytes    int64 `json:"other_bytes"`
	// Violations are the crawlers' and tools' requests that violate the served robots.txt
	// (impostors' are not a crawler's: see Impostor.Disallowed).
	Violations int64 `json:"violations"`
	// Impostors are the requests whose crawler claim the site's verification disproves, and
	// ImpostorBytes the bytes of their responses.
	Impostors     int64 `json:"impostors"`
	ImpostorBytes int64 `json:"impostor_bytes"`
	// OtherHosts are the lines for hosts other than Options.Host, not counted.
	OtherHosts int64 `json:"other_hosts"`
	// PaymentRequired are the requests answered 402 Payment Required (x402 pay per crawl:
	// the price asked, or a payment refused), and Paid those served with a settled payment
	// (a 2xx whose response carried PAYMENT-RESPONSE: Caddy's JSON log only, which records
	// response headers), of every client.
	PaymentRequired int64 `json:"payment_required"`
	Paid            int64 `json:"paid"`
}

// UnreadableLines are the lines that are no access log entry.
type UnreadableLines struct {
	Count int64 `json:"count"`
	// Examples are the first MaxExamples of them.
	Examples []Unreadable `json:"examples"`
}

// Unreadable is a line that is no access log entry.
type Unreadable struct {
	Input  string `json:"input"`
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
	// Text is the start of the line, printable.
	Text string `json:"text"`
}

// Crawler is what one crawler did.
type Crawler struct {
	// ID is the bot's ID in the bot catalogue; "" for a crawler only the AI catalogue knows
	// or only a group of the file names.
	ID string `json:"id"`
	// Name is the crawler's name the User-Agent carries, as the catalogue spells it
	// ("YandexBot": one entry may hold several crawlers, each a row), else Token.
	Name string `json:"name"`
	// Operator and Categories are that name's (crawlers.BotName): the bot catalogue's
	// categories of its entry and the AI catalogue's of the name.
	Operator   string   `json:"operator,omitempty"`
	Categories []string `json:"categories,omitempty"`
	// Token is the name of the group of the served robots.txt that names the crawler, as
	// enforcement reads its User-Agent; "" when no group names it (only "*" applies to it,
	// and it has no violations).
	Token string `json:"token"`
	// Requests and Bytes are its requests and the bytes of their responses.
	Requests int64 `json:"requests"`
	Bytes    int64 `json:"bytes"`
	// RobotsTxt says whether and when it fetched robots.txt.
	RobotsTxt RobotsFetches `json:"robots_txt"`
	// Statuses count its responses by status.
	Statuses map[string]int64 `json:"statuses"`
	// Verified are its requests that the site's verification proves are from it (the
	// requests it disproves are Report.Impostors, not the crawler's).
	Verified int64 `json:"verified"`
	// Violations are its requests that the served robots.txt disallows.
	Violations Violations `json:"violations"`
	// PaymentRequired and Paid are its requests answered 402 and those served with a settled
	// payment, as Totals counts them.
	PaymentRequired int64 `json:"payment_required"`
	Paid            int64 `json:"paid"`
	// Paths are the paths it fetched most.
	Paths Paths `json:"paths"`
	// Timeline is its requests per bucket of the report's timeline.
	Timeline []int64 `json:"timeline"`
}

// Impostor is the requests that claimed one crawler (their User-Agent names it) and that the
// site's verification disproves from the client address. They are not the crawler's: they
// count neither in its requests nor in its violations.
type Impostor struct {
	// ID, Name and Operator are those of the crawler claimed, as in Crawler.
	ID       string `json:"id"`
	Name     string `json:"name"`
	Operator string `json:"operator,omitempty"`
	// Token is the group of the served file that decides the User-Agent claimed; "" for "*".
	Token string `json:"token"`
	// Requests and Bytes are the impostors' requests and the bytes of their responses.
	Requests int64 `json:"requests"`
	Bytes    int64 `json:"bytes"`
	// Disallowed are those of their requests whose path the group disallows: what would be
	// violations, had the crawler sent them.
	Disallowed int64 `json:"disallowed"`
	// First and Last are when the first and last of them were sent.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	// Statuses count their responses by status.
	Statuses map[string]int64 `json:"statuses"`
}

// RobotsFetches are a crawler's requests for robots.txt.
type RobotsFetches struct {
	Fetches int64      `json:"fetches"`
	First   *time.Time `json:"first"`
	Last    *time.Time `json:"last"`
}

// Violations are a crawler's violations: Top by count, the rest in Other.
type Violations struct {
	Count int64       `json:"count"`
	Top   []Violation `json:"top"`
	Other int64       `json:"other"`
}

// Violation is the requests of a crawler for one path that one rule disallows.
type Violation struct {
	Path string `json:"path"`
	// Rule is the rule's line as written in the served file ("Disallow: /private/").
	Rule string `json:"rule"`
	// Line is its line in the served file; 0 for a preset's rule, which the file does not
	// write.
	Line  int       `json:"line"`
	Count int64     `json:"count"`
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// Paths are a crawler's most fetched paths (without query) and the count of the rest.
type Paths struct {
	Top   []PathCount `json:"top"`
	Other int64       `json:"other"`
}

// PathCount is a path and its requests.
type PathCount struct {
	Path  string `json:"path"`
	Count int64  `json:"count"`
}

// rowOrder orders the rows of crawlers and of impostors: most requests first, then by name
// and group token.
func rowOrder(aRequests, bRequests int64, aName, bName, aToken, bToken string) int {
	return cmp.Or(cmp.Compare(bRequests, aRequests), strings.Compare(aName, bName), strings.Compare(aToken, bToken))
}

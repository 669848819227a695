// Package metrics counts what crawlers do on a site, in fixed slots that a request adds to
// without allocating: requests by crawler, identity status and outcome (served though
// robots.txt disallows it, refused by enforcement, ...) and robots.txt fetches by crawler.
//
// It has no dependency on a metrics library. Package serve adds to a Counters (serve.Options
// .Counters); the nested module github.com/sitepolicy/caddy-robots/metrics/prom exposes one
// as a Prometheus collector, for the Caddy module and for a Go application that wants
// metrics, so that one that does not never downloads the Prometheus client.
//
// Label values are bounded by construction: a crawler is a bot of the catalogue (its ID,
// crawlers.BotByID), a crawler of the AI catalogue that the bot catalogue does not know (its
// name, crawlers.Lookup), or "other" (a crawler only the served robots.txt names), never
// text from a request.
package metrics

import (
	"sync"
	"sync/atomic"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/identity"
)

// Outcome is what became of a crawler's request.
type Outcome uint8

const (
	// Allowed: robots.txt allows the path for the crawler, and it was served.
	Allowed Outcome = iota
	// DisallowedServed: robots.txt disallows the path for the crawler (its own group or the
	// "*" group), and it was served all the same (no enforcement applies).
	DisallowedServed
	// Enforced: enforcement refused it (policy.Enforce).
	Enforced
	// Impostor: enforcement refused it as an impostor (policy.Enforce.Impostors).
	Impostor
	// RateLimited: it came sooner than its group's crawl-delay allows and was answered 429
	// (policy.Enforce.CrawlDelay).
	RateLimited

	numOutcomes = iota
)

var outcomeNames = [numOutcomes]string{"allowed", "disallowed_served", "enforced", "impostor", "rate_limited"}

// String is the outcome's label value.
func (o Outcome) String() string { return outcomeNames[o] }

// Unchecked is the status slot of a request whose identity nobody checked (no verification
// is configured): the label value "unchecked". The other slots are identity.Status values.
const Unchecked = identity.MaxStatus + 1

const numStatuses = int(Unchecked) + 1

// StatusLabel is the identity_status label value of a status slot: the status's name
// (identity.Status.String), or "unchecked".
func StatusLabel(s identity.Status) string {
	if s == Unchecked {
		return "unchecked"
	}
	return s.String()
}

// Crawler is a crawler's slot: 0 is "other", then the bots of the catalogue, then the
// crawlers of the AI catalogue (crawlers.All) that the bot catalogue does not know.
type Crawler uint16

// Other is the slot of a crawler that neither catalogue knows (a name only the served
// robots.txt has).
const Other Crawler = 0

type slots struct {
	byID       map[string]Crawler // bot catalogue IDs
	byAIName   map[string]Crawler // AI catalogue names the bot catalogue does not know
	names      []string           // by slot
	categories []string           // by slot
}

var catalogue = sync.OnceValue(func() *slots {
	bots := crawlers.Bots()
	s := &slots{byID: make(map[string]Crawler, len(bots)), byAIName: map[string]Crawler{}, names: []string{"other"}, categories: []string{"other"}}
	for _, b := range bots {
		s.byID[b.ID] = Crawler(len(s.names))
		s.names = append(s.names, b.ID)
		cat := "unknown"
		if len(b.Categories) > 0 {
			cat = b.Categories[0]
		}
		s.categories = append(s.categories, cat)
	}
	for _, c := range crawlers.All() {
		if _, ok := crawlers.IdentifyBot(c.Name); ok {
			continue
		}
		s.byAIName[c.Name] = Crawler(len(s.names))
		s.names = append(s.names, c.Name)
		s.categories = append(s.categories, "ai")
	}
	return s
})

// NumCrawlers is the number of crawler slots.
func NumCrawlers() int { return len(catalogue().names) }

// CrawlerOf returns the slot of the bot with catalogue ID id (crawlers.BotByID), Other for
// any other string.
func CrawlerOf(id string) Crawler {
	return catalogue().byID[id]
}

// CrawlerIdentified returns the slot of the crawler a User-Agent header names, as
// crawlers.IdentifyBotName answers: the bot id's, else (id "") the AI catalogue's crawler
// name, else Other. It does not allocate.
func CrawlerIdentified(id, name string) Crawler {
	if id != "" {
		return CrawlerOf(id)
	}
	return catalogue().byAIName[name]
}

// CrawlerNamed returns the slot of a crawler by a name robots.txt names it by: the crawler
// crawlers.IdentifyBotName finds in the name (CrawlerIdentified), as it finds it in a
// request's User-Agent, else Other. It is for names known when a file is loaded.
func CrawlerNamed(name string) Crawler {
	id, n, _ := crawlers.IdentifyBotName(name)
	return CrawlerIdentified(id, n)
}

// Name is the crawler's label value: its bot catalogue ID, its AI catalogue name, or
// "other".
func (c Crawler) Name() string { return catalogue().names[c] }

// Category is the crawler's category label value: the first of the bot's categories in the
// catalogue's words (crawlers.Bot.Categories, sorted, so "ai" comes before "preview" and
// "social"), "unknown" for a bot the data gives none, "ai" for a crawler only the AI
// catalogue knows, "other" for Other.
func (c Crawler) Category() string { return catalogue().categories[c] }

// Counters are the counts. The zero value is not usable: use NewCounters. A Counters is
// safe for concurrent use; adding to it is an atomic add into a slot fixed when it is made.
type Counters struct {
	requests []atomic.Uint64 // [crawler][status][outcome]
	robots   []atomic.Uint64 // [crawler]
	store    atomic.Pointer[fleet.Stats]
	pay      payCounters
}

// NewCounters returns counters with a slot for every crawler (NumCrawlers), identity status
// and outcome: about 200 KiB.
func NewCounters() *Counters {
	n := len(catalogue().names)
	return &Counters{
		requests: make([]atomic.Uint64, n*numStatuses*int(numOutcomes)),
		robots:   make([]atomic.Uint64, n),
		pay:      newPayCounters(n),
	}
}

// Request counts one request of crawler c whose identity has status s (Unchecked when no
// verification is configured) with outcome o.
func (m *Counters) Request(c Crawler, s identity.Status, o Outcome) {
	m.requests[(int(c)*numStatuses+int(s))*int(numOutcomes)+int(o)].Add(1)
}

// RobotsTxt counts one request for /robots.txt by crawler c.
func (m *Counters) RobotsTxt(c Crawler) {
	m.robots[c].Add(1)
}

// RequestSeries are the labels and count of one series of requests.
type RequestSeries struct {
	Crawler, Category, Status, Outcome string
	Count                              uint64
}

// EachRequest calls f for every series of requests counted at least once, in a fixed order.
func (m *Counters) EachRequest(f func(RequestSeries)) {
	s := catalogue()
	for i := range m.requests {
		n := m.requests[i].Load()
		if n == 0 {
			continue
		}
		o := i % int(numOutcomes)
		st := i / int(numOutcomes) % numStatuses
		c := i / int(numOutcomes) / numStatuses
		f(RequestSeries{Crawler: s.names[c], Category: s.categories[c], Status: StatusLabel(identity.Status(st)), Outcome: Outcome(o).String(), Count: n})
	}
}

// EachRobotsTxt calls f for every crawler that fetched /robots.txt at least once, with its
// category and count, in a fixed order.
func (m *Counters) EachRobotsTxt(f func(crawler, category string, count uint64)) {
	s := catalogue()
	for c := range m.robots {
		if n := m.robots[c].Load(); n != 0 {
			f(s.names[c], s.categories[c], n)
		}
	}
}

package crawlers

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

//go:generate go run ./internal/gencrawlers -bots -in data/well-known-bots.json -data data/well-known-bots.json -out bots_gen.go

// Bot is one entry of the well-known bots catalogue: search engines, SEO tools, monitors,
// feed readers, link previews and AI crawlers, generated from the well-known-bots data
// (data/well-known-bots.json, MIT; see bots_gen.go). Where the AI catalogue (All) knows a
// bot by one of its names, the AI categories come from there (AICategories).
type Bot struct {
	// ID is the data's identifier, e.g. "google-crawler".
	ID string
	// Names are the names IdentifyBot looks for in a User-Agent header, matched
	// case-insensitively as whole words (UAMatcher).
	Names []string
	// Excludes are names that, found in the same header, mean it is not this bot: Apple's
	// link previews send "facebookexternalhit/1.1 Facebot Twitterbot/1.0" and are none of
	// those three (the data's forbidden patterns).
	Excludes []string
	// Operator runs the bot, e.g. "Google"; "" when the data does not say.
	Operator string
	// Categories say what the bot does, in the data's words (BotCategories), sorted.
	Categories []string
	// URL is the bot's documentation, when the data has one.
	URL string
	// Verification is how the operator lets a site check that a request claiming the bot
	// comes from it; empty when it publishes nothing.
	Verification Verification
}

// Verification is how an operator lets a site verify its bot.
type Verification struct {
	// IPRanges are the documents in which the operator publishes its address ranges.
	IPRanges []IPRangeSource
	// HostMasks are the operator's reverse-DNS host names, each "*" standing for one
	// character of a label ("crawl-***-***-***-***.googlebot.com"), as the data writes them.
	HostMasks []string
	// IPs are fixed addresses or prefixes of the bot.
	IPs []string
}

// IPRangeSource is a document listing an operator's address ranges.
type IPRangeSource struct {
	URL string
	// Format is "json", "text" (a prefix per line) or "csv" (a prefix in the first column).
	Format string
	// Selector is, for "json", the JSONPath of the prefixes in the document as the data
	// writes it, e.g. `$.prefixes[*]["ipv6Prefix","ipv4Prefix"]`.
	Selector string
}

// BotCategories returns the categories of the bot catalogue, sorted: what a bot does, in
// the data's words ("search-engine", "ai", "monitor", ...).
func BotCategories() []string {
	return slices.Clone(botCategories)
}

// Bots returns every bot of the catalogue, sorted by ID. The slice and its contents are the
// caller's.
func Bots() []Bot {
	out := make([]Bot, len(bots))
	for i := range bots {
		out[i] = bots[i].clone()
	}
	return out
}

// BotByID returns the bot with the given ID.
func BotByID(id string) (Bot, bool) {
	i, ok := slices.BinarySearchFunc(bots[:], id, func(b Bot, id string) int { return strings.Compare(b.ID, id) })
	if !ok {
		return Bot{}, false
	}
	return bots[i].clone(), true
}

// AICategories returns the AI catalogue's categories of the bot (ai-all, ai-training, ...)
// when one of its names is in the AI catalogue, else nil.
func (b Bot) AICategories() []string {
	for _, n := range b.Names {
		if c, ok := Lookup(n); ok {
			return c.Categories
		}
	}
	return nil
}

// AllCategories returns the bot's categories in the data's words followed by its AI
// catalogue categories: every category a matcher or a report may name it by.
func (b Bot) AllCategories() []string {
	return slices.Concat(b.Categories, b.AICategories())
}

func (b *Bot) clone() Bot {
	c := *b
	c.Names = slices.Clone(b.Names)
	c.Excludes = slices.Clone(b.Excludes)
	c.Categories = slices.Clone(b.Categories)
	c.Verification.IPRanges = slices.Clone(b.Verification.IPRanges)
	c.Verification.HostMasks = slices.Clone(b.Verification.HostMasks)
	c.Verification.IPs = slices.Clone(b.Verification.IPs)
	return c
}

// botIndex is the matcher over every bot's names and which bots each name is (by the
// spelling the matcher returns, the first given): the owner first (nameOwners), then in ID
// order.
type botIndex struct {
	m        *UAMatcher
	byName   map[string][]int
	excludes []*UAMatcher // per bot, nil without Excludes
}

var botMatcher = sync.OnceValue(func() botIndex {
	var names []string
	byKey := map[string][]int{} // folded name -> bots
	spelling := map[string]string{}
	x := botIndex{byName: map[string][]int{}, excludes: make([]*UAMatcher, len(bots))}
	for i := range bots {
		for _, n := range bots[i].Names {
			k := strings.ToLower(n)
			if len(byKey[k]) == 0 {
				names = append(names, n)
				spelling[k] = n
			}
			if !slices.Contains(byKey[k], i) {
				byKey[k] = append(byKey[k], i)
			}
		}
		if len(bots[i].Excludes) > 0 {
			x.excludes[i] = mustMatcher(bots[i].Excludes)
		}
	}
	for k, id := range nameOwners {
		ids := byKey[k]
		j := slices.IndexFunc(ids, func(i int) bool { return bots[i].ID == id })
		if j > 0 {
			ids[0], ids[j] = ids[j], ids[0]
			slices.Sort(ids[1:])
		}
	}
	for k, ids := range byKey {
		x.byName[spelling[k]] = ids
	}
	x.m = mustMatcher(names)
	return x
})

func mustMatcher(names []string) *UAMatcher {
	m, err := NewUAMatcher(names)
	if err != nil {
		panic("crawlers: the generated bot names do not make a matcher: " + err.Error())
	}
	return m
}

// IdentifyBot returns the ID of the bot a User-Agent header names (BotByID has the rest):
// the first name of the catalogue found in it as a whole word, with UAMatcher's rules (never
// inside a URL or an e-mail address), is the bot's whose Excludes the header does not name.
// A browser's header names none. The header is a claim: the bot's Verification says how to
// check it.
func IdentifyBot(userAgent string) (id string, ok bool) {
	return identifyBot(userAgent)
}

// IdentifyBotHeader is IdentifyBot over the values of a request's User-Agent field (its
// http.Header entry): the bot the first value naming one names. A request may carry the field
// twice; reading only the first value would let "User-Agent: Firefox" hide a second one that
// claims a crawler, which enforcement (reading every value) would see.
func IdentifyBotHeader(values []string) (id string, ok bool) {
	for _, v := range values {
		if id, ok := identifyBot(v); ok {
			return id, true
		}
	}
	return "", false
}

// recent remembers the answers for headers seen lately: crawlers and browsers send the same
// User-Agent over and over, and a hash and a comparison cost a fraction of the scan. A fixed
// number of slots in pairs, each overwritten by the next header that hashes to it (with a
// per-process seed), so that headers a client makes up cannot grow it: at most
// len(slots) answers, each holding a header of at most maxRecentUA bytes.
var recent struct {
	seed  maphash.Seed
	slots [2048]atomic.Pointer[recentAnswer]
}

type recentAnswer struct {
	ua, id string
	ok     bool
}

// maxRecentUA is the longest header remembered; longer ones are scanned each time.
const maxRecentUA = 512

func init() { recent.seed = maphash.MakeSeed() }

func identifyBot(userAgent string) (id string, ok bool) {
	if len(userAgent) > maxRecentUA {
		return scanBot(userAgent)
	}
	h := maphash.String(recent.seed, userAgent)
	pair := int(h&uint64(len(recent.slots)-1)) &^ 1
	for i := pair; i < pair+2; i++ {
		if a := recent.slots[i].Load(); a != nil && a.ua == userAgent {
			return a.id, a.ok
		}
	}
	id, ok = scanBot(userAgent)
	recent.slots[pair+int(h>>63)].Store(&recentAnswer{ua: userAgent, id: id, ok: ok})
	return id, ok
}

// scanBot is identifyBot without the memory of recent headers.
func scanBot(userAgent string) (id string, ok bool) {
	x := botMatcher()
	name, ok := x.m.Match(userAgent)
	if !ok {
		return "", false
	}
	for _, i := range x.byName[name] {
		if ex := x.excludes[i]; ex != nil {
			if _, found := ex.Match(userAgent); found {
				continue
			}
		}
		return bots[i].ID, true
	}
	return "", false
}

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
// (data/well-known-bots.json, MIT; see bots_gen.go). An entry may hold names of several
// crawlers of one operator (Yandex's holds its search crawler YandexBot and its AI-training
// YandexAdditional): a request is the crawler of the name it carries, with that name's
// categories (IdentifyBotName, LookupBotName); the entry says how to verify the claim.
type Bot struct {
	// ID is the data's identifier, e.g. "google-crawler".
	ID string
	// Names are the names IdentifyBot looks for in a User-Agent header, matched
	// case-insensitively as whole words (UAMatcher). The AI catalogue's names that extend
	// one of them past a '/' or '.' ("iaskspider/2.0", "panscient.com") are the bot's too
	// (BotNames lists every name).
	Names []string
	// Excludes are names that, found in the same header, mean it is not this bot: Apple's
	// link previews send "facebookexternalhit/1.1 Facebot Twitterbot/1.0" and are none of
	// those three (the data's forbidden patterns).
	Excludes []string
	// Operator runs the bot, e.g. "Google": the data's vendor category, else the operator
	// the AI catalogue gives the bot's names when it gives them one ("OpenAI" for GPTBot's
	// entry); "" when neither says.
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

// BotName is what a request is by the name its User-Agent carries (IdentifyBotName): one
// entry of the bot catalogue may hold names of several crawlers (Yandex's entry has YandexBot,
// its search crawler, and YandexAdditional, which collects for AI training), and a request
// is the crawler it names, never the whole entry. The entry (ID) says only how to verify
// the claim.
type BotName struct {
	// ID is the bot catalogue's entry the name belongs to, whose Verification checks the
	// claim; "" for a crawler only the AI catalogue knows (nothing verifies it).
	ID string
	// Name is the name as its catalogue spells it: "YandexBot".
	Name string
	// Operator runs the crawler: the bot catalogue's vendor for the entry, else the AI
	// catalogue's operator of the name, else the entry's (Bot.Operator); "" when neither
	// source knows it.
	Operator string
	// Categories are every category a matcher or a report names the crawler by: the entry's
	// in the bot catalogue's words (the data gives them per entry), followed by the AI
	// catalogue's of this name (none when the AI catalogue does not have it). The slice is
	// the caller's.
	Categories []string
}

// LookupBotName returns what a request naming name as the crawler of bot id is (id and name as
// IdentifyBotName returns them: id "" for a crawler only the AI catalogue knows). The name is
// compared without regard to case. It is false for a name that is not one of the entry's (or,
// for id "", not a name of the AI catalogue that no entry has).
func LookupBotName(id, name string) (BotName, bool) {
	bn, ok := botNames()[botNameKey{id, strings.ToLower(name)}]
	if ok {
		bn.Categories = slices.Clone(bn.Categories)
	}
	return bn, ok
}

// BotNames returns what a request naming each name of either catalogue is, as LookupBotName
// answers: every name of every bot (in ID order, names in the entry's order; a name several
// bots have once for each), then the names of the AI catalogue that no bot has (in All's
// order), each once without regard to case. The slice and its contents are the caller's.
func BotNames() []BotName {
	var out []BotName
	seen := map[botNameKey]bool{}
	add := func(id, name string) {
		k := botNameKey{id, strings.ToLower(name)}
		if !seen[k] {
			seen[k] = true
			out = append(out, botNames()[k])
			out[len(out)-1].Categories = slices.Clone(out[len(out)-1].Categories)
		}
	}
	for i := range bots {
		for _, n := range namesOf(i) {
			add(bots[i].ID, n)
		}
	}
	for _, n := range aiNames().aiOnly {
		add("", n)
	}
	return out
}

type botNameKey struct{ id, folded string }

// vendorOperator holds, by bot, the operator the bot data gives (its vendor category), before
// the AI catalogue fills the others' (init).
var vendorOperator [len(bots)]string

// init fills the operator of the bots the data gives none (GPTBot's, ClaudeBot's, CCBot's,
// Bytespider's entries) from the AI catalogue, where it gives the entry's names one operator.
func init() {
	for i := range bots {
		vendorOperator[i] = bots[i].Operator
		if bots[i].Operator != "" {
			continue
		}
		op := ""
		for _, n := range namesOf(i) {
			if e := aiEntry(n); e != nil && e.operator != "" {
				if op != "" && op != e.operator {
					op = "" // the names span operators: none is the entry's
					break
				}
				op = e.operator
			}
		}
		bots[i].Operator = op
	}
}

// aiEntry is the AI catalogue's entry of a name, as Lookup finds it (the exact spelling, else
// the first equal but for case); nil if none.
func aiEntry(name string) *entry {
	x := aiIndex()
	i, ok := x.exact[name]
	if !ok {
		if i, ok = x.folded[strings.ToLower(name)]; !ok {
			return nil
		}
	}
	return &catalog[i]
}

// aiIndex finds the AI catalogue's entries by name, for aiEntry, and holds each entry's name
// folded to lower case, by index (lower), as crawlers compare names.
var aiIndex = sync.OnceValue(func() (x struct {
	exact, folded map[string]int
	lower         []string
}) {
	x.exact, x.folded = make(map[string]int, len(catalog)), make(map[string]int, len(catalog))
	x.lower = make([]string, len(catalog))
	for i := range catalog {
		x.exact[catalog[i].name] = i
		x.lower[i] = strings.ToLower(catalog[i].name)
		if _, ok := x.folded[x.lower[i]]; !ok {
			x.folded[x.lower[i]] = i
		}
	}
	return x
})

// aiNames sorts the AI catalogue's names that no bot of the bot catalogue has (compared
// without regard to case), each once, in All's order: those whose leading word is a bot's
// name ("iaskspider/2.0", "panscient.com") are more names of that bot (byBot, by index in
// bots), which a header carrying them claims as much as the leading word; the others are
// crawlers only the AI catalogue knows (aiOnly: "Claude-User", "Google-Extended").
var aiNames = sync.OnceValue(func() (n struct {
	byBot  [][]string
	aiOnly []string
}) {
	has := map[string][]int{}
	for i := range bots {
		for _, name := range bots[i].Names {
			k := strings.ToLower(name)
			if !slices.Contains(has[k], i) {
				has[k] = append(has[k], i)
			}
		}
	}
	n.byBot = make([][]string, len(bots))
	seen := map[string]bool{}
	for i := range catalog {
		name := catalog[i].name
		k := strings.ToLower(name)
		if len(has[k]) > 0 || seen[k] {
			continue
		}
		seen[k] = true
		w := 0
		for w < len(k) && wordByte[k[w]] {
			w++
		}
		if owners := has[k[:w]]; len(owners) > 0 {
			for _, b := range owners {
				n.byBot[b] = append(n.byBot[b], name)
			}
			continue
		}
		n.aiOnly = append(n.aiOnly, name)
	}
	return n
})

// namesOf are the names of bot i: its Names, then the AI catalogue's names that extend one
// of them (aiNames).
func namesOf(i int) []string {
	return slices.Concat(bots[i].Names, aiNames().byBot[i])
}

// botNames is LookupBotName's table, by entry and folded name.
var botNames = sync.OnceValue(func() map[botNameKey]BotName {
	m := map[botNameKey]BotName{}
	for i := range bots {
		b := &bots[i]
		for _, n := range namesOf(i) {
			k := botNameKey{b.ID, strings.ToLower(n)}
			if _, ok := m[k]; ok {
				continue
			}
			bn := BotName{ID: b.ID, Name: n, Operator: vendorOperator[i], Categories: slices.Clone(b.Categories)}
			if e := aiEntry(n); e != nil {
				if bn.Operator == "" {
					bn.Operator = e.operator
				}
				bn.Categories = append(bn.Categories, e.crawler().Categories...)
			}
			if bn.Operator == "" {
				bn.Operator = b.Operator
			}
			m[k] = bn
		}
	}
	for _, n := range aiNames().aiOnly {
		c := aiEntry(n).crawler()
		m[botNameKey{"", strings.ToLower(n)}] = BotName{Name: c.Name, Operator: c.Operator, Categories: c.Categories}
	}
	return m
})

// botRef is one crawler a name of the matcher may be: a bot (by index in bots) and the name
// as that bot spells it; bot -1 for a name only the AI catalogue has.
type botRef struct {
	bot  int
	name string
	// index is the name's position in BotNames (the same order, the same dedup: by bot and
	// name without regard to case).
	index int
}

// botIndex is the matcher over every name of both catalogues and which crawlers each name is
// (by the spelling the matcher returns, the first given): the owner first (nameOwners), then
// in ID order.
type botIndex struct {
	m        *UAMatcher
	byName   map[string][]botRef
	excludes []*UAMatcher // per bot, nil without Excludes
	count    int          // len(BotNames())
}

var botMatcher = sync.OnceValue(func() botIndex {
	var names []string
	byKey := map[string][]botRef{} // folded name -> crawlers
	spelling := map[string]string{}
	x := botIndex{byName: map[string][]botRef{}, excludes: make([]*UAMatcher, len(bots))}
	add := func(i int, n string) {
		k := strings.ToLower(n)
		if len(byKey[k]) == 0 {
			names = append(names, n)
			spelling[k] = n
		}
		if !slices.ContainsFunc(byKey[k], func(r botRef) bool { return r.bot == i }) {
			byKey[k] = append(byKey[k], botRef{i, n, x.count})
			x.count++
		}
	}
	for i := range bots {
		for _, n := range namesOf(i) {
			add(i, n)
		}
		if len(bots[i].Excludes) > 0 {
			x.excludes[i] = mustMatcher(bots[i].Excludes)
		}
	}
	for _, n := range aiNames().aiOnly {
		add(-1, n)
	}
	for k, id := range nameOwners {
		refs := byKey[k]
		j := slices.IndexFunc(refs, func(r botRef) bool { return bots[r.bot].ID == id })
		if j > 0 {
			refs[0], refs[j] = refs[j], refs[0]
			slices.SortFunc(refs[1:], func(a, b botRef) int { return a.bot - b.bot })
		}
	}
	for k, refs := range byKey {
		x.byName[spelling[k]] = refs
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
// the bot of IdentifyBotName, false when the header names none or a crawler only the AI
// catalogue knows. A request is the crawler of the name it carries, which an entry of
// several crawlers does not tell: IdentifyBotName gives the name too.
func IdentifyBot(userAgent string) (id string, ok bool) {
	id = identifyBot(userAgent).id
	return id, id != ""
}

// IdentifyBotName returns the crawler a User-Agent header names: the first name of either
// catalogue found in it as a whole word, with UAMatcher's rules (never inside a URL or an
// e-mail address), as the catalogue spells it, and the ID of the bot whose name it is and
// whose Excludes the header does not name ("" for a name only the AI catalogue has).
// LookupBotName says what the crawler is. A browser's header names none. The header is a
// claim: the bot's Verification says how to check it.
func IdentifyBotName(userAgent string) (id, name string, ok bool) {
	a := identifyBot(userAgent)
	return a.id, a.name, a.ok
}

// IdentifyBotHeader is IdentifyBot over the values of a request's User-Agent field (its
// http.Header entry): the bot the first value naming one names. A request may carry the field
// twice; reading only the first value would let "User-Agent: Firefox" hide a second one that
// claims a crawler, which enforcement (reading every value) would see.
func IdentifyBotHeader(values []string) (id string, ok bool) {
	for _, v := range values {
		if id := identifyBot(v).id; id != "" {
			return id, true
		}
	}
	return "", false
}

// IdentifyBotNameHeader is IdentifyBotName over the values of a request's User-Agent field:
// the crawler the first value naming one names (see IdentifyBotHeader).
func IdentifyBotNameHeader(values []string) (id, name string, ok bool) {
	id, name, _, ok = IdentifyBotNameIndex(values)
	return id, name, ok
}

// IdentifyBotNameIndex is IdentifyBotNameHeader with the crawler's index: its position in
// BotNames, from 0 to NumBotNames()-1, so that a caller keeping something per crawler can
// keep it in a slice rather than a map keyed by bot and name (a request's identity is
// found once per request).
func IdentifyBotNameIndex(values []string) (id, name string, index int, ok bool) {
	for _, v := range values {
		if a := identifyBot(v); a.ok {
			return a.id, a.name, a.index, true
		}
	}
	return "", "", 0, false
}

// NumBotNames is len(BotNames()), without making the slice.
func NumBotNames() int { return botMatcher().count }

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
	ua, id, name string
	index        int // in BotNames
	ok           bool
}

// maxRecentUA is the longest header remembered; longer ones are scanned each time.
const maxRecentUA = 512

func init() { recent.seed = maphash.MakeSeed() }

// identifyBot answers for one User-Agent value (ua is not set).
func identifyBot(userAgent string) recentAnswer {
	if len(userAgent) > maxRecentUA {
		return scanBot(userAgent)
	}
	h := maphash.String(recent.seed, userAgent)
	pair := int(h&uint64(len(recent.slots)-1)) &^ 1
	for i := pair; i < pair+2; i++ {
		if a := recent.slots[i].Load(); a != nil && a.ua == userAgent {
			return *a
		}
	}
	a := scanBot(userAgent)
	a.ua = userAgent
	recent.slots[pair+int(h>>63)].Store(&a)
	return a
}

// scanBot is identifyBot without the memory of recent headers.
func scanBot(userAgent string) recentAnswer {
	x := botMatcher()
	found, ok := x.m.Match(userAgent)
	if !ok {
		return recentAnswer{}
	}
	for _, r := range x.byName[found] {
		if r.bot < 0 {
			return recentAnswer{name: r.name, index: r.index, ok: true}
		}
		if ex := x.excludes[r.bot]; ex != nil {
			if _, excluded := ex.Match(userAgent); excluded {
				continue
			}
		}
		return recentAnswer{id: bots[r.bot].ID, name: r.name, index: r.index, ok: true}
	}
	return recentAnswer{}
}

package crawlers

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

//go:generate go run ./internal/gencrawlers -in data/robots.json -data data/robots.json -out catalog_gen.go

// The categories a configuration can name. Each crawler of the catalogue is in
// AIAll and in zero or more of the others.
const (
	// AITraining: crawlers that collect content for data sets or for
	// training models (LLM training, data scrapers, data sold to AI
	// companies).
	AITraining = "ai-training"
	// AISearch: crawlers that index content for AI search or answer engines.
	// It also holds Applebot and PetalBot, which are ordinary search
	// crawlers too (Apple's Siri and Spotlight, Huawei's Petal Search).
	AISearch = "ai-search"
	// AIAssistants: fetchers acting on a user's behalf: assistants, agents,
	// coding agents, tools that fetch a URL a user gave them.
	AIAssistants = "ai-assistants"
	// AIAll: every crawler of the catalogue, including those whose purpose
	// the source does not know.
	AIAll = "ai-all"
)

// categoryNames is the order of Categories and of Crawler.Categories.
var categoryNames = []string{AIAll, AIAssistants, AISearch, AITraining}

// catMask is the generated table's compact form of a crawler's categories.
type catMask uint8

const (
	catAssistants catMask = 1 << iota
	catSearch
	catTraining

	catAll = catAssistants | catSearch | catTraining // every bit a crawler can have
)

func maskOf(category string) (catMask, bool) {
	switch strings.ToLower(category) {
	case AIAll:
		return 0, true
	case AIAssistants:
		return catAssistants, true
	case AISearch:
		return catSearch, true
	case AITraining:
		return catTraining, true
	}
	return 0, false
}

// Respect says whether a crawler is documented to respect robots.txt. The
// source's free text is read only for a leading yes or no; anything hedged
// ("Unclear at this time", "At the discretion of ... users") is unknown.
type Respect uint8

const (
	RespectUnknown Respect = iota // the source does not say, or says it is unclear
	RespectYes                    // the source says it respects robots.txt
	RespectNo                     // the source says it does not
)

// String returns "unknown", "yes" or "no".
func (r Respect) String() string {
	switch r {
	case RespectYes:
		return "yes"
	case RespectNo:
		return "no"
	}
	return "unknown"
}

// TokenClass says whether a crawler's name can be written to robots.txt.
type TokenClass uint8

const (
	// TokenProduct: an RFC 9309 product token (letters, '-', '_'); written
	// to robots.txt as is.
	TokenProduct TokenClass = iota + 1
	// TokenDigits: one word of letters, digits, '-' and '_' with at least one
	// digit (AI2Bot). Its operator documents it for robots.txt, so it may be
	// written there, but it should be flagged: RFC 9309 product tokens have
	// no digits, and Google's parser reads a user-agent value only up to the
	// first character outside the product-token alphabet, so it sees "AI"
	// for "AI2Bot".
	TokenDigits
	// TokenUAOnly: a name with spaces, '/', '.' or other characters
	// ("ChatGPT Agent", "iaskspider/2.0"). A robots.txt parser would read
	// only a prefix of it, which could name another crawler, so it is never
	// written to robots.txt; it serves only to match User-Agent headers.
	TokenUAOnly
)

// String returns "product", "digits" or "uaonly".
func (c TokenClass) String() string {
	switch c {
	case TokenProduct:
		return "product"
	case TokenDigits:
		return "digits"
	case TokenUAOnly:
		return "uaonly"
	}
	return fmt.Sprintf("TokenClass(%d)", uint8(c))
}

// Writable reports whether a name of this class may be written to a
// robots.txt user-agent line (TokenProduct and TokenDigits).
func (c TokenClass) Writable() bool { return c == TokenProduct || c == TokenDigits }

// Classify returns the token class of any name, in or out of the catalogue,
// so that a configuration can treat names a user adds the same way. The
// empty string is TokenUAOnly.
func Classify(name string) TokenClass {
	if name == "" {
		return TokenUAOnly
	}
	class := TokenProduct
	for i := 0; i < len(name); i++ {
		b := name[i]
		switch {
		case '0' <= b && b <= '9':
			class = TokenDigits
		case !wordByte[b]:
			return TokenUAOnly
		}
	}
	return class
}

// Crawler is one entry of the catalogue.
type Crawler struct {
	// Name is the user-agent name as the source spells it. Some names
	// differ only in case ("meta-externalagent" and "Meta-ExternalAgent");
	// they are separate entries, as in the source.
	Name string
	// Operator is the name of the company or project running the crawler,
	// taken from the source through a reviewed table (the source's field
	// often holds a description or a URL); "" when the source does not know.
	Operator string
	// Categories lists the categories that include the crawler, in the order
	// of Categories(); it always includes AIAll.
	Categories []string
	// Respects says whether the crawler is documented to respect robots.txt.
	Respects Respect
	// Token says whether Name may be written to robots.txt.
	Token TokenClass
}

// In reports whether the crawler is in the named category (case-insensitive).
func (c Crawler) In(category string) bool {
	for _, n := range c.Categories {
		if strings.EqualFold(n, category) {
			return true
		}
	}
	return false
}

// entry is a row of the generated table.
type entry struct {
	name, operator string
	cats           catMask
	respects       Respect
	token          TokenClass
}

func (e *entry) crawler() Crawler {
	cats := slices.Clone(categoriesOf()[e.cats])
	return Crawler{Name: e.name, Operator: e.operator, Categories: cats, Respects: e.respects, Token: e.token}
}

// categoriesOf is Crawler.Categories by catMask, made once: presets are expanded at every
// render and merge of a file that names one.
var categoriesOf = sync.OnceValue(func() (out [catAll + 1][]string) {
	for m := range out {
		out[m] = []string{AIAll}
		for _, n := range categoryNames[1:] {
			if c, _ := maskOf(n); catMask(m)&c != 0 {
				out[m] = append(out[m], n)
			}
		}
	}
	return out
})

// in reports whether the entry is in the category of mask m (0: AIAll, every entry).
func (e *entry) in(m catMask) bool { return m == 0 || e.cats&m != 0 }

// All returns every crawler of the catalogue, sorted case-insensitively by
// name. The slice and its contents are the caller's.
func All() []Crawler {
	out := make([]Crawler, len(catalog))
	for i := range catalog {
		out[i] = catalog[i].crawler()
	}
	return out
}

// Categories returns the names of the categories, sorted: ai-all,
// ai-assistants, ai-search, ai-training.
func Categories() []string { return append([]string(nil), categoryNames...) }

// IsCategory reports whether name is a category (case-insensitive). A
// configuration can use it to tell a category from a crawler name: no
// crawler is named like a category.
func IsCategory(name string) bool {
	_, ok := maskOf(name)
	return ok
}

// Category returns the crawlers of the named category (case-insensitive),
// sorted like All. An unknown name is an error that lists the known ones.
func Category(name string) ([]Crawler, error) {
	m, ok := maskOf(name)
	if !ok {
		return nil, fmt.Errorf("crawlers: unknown category %q (known: %s)", name, strings.Join(categoryNames, ", "))
	}
	var out []Crawler
	for i := range catalog {
		if catalog[i].in(m) {
			out = append(out, catalog[i].crawler())
		}
	}
	return out, nil
}

// Lookup returns the crawler with the given name, compared
// case-insensitively as robots.txt and User-Agent matching do. Where the
// source has two spellings of one name, the exact spelling wins, else the
// first in All's order.
func Lookup(name string) (Crawler, bool) {
	found := -1
	for i := range catalog {
		if catalog[i].name == name {
			return catalog[i].crawler(), true
		}
		if found < 0 && strings.EqualFold(catalog[i].name, name) {
			found = i
		}
	}
	if found < 0 {
		return Crawler{}, false
	}
	return catalog[found].crawler(), true
}

// RobotsTxtNames splits crawlers' names for a robots.txt writer: writable
// holds the names of classes TokenProduct and TokenDigits (flag the latter,
// see TokenDigits), uaOnly those of TokenUAOnly, which belong only in a
// UAMatcher. Both keep the order of cs and drop names equal to an earlier
// one but for case: robots.txt user-agent matching ignores case, so a second
// spelling adds nothing.
func RobotsTxtNames(cs []Crawler) (writable, uaOnly []string) {
	seen := make(map[string]bool, len(cs))
	for _, c := range cs {
		k := strings.ToLower(c.Name)
		if seen[k] {
			continue
		}
		seen[k] = true
		if Classify(c.Name).Writable() {
			writable = append(writable, c.Name)
		} else {
			uaOnly = append(uaOnly, c.Name)
		}
	}
	return writable, uaOnly
}

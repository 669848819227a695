package crawlers

import (
	"slices"
	"strings"
	"sync"
)

// wellKnown are the product tokens of search engines' and other common crawlers, documented
// by their operators for robots.txt. With the AI catalogue's they are KnownTokens.
var wellKnown = []string{
	// Google
	"Googlebot", "Googlebot-Image", "Googlebot-News", "Googlebot-Video", "Storebot-Google",
	"Google-InspectionTool", "GoogleOther", "GoogleOther-Image", "GoogleOther-Video",
	"Google-Extended", "AdsBot-Google", "AdsBot-Google-Mobile", "Mediapartners-Google",
	"APIs-Google", "FeedFetcher-Google", "Google-Safety",
	// Microsoft, Yahoo, DuckDuckGo, Yandex, Baidu, Apple and other search engines
	"Bingbot", "BingPreview", "AdIdxBot", "MSNBot", "Slurp", "DuckDuckBot", "DuckAssistBot",
	"YandexBot", "YandexImages", "YandexNews", "Baiduspider", "Applebot", "Applebot-Extended",
	"SeznamBot", "Yeti", "Sogou", "Exabot", "Qwantbot", "MojeekBot", "PetalBot", "coccocbot",
	"Naverbot", "Daumoa",
	// Social networks and link previews
	"facebookexternalhit", "Facebot", "Twitterbot", "LinkedInBot", "Pinterestbot", "Slackbot",
	"Discordbot", "TelegramBot", "WhatsApp",
	// Archives and SEO tools
	"ia_archiver", "archive-org-bot", "AhrefsBot", "SemrushBot", "DotBot", "MJ12bot", "rogerbot",
	"Screaming-Frog-SEO-Spider",
}

// known is KnownTokens' list and a matcher of it, made once.
var known = sync.OnceValue(func() (k struct {
	tokens []string
	m      *UAMatcher
}) {
	seen := map[string]bool{}
	add := func(n string) {
		if f := strings.ToLower(n); !seen[f] && IsToken(n) {
			seen[f] = true
			k.tokens = append(k.tokens, n)
		}
	}
	for _, n := range wellKnown {
		add(n)
	}
	writable, _ := RobotsTxtNames(All())
	for _, n := range writable {
		add(n)
	}
	k.m = mustMatcher(k.tokens)
	return k
})

// KnownTokens returns the product tokens of well-known crawlers, each once without regard to
// case: those search engines' and other common crawlers' operators document for robots.txt,
// then the AI catalogue's that may be written there (RobotsTxtNames). A robots.txt token is
// compared with them to find misspellings, and AgentToken looks for them in User-Agent
// headers. The slice is the caller's.
func KnownTokens() []string { return slices.Clone(known().tokens) }

// Found says how AgentToken found the token of an agent.
type Found uint8

const (
	// FoundAny: the agent is "" or "*", any crawler; the token is "*".
	FoundAny Found = iota
	// FoundToken: the agent is a product token (IsToken), the token itself.
	FoundToken
	// FoundName: a name given to AgentToken, or else a KnownTokens name, occurs in the
	// User-Agent header as a whole word (UAMatcher's rules).
	FoundName
	// FoundProduct: the header names no known crawler; the token is its crawler's own
	// product (HeaderProduct: "FooBot" of "Mozilla/5.0 (compatible; FooBot/1.0)").
	FoundProduct
	// FoundFirst: the header names no crawler at all (a browser's); the token is its first
	// product's (LeadingToken: "Mozilla").
	FoundFirst
	// FoundNone: the header has no product token; the token is "*".
	FoundNone
)

// AgentToken answers which crawler agent, a product token or a User-Agent header, names:
// the product token robots.txt groups are matched against for it. A product token is itself
// and "" or "*" any crawler ("*"). In a header it is the leftmost of names (the user agents of
// a robots.txt file's groups; those not IsToken are skipped) that occurs as a whole word, as
// enforcement reads the header; else the leftmost KnownTokens name; else the crawler's own
// product (HeaderProduct); else the header's first product (LeadingToken); else "*". A
// UAMatcher over the file's names gives the first step without allocating, as enforcement
// needs; IdentifyBotName says which catalogued crawler (and bot) a header claims to be.
func AgentToken(agent string, names []string) (token string, found Found) {
	agent = strings.TrimSpace(agent)
	switch {
	case agent == "" || agent == "*":
		return "*", FoundAny
	case IsToken(agent):
		return agent, FoundToken
	}
	var own []string
	for _, n := range names {
		if n != "*" && IsToken(n) {
			own = append(own, n)
		}
	}
	if m, err := NewUAMatcher(own); err == nil {
		if tok, ok := m.Match(agent); ok {
			return tok, FoundName
		}
	}
	if tok, ok := known().m.Match(agent); ok {
		return tok, FoundName
	}
	if tok := HeaderProduct(agent); tok != "" {
		return tok, FoundProduct
	}
	if tok := LeadingToken(agent); tok != "" {
		return tok, FoundFirst
	}
	return "*", FoundNone
}

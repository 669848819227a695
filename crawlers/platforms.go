package crawlers

import (
	"slices"
	"strings"
	"sync"
)

//go:generate go run ./internal/gencrawlers -platforms -in data/platforms.json -data data/platforms.json -out platforms_gen.go

// Platform is an operator of crawlers of the catalogue, seen as what it gives back: the
// hosts its products (search engine, assistant, answer engine, social network) send readers
// from. A publisher weighs its crawls (the crawlers of its operators and bots) against the
// visits with a Referer naming one of its hosts: the crawl-to-refer ratio (PlatformMethod).
//
// The table is the project's own data, data/platforms.json, each host group with the source
// it was taken from (data/SOURCE.md says how it is kept). A platform without hosts runs
// crawlers but has no product that sends readers with a Referer a site can attribute (Common
// Crawl, Apple's Siri and Spotlight, Amazon's Alexa): Note says why; its crawls count, its
// referrals are always zero.
type Platform struct {
	// ID is the platform's label value in metrics and reports: lowercase letters and digits,
	// e.g. "google", "openai".
	ID string
	// Name is how people write it: "OpenAI".
	Name string
	// Operators are the operator names of the catalogues (Bot.Operator, BotName.Operator,
	// Crawler.Operator) whose crawlers are the platform's.
	Operators []string
	// Bots are bot catalogue IDs (Bot.ID) that are the platform's though the data gives them
	// no operator ("duckduckgo-crawler").
	Bots []string
	// Hosts are the hosts its products send readers from.
	Hosts []PlatformHosts
	// Note says why a platform has no hosts.
	Note string
}

// PlatformHosts are host names of one product, from one source.
type PlatformHosts struct {
	// Names are lowercase DNS names, never a public suffix.
	Names []string
	// Subdomains: a name matches itself and every host under it ("www.google.com" and
	// "news.google.com" under "google.com"), else only itself ("chat.mistral.ai", where
	// mistral.ai is also the company's site). Matching is by whole labels, never substrings:
	// "notgoogle.com" and "google.com.evil.example" are nobody's.
	Subdomains bool
	// Product is what sends the readers: "Google Search", "ChatGPT".
	Product string
	// Source is where the hosts were taken from: the operator's documentation or product, or
	// a published list.
	Source string
}

// PlatformMethod is the URL of the published measurement the platforms follow: Cloudflare
// Radar's crawl-to-refer ratio, HTML pages requested by a platform's crawlers divided by
// requests for HTML pages whose Referer names one of its hosts.
const PlatformMethod = platformMethod

// Platforms returns every platform, sorted by ID; a platform's position here is its index
// (PlatformIndex, RefererPlatformIndex). The slice and its contents are the caller's.
func Platforms() []Platform {
	out := make([]Platform, len(platforms))
	for i := range platforms {
		out[i] = platforms[i].clone()
	}
	return out
}

// NumPlatforms is len(Platforms()), without making the slice.
func NumPlatforms() int { return len(platforms) }

// PlatformByID returns the platform with the given ID.
func PlatformByID(id string) (Platform, bool) {
	i, ok := PlatformIndex(id)
	if !ok {
		return Platform{}, false
	}
	return platforms[i].clone(), true
}

// PlatformIndex returns the index of the platform with the given ID in Platforms.
func PlatformIndex(id string) (int, bool) {
	return slices.BinarySearchFunc(platforms[:], id, func(p Platform, id string) int { return strings.Compare(p.ID, id) })
}

// PlatformID returns the ID of the platform at index i of Platforms; "" out of range.
func PlatformID(i int) string {
	if i < 0 || i >= len(platforms) {
		return ""
	}
	return platforms[i].ID
}

func (p *Platform) clone() Platform {
	c := *p
	c.Operators = slices.Clone(p.Operators)
	c.Bots = slices.Clone(p.Bots)
	c.Hosts = slices.Clone(p.Hosts)
	for i := range c.Hosts {
		c.Hosts[i].Names = slices.Clone(c.Hosts[i].Names)
	}
	return c
}

// platformIndex is the platforms' lookup tables, built once.
type platformIndex struct {
	byOperator map[string]int
	byBot      map[string]int
	// hosts: a host name to its platform, and whether hosts under it are the platform's too.
	hosts map[string]hostRule
}

type hostRule struct {
	platform   int
	subdomains bool
}

var platformTables = sync.OnceValue(func() *platformIndex {
	x := &platformIndex{byOperator: map[string]int{}, byBot: map[string]int{}, hosts: map[string]hostRule{}}
	for i := range platforms {
		for _, o := range platforms[i].Operators {
			x.byOperator[o] = i
		}
		for _, b := range platforms[i].Bots {
			x.byBot[b] = i
		}
		for _, g := range platforms[i].Hosts {
			for _, n := range g.Names {
				x.hosts[n] = hostRule{i, g.Subdomains}
			}
		}
	}
	return x
})

// OperatorPlatform returns the platform of an operator name of the catalogues
// (Bot.Operator, BotName.Operator, Crawler.Operator): its ID and index; false for an
// operator of no platform and for "".
func OperatorPlatform(operator string) (id string, index int, ok bool) {
	i, ok := platformTables().byOperator[operator]
	if !ok || operator == "" {
		return "", 0, false
	}
	return platforms[i].ID, i, true
}

// BotPlatform returns the platform of the bot with catalogue ID botID: the platform listing
// it among its Bots, else its operator's (Bot.Operator).
func BotPlatform(botID string) (id string, index int, ok bool) {
	x := platformTables()
	if i, ok := x.byBot[botID]; ok {
		return platforms[i].ID, i, true
	}
	b, ok := BotByID(botID)
	if !ok {
		return "", 0, false
	}
	return OperatorPlatform(b.Operator)
}

// CrawlerPlatform returns the platform of the crawler a User-Agent names, given as
// IdentifyBotName returns it (bot ID, name): the platform listing the bot among its Bots,
// else the platform of the crawler's operator (LookupBotName's Operator). A crawler whose
// operator is no platform's (a monitor, an SEO tool) has none.
func CrawlerPlatform(botID, name string) (id string, index int, ok bool) {
	if i, ok := platformTables().byBot[botID]; ok && botID != "" {
		return platforms[i].ID, i, true
	}
	if bn, ok := LookupBotName(botID, name); ok {
		return OperatorPlatform(bn.Operator)
	}
	if botID != "" {
		return BotPlatform(botID)
	}
	return "", 0, false
}

// maxHost is the longest DNS name (RFC 1035); a longer host is nobody's.
const maxHost = 253

// HostPlatform returns the platform whose products send readers from host: a name of its
// Hosts, or a host under a name whose Subdomains are the platform's, compared by whole
// labels without regard to case (one trailing dot ignored). It does not allocate.
func HostPlatform(host string) (id string, index int, ok bool) {
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > maxHost {
		return "", 0, false
	}
	for i := 0; i < len(host); i++ {
		if 'A' <= host[i] && host[i] <= 'Z' {
			return hostPlatformFold(host)
		}
	}
	x := platformTables().hosts
	if r, ok := x[host]; ok {
		return platforms[r.platform].ID, r.platform, true
	}
	for i := 0; i < len(host); i++ {
		if host[i] == '.' {
			if r, ok := x[host[i+1:]]; ok && r.subdomains {
				return platforms[r.platform].ID, r.platform, true
			}
		}
	}
	return "", 0, false
}

// hostPlatformFold is HostPlatform for a host with upper-case letters, lowered into a buffer
// on the stack (m[string(b)] does not allocate).
func hostPlatformFold(host string) (id string, index int, ok bool) {
	var buf [maxHost]byte
	b := buf[:len(host)]
	for i := 0; i < len(host); i++ {
		c := host[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	x := platformTables().hosts
	if r, ok := x[string(b)]; ok {
		return platforms[r.platform].ID, r.platform, true
	}
	for i := 0; i < len(b); i++ {
		if b[i] == '.' {
			if r, ok := x[string(b[i+1:])]; ok && r.subdomains {
				return platforms[r.platform].ID, r.platform, true
			}
		}
	}
	return "", 0, false
}

// RefererHost returns the host of a Referer value: an absolute http or https URL's host,
// without user information or port (RFC 9110 §10.1.3: the Referer is an absolute URI or a
// partial one; a partial one names this site, no platform). An IP literal, another scheme
// (android-app://, about:) or a value that is no URL gives false. It does not allocate.
func RefererHost(referer string) (string, bool) {
	rest, ok := cutSchemeFold(referer, "https://")
	if !ok {
		if rest, ok = cutSchemeFold(referer, "http://"); !ok {
			return "", false
		}
	}
	// The authority ends at the path, query or fragment; its host follows the last '@'.
	start, end := 0, len(rest)
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c == '/' || c == '?' || c == '#' {
			end = i
			break
		} else if c == '@' {
			start = i + 1
		}
	}
	rest = rest[start:end]
	if strings.HasPrefix(rest, "[") {
		return "", false // IPv6 literal
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		for j := i + 1; j < len(rest); j++ {
			if rest[j] < '0' || rest[j] > '9' {
				return "", false
			}
		}
		rest = rest[:i]
	}
	if rest == "" {
		return "", false
	}
	return rest, true
}

func cutSchemeFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}

// RefererPlatform returns the platform whose hosts a Referer value names (RefererHost,
// HostPlatform). The Referer is a claim, like User-Agent: any client can send any value,
// so a count of referrals measures what clients say, and nothing served may depend on it.
// It does not allocate.
func RefererPlatform(referer string) (id string, index int, ok bool) {
	h, ok := RefererHost(referer)
	if !ok {
		return "", 0, false
	}
	return HostPlatform(h)
}

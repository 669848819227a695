package metrics

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/mimetype"
)

// What a platform (crawlers.Platform) gives back, beside what its crawlers take: the
// crawl-to-refer ratio is CrawledHTML's count over Referred's (crawlers.PlatformMethod).
// Platforms are slots by their index in crawlers.Platforms, so label values are the
// catalogue's platform IDs and nothing a request sends.

// platformOf is, by crawler slot, the index of the crawler's platform, -1 for none: the bot's
// (crawlers.BotPlatform), the AI catalogue crawler's operator's, none for Other.
var platformOf = sync.OnceValue(func() []int {
	s := catalogue()
	out := make([]int, len(s.names))
	out[Other] = -1
	for id, c := range s.byID {
		out[c] = -1
		if _, p, ok := crawlers.BotPlatform(id); ok {
			out[c] = p
		}
	}
	for name, c := range s.byAIName {
		out[c] = -1
		if _, p, ok := crawlers.CrawlerPlatform("", name); ok {
			out[c] = p
		}
	}
	return out
})

// Platform returns the index in crawlers.Platforms of the crawler's platform; false for a
// crawler of no platform (an SEO tool, a monitor) and for Other.
func (c Crawler) Platform() (int, bool) {
	p := platformOf()[c]
	return p, p >= 0
}

// HTMLPage reports whether a response counts as an HTML page for the crawl-to-refer ratio,
// on both sides: a GET answered with a 2xx status and a Content-Type (its header values, the
// last valid one deciding, as browsers read it: mimetype.Extract) of text/html or
// application/xhtml+xml. HEAD transfers no page; a redirect is followed by the browser (with
// the same Referer) to the page that counts, so counting 3xx would count one visit twice; a
// 304 carries no Content-Type; an error page is no page the platform sent anyone to.
func HTMLPage(method string, status int, contentType []string) bool {
	if method != http.MethodGet || status < 200 || status > 299 {
		return false
	}
	if len(contentType) == 1 && strings.IndexByte(contentType[0], ',') < 0 {
		return isHTMLEssence(contentType[0]) // one value, no list to split
	}
	mt, ok := mimetype.Extract(contentType)
	return ok && (mt.IsHTML() || mt.IsXHTML())
}

// isHTMLEssence is mimetype.Extract's answer for one value, without parsing parameters: a
// value parses as text/html or application/xhtml+xml exactly when its part before the first
// ';', trimmed of HTTP whitespace, is one of them in any case (parameters never make a MIME
// type invalid, and both essences are tokens). The common response pays a comparison.
func isHTMLEssence(v string) bool {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	v = strings.Trim(v, " \t\r\n")
	return strings.EqualFold(v, "text/html") || strings.EqualFold(v, "application/xhtml+xml")
}

// platformCounts are the counts by platform, in Counters.
type platformCounts struct {
	crawled  []atomic.Uint64 // [platform][status]
	referred []atomic.Uint64 // [platform]
}

func newPlatformCounts() platformCounts {
	n := crawlers.NumPlatforms()
	return platformCounts{crawled: make([]atomic.Uint64, n*numStatuses), referred: make([]atomic.Uint64, n)}
}

// CrawledHTML counts one HTML page (HTMLPage) served to a crawler of platform p (an index in
// crawlers.Platforms) whose identity has status s (Unchecked when no verification is
// configured). An impostor is not the platform's crawler: the caller does not count it.
func (m *Counters) CrawledHTML(p int, s identity.Status) {
	m.platforms.crawled[p*numStatuses+int(s)].Add(1)
}

// Referred counts one HTML page (HTMLPage) served to a browser (a request whose User-Agent
// names no crawler) whose Referer names a host of platform p (crawlers.RefererPlatform).
func (m *Counters) Referred(p int) {
	m.platforms.referred[p].Add(1)
}

// EachCrawledHTML calls f for every platform and identity status whose crawlers were served
// an HTML page at least once, in a fixed order.
func (m *Counters) EachCrawledHTML(f func(platform, status string, count uint64)) {
	for i := range m.platforms.crawled {
		if n := m.platforms.crawled[i].Load(); n != 0 {
			f(crawlers.PlatformID(i/numStatuses), StatusLabel(identity.Status(i%numStatuses)), n)
		}
	}
}

// EachReferred calls f, in the order of crawlers.Platforms, with the count of referred
// visits of every platform that referred one or whose crawlers were served an HTML page, 0
// included: a platform that crawls has a ratio from its first crawl (infinite while it
// refers nobody), and a series that first appeared at 1 would hide that visit from
// Prometheus' increase(). A platform seen neither way is left out.
func (m *Counters) EachReferred(f func(platform string, count uint64)) {
	for i := range m.platforms.referred {
		n := m.platforms.referred[i].Load()
		if n == 0 && !m.crawledAny(i) {
			continue
		}
		f(crawlers.PlatformID(i), n)
	}
}

// crawledAny reports whether platform p's crawlers were served an HTML page.
func (m *Counters) crawledAny(p int) bool {
	for s := range numStatuses {
		if m.platforms.crawled[p*numStatuses+s].Load() != 0 {
			return true
		}
	}
	return false
}

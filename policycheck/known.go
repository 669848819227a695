package policycheck

import (
	"strings"
	"sync"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// wellKnown are the product tokens of search engines' and other common crawlers, documented
// by their operators. With the AI crawlers of package crawlers they are the names a token is
// compared with to find misspellings, and looked for in User-Agent headers.
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

var known = sync.OnceValue(func() []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if k := strings.ToLower(n); !seen[k] && syntax.CrawlerToken(n) {
			seen[k] = true
			out = append(out, n)
		}
	}
	for _, n := range wellKnown {
		add(n)
	}
	writable, _ := crawlers.RobotsTxtNames(crawlers.All())
	for _, n := range writable {
		add(n)
	}
	return out
})

// knownNames returns the well-known crawler names: wellKnown, then the catalogue's.
func knownNames() []string { return known() }

// isKnown reports whether tok names a known crawler (case-insensitive).
func isKnown(tok string) bool {
	for _, n := range knownNames() {
		if strings.EqualFold(n, tok) {
			return true
		}
	}
	return false
}

// googleOnly reports whether a product token is one of Google's crawlers, none of which
// reads Crawl-delay.
func googleOnly(tok string) bool {
	return strings.Contains(strings.ToLower(tok), "google")
}

// misspelling returns the well-known crawler name tok is probably a misspelling of, or "".
// A name that is known (or differs from one only in case, which matching ignores) is not a
// misspelling. The distance counts a swap of two adjacent letters as one edit; a name of up
// to 8 letters may be one edit away, a longer one two.
func misspelling(tok string) string {
	if tok == "*" || len(tok) < 4 || isKnown(tok) {
		return ""
	}
	lt := strings.ToLower(tok)
	limit := 1
	if len(tok) > 8 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, n := range knownNames() {
		if d := configerr.Distance(lt, strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

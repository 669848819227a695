package policycheck

import (
	"strings"
	"sync"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
)

// knownNames returns the well-known crawler names (crawlers.KnownTokens), made once.
var knownNames = sync.OnceValue(crawlers.KnownTokens)

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

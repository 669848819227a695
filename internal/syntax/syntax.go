// Package syntax holds the lexical rules that more than one part of caddy-robots checks: the
// RFC 9309 product token and Google's reading of one, the characters that would break a
// line, durations read as Caddy reads them, and the characters URIs exclude. Each rule exists
// once, here. It imports nothing of caddy-robots (TestImportsNothingOfTheModule): what is
// about crawler names (the names a configuration may give a crawler, the catalogue, presets)
// belongs to package crawlers, which rests on these rules.
package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// IsTokenByte reports whether c may appear in an RFC 9309 product token (§2.2.1).
func IsTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-'
}

// MaxFieldSize is the size every response field caddy-robots sends stays within: 8 KiB, the
// parsing limit the Robots-Tag draft sets as the minimum every parser honours, and a size
// servers and proxies are sure to pass. tagemit and usage export it.
const MaxFieldSize = 8 << 10

// GoogleAgentToken is the product token Google's robots.txt parser reads from the value of a
// user-agent line (google/robotstxt, RobotsMatcher::ExtractUserAgent): the longest prefix of
// A-Z, a-z, "_" and "-". "Googlebot/2.1" is Googlebot, "Foo.Bot" is Foo, "AI2Bot" is AI. The
// grobotstxt port, the tests' witness, widens the set to HTTP token characters (digits,
// ".", ...): comparisons with it read such names as the port does.
func GoogleAgentToken(v string) string {
	i := 0
	for i < len(v) && IsTokenByte(v[i]) {
		i++
	}
	return v[:i]
}

// ProductToken reports whether s is an RFC 9309 product token: one or more of A-Z, a-z,
// "_" and "-". "*" is not a product token; callers that accept the global agent check it.
func ProductToken(s string) bool { return s != "" && GoogleAgentToken(s) == s }

// ProductTokenProblem is what every front end says about a value that is not a product token.
const ProductTokenProblem = `a product token may contain only A-Z, a-z, "_" and "-" (RFC 9309), or be "*"`

// LineBreaking reports runes that must never appear in a value written into a line of
// robots.txt or a header: control characters (a CR or LF would start a new line and inject
// rules or fields), and the Unicode separators some readers treat as line ends.
func LineBreaking(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029
}

// TextProblem checks free text for a line: valid UTF-8 and nothing LineBreaking. It returns
// "" when s is fine.
func TextProblem(s string) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	for _, r := range s {
		if LineBreaking(r) {
			return fmt.Sprintf("must not contain control characters or line/paragraph separators (found %U), which would end the line and could inject content", r)
		}
	}
	return ""
}

// ParseDuration reads a duration the way Caddy does (caddy.ParseDuration): Go's syntax
// ("90s", "1h30m") plus a "d" unit of 24 hours anywhere ("1d", "1.5d", "1d12h").
func ParseDuration(s string) (time.Duration, error) {
	if len(s) > 1024 {
		return 0, fmt.Errorf("duration is too long")
	}
	in := s
	inNumber, numStart := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'd' {
			days, err := strconv.ParseFloat(s[numStart:i], 64)
			if err != nil {
				return 0, fmt.Errorf("invalid duration %q (use e.g. 30m, 1h, 1d)", in)
			}
			s = s[:numStart] + strconv.FormatFloat(days*24, 'f', -1, 64) + "h" + s[i+1:]
			i--
			continue
		}
		if !inNumber {
			numStart = i
		}
		inNumber = c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+'
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (use e.g. 30m, 1h, 1d)", in)
	}
	return d, nil
}

// URIExcludedChars are the printable ASCII characters RFC 3986 (section 2) leaves out of
// URIs. Some of them end a Link field's target ('>'), an HTML attribute ('"') or markup ('<'):
// a URL the config sends in a field, an attribute or a JSON document must percent-encode them.
const URIExcludedChars = "<>\"{}|\\^`"

// URIExcluded says what is wrong with a URL that holds a URIExcludedChars character, what
// ("a license URL", "a tdm-policy URL") naming it, or "" if it holds none. License URLs and
// tdm-policy URLs are checked by this one function.
func URIExcluded(what, s string) string {
	if i := strings.IndexAny(s, URIExcludedChars); i >= 0 {
		return fmt.Sprintf("%s must percent-encode %q, which URIs do not allow (RFC 3986 section 2)", what, s[i])
	}
	return ""
}

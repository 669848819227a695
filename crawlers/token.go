package crawlers

import (
	"fmt"
	"strings"
)

// IsToken reports whether s is a name a configuration may give a crawler: an RFC 9309
// product token, or one word of A-Z, a-z, 0-9, "_" and "-" with digits (AI2Bot, 360Spider),
// which operators document and their own parsers read whole (TokenProduct or TokenDigits).
// "*" is not one.
func IsToken(s string) bool { return Classify(s).Writable() }

// TokenProblem is what every front end says about a value that is not an IsToken name.
const TokenProblem = `a product token may contain only A-Z, a-z, 0-9, "_" and "-" (RFC 9309 product tokens have no digits; a name with digits is accepted with a warning), or be "*"`

// DigitTokenWarning is the warning for an IsToken name that is not an RFC 9309 product
// token: it holds a digit (TokenDigits).
const DigitTokenWarning = `this name has digits, which RFC 9309 product tokens do not allow: a strict parser (Google's robots.txt library) reads it only up to the first digit ("AI" of "AI2Bot"), so only crawlers that read the whole name obey it`

// LeadingToken is the longest prefix of s that an IsToken name may hold: A-Z, a-z, 0-9, "_"
// and "-". It is the name a parser that reads names with digits whole takes from a
// user-agent value ("ExampleBot" of "ExampleBot/1.0 (+https://...)").
func LeadingToken(s string) string {
	for i := 0; i < len(s); i++ {
		if !wordByte[s[i]] {
			return s[:i]
		}
	}
	return s
}

// NotToken is what every front end says about s, which is neither an IsToken name nor "*":
// the problem, and the token s most likely meant ("" when nothing fits). People often copy a
// crawler's name from its User-Agent header, so the suggestion is the crawler's name without
// its version ("Googlebot/2.1" and "Googlebot 2.1" mean Googlebot) and, in a whole header,
// the crawler it names rather than the browser products around it (HeaderProduct:
// "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)" means bingbot).
func NotToken(s string) (problem, suggestion string) {
	problem = TokenProblem
	if isVersion(s) {
		problem += "; this looks like a version number, which the token leaves out: name the crawler alone"
	}
	if t := HeaderProduct(s); t != "" && t != s {
		suggestion = t
	} else if n, _, ok := strings.Cut(s, "/"); ok && browserProducts[strings.ToLower(n)] {
		problem += fmt.Sprintf("; %s is the browser a User-Agent header claims to be compatible with, not a crawler: name the crawler by the product token in the header, e.g. Googlebot in %q", n, "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
	}
	return problem, suggestion
}

// browserProducts are the products of a User-Agent header that name the browser engine a
// crawler claims compatibility with, never the crawler.
var browserProducts = map[string]bool{
	"mozilla": true, "applewebkit": true, "chrome": true, "safari": true, "gecko": true,
	"firefox": true, "version": true, "mobile": true, "edg": true, "khtml": true,
}

// HeaderProduct returns the crawler's own product in s read as (a piece of) a User-Agent
// header, whether or not a catalogue knows it: the product after "compatible;" when there
// is one, else the first product with a version that is not a browser's, else the name of a
// name and a version ("Googlebot 2.1"). "" when that is not an IsToken name (a browser's
// header names none).
func HeaderProduct(s string) string {
	pieces := strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ';' || r == '(' || r == ')' || r == ','
	})
	name := func(p string) string {
		if strings.HasPrefix(p, "+") || strings.Contains(p, "://") || strings.Contains(p, "@") {
			return "" // a contact URL or address, not a product
		}
		n, _, _ := strings.Cut(p, "/")
		if !IsToken(n) || browserProducts[strings.ToLower(n)] || strings.EqualFold(n, "compatible") {
			return ""
		}
		return n
	}
	for i, p := range pieces {
		if strings.EqualFold(p, "compatible") && i+1 < len(pieces) {
			if n := name(pieces[i+1]); n != "" {
				return n
			}
		}
	}
	for _, p := range pieces {
		if strings.Contains(p, "/") {
			if n := name(p); n != "" {
				return n
			}
		}
	}
	if len(pieces) > 1 && !strings.Contains(s, "/") {
		for _, p := range pieces[1:] {
			if !isVersion(p) {
				return ""
			}
		}
		return name(pieces[0])
	}
	return ""
}

// isVersion reports whether s looks like a version number: digits with at least one dot
// ("2.1", "1.0.3"), maybe after a "v".
func isVersion(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	if s == "" || !strings.Contains(s, ".") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c == '.') {
			return false
		}
	}
	return s[0] != '.' && s[len(s)-1] != '.'
}

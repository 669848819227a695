// Package httplex holds the HTTP lexical rules that several packages read field values and
// URLs with, once: token characters (RFC 9110 section 5.6.2), comma-separated lists split
// outside quoted strings (sections 5.6.1 and 5.6.4), and the absolute http(s) URL a config
// or a command names. It builds on golang.org/x/net/http/httpguts where that has the rule.
//
// Structured Fields (RFC 9651) are not read here: they are httpsfv's. This package reads the
// fields that are not (or not only) Structured Fields: Link, Cache-Control, the legacy
// X-Robots-Tag syntax, a member-by-member reading of a broken field, Content-Type lists.
package httplex

import (
	"iter"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// IsTokenByte reports whether c is a tchar, a character of an RFC 9110 token (section 5.6.2).
func IsTokenByte(c byte) bool { return httpguts.IsTokenRune(rune(c)) }

// IsToken reports whether s is an RFC 9110 token: not empty, tchars only.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTokenByte(s[i]) {
			return false
		}
	}
	return true
}

// QuotedEnd returns the index just past the closing quote of the quoted-string that starts at
// s[i] (a '"'), a backslash escaping the next character (a quoted-pair, RFC 9110 section
// 5.6.4), or -1 when the quote is never closed.
func QuotedEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// Outside yields the index of every byte of s outside quoted strings, in order.
//
// A quoted string is RFC 9110's: from '"' to the next '"' not escaped by a backslash. By the
// grammar a quoted string is a whole value (of an element or a parameter), so it is followed,
// after optional whitespace, by ",", ";" or the end of the field; ")" is allowed too, which
// ends a Structured Field Inner List in fields read both ways. A quote that does not start
// such a string (never closed, or closed and followed by anything else) is an ordinary
// character: a stray quote hides none of the separators after it. The grammar gives no
// reading to those values; this one keeps every well-formed element of them.
//
// It takes time linear in len(s).
func Outside(s string) iter.Seq[int] {
	return func(yield func(int) bool) {
		plain := 0 // quotes before this index are known to be ordinary characters
		for i := 0; i < len(s); i++ {
			if s[i] == '"' && i >= plain {
				end := QuotedEnd(s, i)
				switch {
				case end < 0:
					// Every later quote is escaped in the scan that found no close, and
					// a scan from it would find none either.
					plain = len(s)
				case endsValue(s, end):
					i = end - 1
					continue
				default:
					// The quotes up to the closing one are escaped in the scan that found
					// it: a scan from any of them ends at the same quote, as badly.
					plain = end - 1
				}
			}
			if !yield(i) {
				return
			}
		}
	}
}

// endsValue reports whether s[i:] starts with optional whitespace and then ",", ";", ")" or
// the end: what may follow a quoted string.
func endsValue(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i == len(s) || s[i] == ',' || s[i] == ';' || s[i] == ')'
}

// Index returns the index of the first sep in s outside quoted strings (see Outside), or -1.
func Index(s string, sep byte) int {
	for i := range Outside(s) {
		if s[i] == sep {
			return i
		}
	}
	return -1
}

// Cut slices s around the first sep outside quoted strings (see Outside), as strings.Cut.
func Cut(s string, sep byte) (before, after string, found bool) {
	if i := Index(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// Elements yields the elements of the comma-separated list s (RFC 9110 section 5.6.1): split
// at the commas outside quoted strings (see Outside), trimmed of spaces and tabs, empty ones
// left out, as a recipient must read them. It takes time linear in len(s) (one pass) and
// does not allocate.
func Elements(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := 0
		for i := range Outside(s) {
			if s[i] != ',' {
				continue
			}
			if e := TrimOWS(s[start:i]); e != "" && !yield(e) {
				return
			}
			start = i + 1
		}
		if e := TrimOWS(s[start:]); e != "" {
			yield(e)
		}
	}
}

// ContainsToken reports whether one of the comma-separated lists lines holds the element
// token, compared without ASCII case: httpguts.HeaderValuesContainsToken, with commas inside
// quoted strings not separating (a Cache-Control `private="a, no-transform"` holds no
// no-transform directive).
func ContainsToken(lines []string, token string) bool {
	for _, l := range lines {
		for e := range Elements(l) {
			if strings.EqualFold(e, token) {
				return true
			}
		}
	}
	return false
}

// NextFetchElement is one step of the Fetch Standard's "get, decode, and split"
// (https://fetch.spec.whatwg.org/#header-value-get-decode-and-split), the browsers' reading
// of a list: the element up to the first comma outside a quoted string, trimmed of spaces
// and tabs, and the rest of s from that comma ("" at the end). Unlike Elements, every quote
// opens a quoted string and one never closed runs to the end, as Fetch says: a reader that
// must agree with browsers uses this one.
func NextFetchElement(s string) (elem, rest string) {
	i := 0
	for i < len(s) && s[i] != ',' {
		if s[i] == '"' {
			if end := QuotedEnd(s, i); end >= 0 {
				i = end
				continue
			}
			i = len(s)
			break
		}
		i++
	}
	return TrimOWS(s[:i]), s[i:]
}

// TrimOWS trims spaces and tabs (RFC 9110 OWS) from both ends of s.
func TrimOWS(s string) string { return strings.Trim(s, " \t") }

// NotAbsoluteURL is the one message for a value that must be an absolute http(s) URL and is
// not; callers put what the value is, and where, before it.
const NotAbsoluteURL = "must be an absolute http(s) URL"

// AbsoluteURL parses s as an absolute http or https URL (scheme in any case, a host) and
// reports false when it is not one. Callers that want more (an origin without a path, only
// printable ASCII) check it on the URL returned.
func AbsoluteURL(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	return u, true
}

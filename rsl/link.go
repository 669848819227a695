// Package rsl is what caddy-robots needs of Really Simple Licensing (RSL 1.0,
// https://rslstandard.org/rsl): the media type and namespace, the Link field that points a
// response at its license (the "HTTP headers" association of the specification), a reading
// of a backend's Link fields that finds a license link already there, and the license
// document (Document) rendered from a declarative block. The License line of robots.txt is
// robotsgen's (File.Licenses); the <link> element of HTML pages is tagemit's injector's.
package rsl

import (
	"strings"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
)

// MediaType is the media type of an RSL document, sent as the type parameter of a license
// link and as the Content-Type of a served document.
const MediaType = "application/rsl+xml"

// Namespace is the XML namespace of RSL 1.0 elements, the xmlns of the <rsl> root element.
const Namespace = "https://rslstandard.org/rsl"

// LinkValue is the Link field value (RFC 8288 section 3) that RSL gives a response whose
// license is the document at target: `<target>; rel="license"; type="application/rsl+xml"`.
// target is a URI reference as the config checks it (robotsgen's license check: an absolute
// http(s) URL or a path, with nothing a URI does not allow); a path is resolved by the client
// against the response's URL (RFC 8288 section 3.2), which names the same document as the
// robots.txt License line that the server resolves against the request's origin.
func LinkValue(target string) string {
	return "<" + target + `>; rel="license"; type="` + MediaType + `"`
}

// HasLicenseLink reports whether the Link field lines a backend sent already hold a link
// with relation type "license" to target, so that the route's is not sent twice. A path
// target also matches the absolute http or https URL of host with that path (the link the
// client would resolve it to); other targets are compared as written. Field lines are read
// as RFC 8288 section 3 writes them (link-values separated by commas, parameters by
// semicolons, values as tokens or quoted strings, rel a space-separated list compared without
// case); a value that does not parse stops the reading of its line, which then counts as not
// holding the link (the route's is added: a duplicate at worst, never a lost license). A
// link-value with an anchor parameter is about another context than this response (RFC 8288
// section 3.2) and does not count. It does not allocate.
func HasLicenseLink(fields []string, target, host string) bool {
	for _, f := range fields {
		if fieldHasLicenseLink(f, target, host) {
			return true
		}
	}
	return false
}

func fieldHasLicenseLink(f, target, host string) bool {
	i := 0
	for {
		i = skipOWSAndCommas(f, i)
		if i >= len(f) {
			return false
		}
		if f[i] != '<' {
			return false
		}
		end := strings.IndexByte(f[i+1:], '>')
		if end < 0 {
			return false
		}
		uri := f[i+1 : i+1+end]
		i += end + 2
		license, anchored := false, false
		// Parameters up to the comma that ends this link-value.
		for {
			i = skipOWS(f, i)
			if i >= len(f) || f[i] == ',' {
				break
			}
			if f[i] != ';' {
				return false
			}
			i = skipOWS(f, i+1)
			start := i
			for i < len(f) && httplex.IsTokenByte(f[i]) {
				i++
			}
			name := f[start:i]
			if name == "" {
				return false
			}
			i = skipOWS(f, i)
			if strings.EqualFold(name, "anchor") {
				anchored = true
			}
			if i >= len(f) || f[i] != '=' {
				continue // a parameter without a value
			}
			i = skipOWS(f, i+1)
			var val string
			quoted := false
			if i < len(f) && f[i] == '"' {
				end := httplex.QuotedEnd(f, i)
				if end < 0 {
					return false
				}
				val, quoted, i = f[i+1:end-1], true, end
			} else {
				start := i
				for i < len(f) && httplex.IsTokenByte(f[i]) {
					i++
				}
				val = f[start:i]
			}
			if strings.EqualFold(name, "rel") && relHasLicense(val, quoted) {
				license = true
			}
		}
		if license && !anchored && SameTarget(uri, target, host) {
			return true
		}
	}
}

// relHasLicense reports whether a rel value, a space-separated list of relation types, holds
// "license" (compared without case, RFC 8288 section 2.1.1). In a quoted value a backslash
// escapes the next character, which then compares as itself.
func relHasLicense(v string, quoted bool) bool {
	const want = "license"
	i := 0
	for i < len(v) {
		for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
			i++
		}
		n, ok := 0, true
		for i < len(v) && v[i] != ' ' && v[i] != '\t' {
			c := v[i]
			if quoted && c == '\\' && i+1 < len(v) {
				i++
				c = v[i]
			}
			if n >= len(want) || c|0x20 != want[n] {
				ok = false
			}
			n++
			i++
		}
		if ok && n == len(want) {
			return true
		}
	}
	return false
}

// SameTarget reports whether uri, a link target found in a response (a Link field's or an
// HTML <link>'s href), names the license target: written the same, or, for a path target, as
// the absolute http or https URL of host with that path (host compared without case), the
// URL a client resolves the path to on this request. It does not allocate.
func SameTarget(uri, target, host string) bool {
	if uri == target {
		return true
	}
	if !strings.HasPrefix(target, "/") || host == "" {
		return false
	}
	rest, ok := strings.CutPrefix(uri, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(uri, "http://"); !ok {
			return false
		}
	}
	return len(rest) == len(host)+len(target) && strings.EqualFold(rest[:len(host)], host) && rest[len(host):] == target
}

func skipOWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func skipOWSAndCommas(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
		i++
	}
	return i
}

package policycheck

import (
	"strings"

	"github.com/sitepolicy/caddy-robots/serve"
)

// covers reports whether every string matched by the glob r is matched by the glob s, where
// "*" matches any sequence of bytes and every other byte itself; both match whole strings.
// It reads r's "*" as a symbol that only a "*" of s can absorb: if s matches r so read, it
// matches every string r does. That is sound, and complete enough for the patterns people
// write ("/a" in "/a*", "/a/b*" in "/a/*", "*.pdf" in "*"); a false answer only means "not
// shown", never "not covered".
func covers(s, r string) bool {
	// m[i][j]: s[i:] matches r[j:]
	m := make([][]bool, len(s)+1)
	for i := range m {
		m[i] = make([]bool, len(r)+1)
	}
	m[len(s)][len(r)] = true
	for i := len(s) - 1; i >= 0; i-- {
		for j := len(r); j >= 0; j-- {
			if s[i] == '*' {
				// absorb nothing, or one more symbol of r
				m[i][j] = m[i+1][j] || (j < len(r) && m[i][j+1])
				continue
			}
			m[i][j] = j < len(r) && r[j] != '*' && r[j] == s[i] && m[i+1][j+1]
		}
	}
	return m[0][0]
}

// robotsGlob turns a robots.txt pattern into a whole-string glob: a pattern matches a prefix
// of the path unless it ends in "$". ok is false for patterns this package does not compare
// (escapes and non-ASCII octets, which robots.txt matching normalises first).
func robotsGlob(p string) (glob string, ok bool) {
	for i := 0; i < len(p); i++ {
		if p[i] == '%' || p[i] >= 0x80 {
			return "", false
		}
	}
	if strings.HasSuffix(p, "$") {
		return p[:len(p)-1], true
	}
	return p + "*", true
}

// pathGlob is a route's path pattern as a whole-string glob, when its kind has one
// (serve.PathGlob).
func pathGlob(p string) (glob string, ok bool) { return serve.PathGlob(p) }

// samplePath returns a path that a Caddy path pattern matches, to ask robots.txt about the
// route's pages: "/drafts/*" gives "/drafts/x", "*.pdf" "/x.pdf", "*" "/".
func samplePath(p string) (string, bool) {
	if p == "*" || p == "" {
		return "/", true
	}
	if strings.ContainsAny(p, "?[\\") {
		return "", false
	}
	s := strings.ReplaceAll(p, "*", "x")
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	return s, true
}

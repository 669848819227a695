package serve

import (
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// pathPattern is one path pattern with the semantics of Caddy's path matcher: case-insensitive;
// "/exact", "/prefix/*", "*.suffix", "*substring*", or a path.Match glob (any other pattern
// with *, ?, [ or \); a pattern with "%" compares the escaped path.
type pathPattern struct {
	raw     string
	kind    patternKind
	literal string // the pattern without its wildcards, lower case
	escaped bool
}

type patternKind uint8

const (
	matchAll patternKind = iota
	matchExact
	matchPrefix
	matchSuffix
	matchSubstring
	matchGlob
)

// compilePathPattern checks and compiles p.
func compilePathPattern(p string) (pathPattern, error) {
	if p == "" {
		return pathPattern{}, fmt.Errorf("a path pattern must not be empty")
	}
	if msg := syntax.TextProblem(p); msg != "" {
		return pathPattern{}, fmt.Errorf("a path pattern %s", msg)
	}
	lp := strings.ToLower(p)
	pp := pathPattern{raw: p, literal: lp, escaped: strings.Contains(p, "%")}
	stars := strings.Count(lp, "*")
	switch {
	case lp == "*":
		pp.kind = matchAll
	case stars == 0 && !strings.ContainsAny(lp, `?[\`):
		// Caddy compares a pattern without wildcards as a glob too, which is then an exact
		// comparison; one with ?, [ or \ is a glob still.
		pp.kind = matchExact
	case stars == 2 && lp[0] == '*' && lp[len(lp)-1] == '*':
		pp.kind, pp.literal = matchSubstring, lp[1:len(lp)-1]
	case stars == 1 && lp[0] == '*':
		pp.kind, pp.literal = matchSuffix, lp[1:]
	case stars == 1 && lp[len(lp)-1] == '*':
		pp.kind, pp.literal = matchPrefix, lp[:len(lp)-1]
	default:
		pp.kind = matchGlob
		if _, err := path.Match(lp, "/"); err != nil {
			return pathPattern{}, fmt.Errorf("a path pattern is a glob: %v", err)
		}
	}
	if pp.kind != matchAll && pp.kind != matchSuffix && pp.kind != matchSubstring && lp[0] != '/' && lp[0] != '*' {
		return pathPattern{}, fmt.Errorf("a path pattern must start with / or *")
	}
	return pp, nil
}

// PathGlob returns a route's path pattern as a glob over the whole lower-cased path in which
// "*" matches any bytes, for the kinds of pattern whose "*" does ("/exact", "/prefix*",
// "*suffix", "*substring*", "*"); ok is false for the other kinds (path.Match globs, whose "*"
// stops at "/"), escaped patterns and invalid ones. Lint compares routes with it.
func PathGlob(p string) (glob string, ok bool) {
	pp, err := compilePathPattern(p)
	if err != nil || pp.kind == matchGlob || pp.escaped {
		return "", false
	}
	return strings.ToLower(p), true
}

// Match reports whether the request path matches. reqPath is RequestPath(r), computed once
// per request for every pattern.
func (pp *pathPattern) Match(r *http.Request, reqPath string) bool {
	if pp.escaped {
		reqPath = cleanPath(strings.ToLower(r.URL.EscapedPath()))
	}
	switch pp.kind {
	case matchAll:
		return true
	case matchExact:
		return reqPath == pp.literal
	case matchPrefix:
		return strings.HasPrefix(reqPath, pp.literal)
	case matchSuffix:
		return strings.HasSuffix(reqPath, pp.literal)
	case matchSubstring:
		return strings.Contains(reqPath, pp.literal)
	default:
		ok, _ := path.Match(pp.literal, reqPath)
		return ok
	}
}

// cleanPath normalises a request path the way Caddy's matcher does before comparing: dot
// segments resolved and repeated slashes merged, so "/a//b/../c" cannot slip past "/a/c".
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	trailing := strings.HasSuffix(p, "/") && p != "/"
	c := path.Clean(p)
	if !strings.HasPrefix(c, "/") {
		c = "/" + c
	}
	if trailing && c != "/" {
		c += "/"
	}
	return c
}

// requestPath is the form of r's path that patterns compare against. It allocates only when
// the path has upper-case letters or needs cleaning.
func requestPath(r *http.Request) string {
	p := r.URL.Path
	lower, clean := pathNeeds(p)
	if lower {
		p = strings.ToLower(p)
		_, clean = pathNeeds(p)
	}
	if clean {
		p = cleanPath(p)
	}
	return p
}

// pathNeeds reports, in one pass over p (every request with routes pays for it), whether it
// has bytes strings.ToLower may change (upper-case ASCII or non-ASCII) and whether cleanPath
// would change it: empty, not rooted, or with "//" or "/.".
func pathNeeds(p string) (lower, clean bool) {
	if p == "" || p[0] != '/' {
		clean = true
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case 'A' <= c && c <= 'Z' || c >= 0x80:
			lower = true
		case c == '/' && i+1 < len(p) && (p[i+1] == '/' || p[i+1] == '.'):
			clean = true
		}
	}
	return lower, clean
}

package serve

import (
	"net/http"
	"slices"
	"strings"
)

// indexMinRoutes is the number of routes from which a Core looks routes up in a routeIndex
// rather than trying each: below it, trying a few patterns costs less than the index's map
// lookups (BenchmarkRoutesScale).
const indexMinRoutes = 8

// routeIndex finds the routes that apply to a request in time that depends on the request's
// path, not on the number of routes. Path patterns of these shapes are indexed:
//
//   - exact paths ("/about"): one map lookup;
//   - directory prefixes ("/docs/*"): a lookup at each "/" of the path;
//   - extensions ("*.pdf"): a lookup of the path's extension;
//   - other prefixes ("/blog*") and suffixes ("*-draft", "*.tar.gz"): a lookup per distinct
//     length of such patterns (at most the path's length);
//   - "*": always.
//
// Substring patterns ("*draft*"), globs ("/v[12]/*.json") and patterns with a percent
// escape are tried one by one, as without the index. A route applies when one of its patterns
// matches (or it has none) and its match function, if any, accepts the request: the index
// finds the candidates, the match function is asked of them only.
type routeIndex struct {
	exact    map[string][]int32
	dirs     map[string][]int32
	exts     map[string][]int32
	prefixes lengthIndex
	suffixes lengthIndex
	always   []int32 // routes without patterns, or with "*"
	scan     []int32 // routes with a pattern of no indexed shape: tried whole
}

// lengthIndex holds literals by their value, and the distinct lengths they have.
type lengthIndex struct {
	m    map[string][]int32
	lens []int // ascending
}

func (li *lengthIndex) add(lit string, i int32) {
	if li.m == nil {
		li.m = map[string][]int32{}
	}
	li.m[lit] = appendOnce(li.m[lit], i)
	if !slices.Contains(li.lens, len(lit)) {
		li.lens = append(li.lens, len(lit))
		slices.Sort(li.lens)
	}
}

func appendOnce(s []int32, i int32) []int32 {
	if len(s) > 0 && s[len(s)-1] == i {
		return s
	}
	return append(s, i)
}

func addTo(m *map[string][]int32, key string, i int32) {
	if *m == nil {
		*m = map[string][]int32{}
	}
	(*m)[key] = appendOnce((*m)[key], i)
}

// newRouteIndex indexes routes (their patterns compiled).
func newRouteIndex(routes []route) *routeIndex {
	ix := &routeIndex{}
	for ri := range routes {
		i := int32(ri)
		cr := &routes[ri]
		if len(cr.patterns) == 0 {
			ix.always = append(ix.always, i)
			continue
		}
		scanned := false
		for _, pp := range cr.patterns {
			if pp.escaped {
				scanned = true
				continue
			}
			switch lit := pp.literal; pp.kind {
			case matchAll:
				ix.always = appendOnce(ix.always, i)
			case matchExact:
				addTo(&ix.exact, lit, i)
			case matchPrefix:
				if strings.HasSuffix(lit, "/") {
					addTo(&ix.dirs, lit, i)
				} else {
					ix.prefixes.add(lit, i)
				}
			case matchSuffix:
				if isExtension(lit) {
					addTo(&ix.exts, lit, i)
				} else {
					ix.suffixes.add(lit, i)
				}
			default:
				scanned = true
			}
		}
		if scanned {
			ix.scan = append(ix.scan, i)
		}
	}
	return ix
}

// isExtension reports whether a suffix literal is an extension: "." and then bytes that are
// neither "." nor "/".
func isExtension(lit string) bool {
	return len(lit) > 1 && lit[0] == '.' && !strings.ContainsAny(lit[1:], "./")
}

// extension is the extension of a request path ("" for none): from its last "." after its
// last "/".
func extension(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		switch p[i] {
		case '.':
			return p[i:]
		case '/':
			return ""
		}
	}
	return ""
}

// candidates appends to out the indexes of the routes one of whose indexed patterns matches
// reqPath, those without patterns or with "*", and those that must be tried whole; sorted,
// each once.
func (ix *routeIndex) candidates(reqPath string, out []int32) []int32 {
	out = append(out, ix.always...)
	out = append(out, ix.scan...)
	if len(ix.exact) > 0 {
		out = append(out, ix.exact[reqPath]...)
	}
	if len(ix.dirs) > 0 {
		for i := 0; i < len(reqPath); i++ {
			if reqPath[i] == '/' {
				out = append(out, ix.dirs[reqPath[:i+1]]...)
			}
		}
	}
	if len(ix.exts) > 0 {
		if ext := extension(reqPath); ext != "" {
			out = append(out, ix.exts[ext]...)
		}
	}
	for _, n := range ix.prefixes.lens {
		if n > len(reqPath) {
			break
		}
		out = append(out, ix.prefixes.m[reqPath[:n]]...)
	}
	for _, n := range ix.suffixes.lens {
		if n > len(reqPath) {
			break
		}
		out = append(out, ix.suffixes.m[reqPath[len(reqPath)-n:]]...)
	}
	// Usually a few candidates: an insertion sort, then each once.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return slices.Compact(out)
}

// lookup appends to matched the taggers of the routes that apply to r, in route order, as
// trying every route would.
func (ix *routeIndex) lookup(routes []route, r *http.Request, reqPath string, matched []*tagger) []*tagger {
	var buf [16]int32
	for _, i := range ix.candidates(reqPath, buf[:0]) {
		cr := &routes[i]
		if ix.mustScan(i) {
			if cr.matches(r, reqPath) {
				matched = append(matched, cr.tagger)
			}
			continue
		}
		if cr.match == nil || cr.match(r) {
			matched = append(matched, cr.tagger)
		}
	}
	return matched
}

// mustScan reports whether route i is tried whole (it has a pattern the index does not hold,
// so being a candidate proves nothing).
func (ix *routeIndex) mustScan(i int32) bool {
	_, found := slices.BinarySearch(ix.scan, i)
	return found
}

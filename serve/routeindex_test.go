package serve

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestRouteIndexAgreesWithScan: for random sets of routes (patterns of every shape, escaped
// ones, several per route, none, match functions) and random request paths, the index
// finds exactly the routes, in the same order, that trying every route finds.
func TestRouteIndexAgreesWithScan(t *testing.T) {
	segs := []string{"a", "b", "docs", "Docs", "x.pdf", "y.PDF", "v1", "v2", "draft", "a.tar.gz", "%41", "A", ".", "..", "", "index.html", "-draft"}
	pats := func(rng *rand.Rand) string {
		seg := func() string { return segs[rng.IntN(len(segs))] }
		switch rng.IntN(14) {
		case 0:
			return "*"
		case 1:
			return "/" + seg() + "/" + seg()
		case 2, 3:
			return "/" + seg() + "/*"
		case 4:
			return "/" + seg() + "/" + seg() + "/*"
		case 5:
			return "/" + seg() + "*"
		case 6, 7:
			return "*." + []string{"pdf", "PDF", "gz", "html", "tar.gz"}[rng.IntN(5)]
		case 8:
			return "*" + seg()
		case 9:
			return "*" + seg() + "*"
		case 10:
			return []string{"/v[12]/*", "/v[12]/*.pdf"}[rng.IntN(2)]
		case 11:
			return "/" + seg() + "/%41*"
		case 12:
			return "/" + seg()
		default:
			return "/" + seg() + "/" + seg() + "/" + seg()
		}
	}
	rng := rand.New(rand.NewPCG(25, 9309))
	cases := 3000
	if testing.Short() {
		cases = 300
	}
	if raceEnabled {
		// Under the race detector only races are looked for: the first cases of the same
		// seed, all of which the full-size run without -race (./test.sh) checks too.
		cases = 100
	}
	found := 0
	for c := range cases {
		var routes []route
		n := indexMinRoutes + rng.IntN(40)
		for i := range n {
			cr := route{tagger: &tagger{}}
			for range rng.IntN(4) {
				pp, err := compilePathPattern(pats(rng))
				if err != nil {
					continue
				}
				cr.patterns = append(cr.patterns, pp)
			}
			if rng.IntN(4) == 0 {
				want := fmt.Sprint(i % 3)
				cr.match = func(r *http.Request) bool { return r.Header.Get("X-Route") == want }
			}
			routes = append(routes, cr)
		}
		ix := newRouteIndex(routes)
		for range 20 {
			var p strings.Builder
			for range 1 + rng.IntN(4) {
				p.WriteString("/" + segs[rng.IntN(len(segs))])
			}
			if rng.IntN(5) == 0 {
				p.WriteString("/")
			}
			r := httptest.NewRequest("GET", "http://example.com/", nil)
			r.URL.Path = p.String()
			r.URL.RawPath = ""
			r.Header.Set("X-Route", fmt.Sprint(rng.IntN(3)))
			reqPath := requestPath(r)
			var want []*tagger
			for i := range routes {
				if routes[i].matches(r, reqPath) {
					want = append(want, routes[i].tagger)
				}
			}
			got := ix.lookup(routes, r, reqPath, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("case %d, path %q: the index finds %v, trying every route %v", c, r.URL.Path, indexesOf(routes, got), indexesOf(routes, want))
			}
			found += len(want)
		}
	}
	if found < cases {
		t.Errorf("only %d matches over %d cases: the generator finds too little", found, cases)
	}
}

func indexesOf(routes []route, ts []*tagger) []int {
	var out []int
	for _, t := range ts {
		for i := range routes {
			if routes[i].tagger == t {
				out = append(out, i)
			}
		}
	}
	return out
}

// TestRouteIndexShapes: which patterns the index holds, and which are tried whole.
func TestRouteIndexShapes(t *testing.T) {
	var routes []route
	for _, p := range []string{"/about", "/docs/*", "*.pdf", "/blog*", "*-draft", "*.tar.gz", "*", "*draft*", "/v[12]/*.json", "/%41/*"} {
		pp, err := compilePathPattern(p)
		if err != nil {
			t.Fatal(err)
		}
		routes = append(routes, route{patterns: []pathPattern{pp}, tagger: &tagger{}})
	}
	ix := newRouteIndex(routes)
	if len(ix.exact) != 1 || len(ix.dirs) != 1 || len(ix.exts) != 1 || len(ix.prefixes.m) != 1 || len(ix.suffixes.m) != 2 {
		t.Errorf("indexed: exact %v, dirs %v, exts %v, prefixes %v, suffixes %v", ix.exact, ix.dirs, ix.exts, ix.prefixes.m, ix.suffixes.m)
	}
	if !slices.Equal(ix.always, []int32{6}) || !slices.Equal(ix.scan, []int32{7, 8, 9}) {
		t.Errorf("always %v, scanned %v", ix.always, ix.scan)
	}
}

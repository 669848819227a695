package serve_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
)

// patternRoutes are one route per pattern; route i tags its responses with "bot<i>;noindex",
// so the Robots-Tag a response carries says which routes matched it.
var patternRoutes = []string{
	0:  "/exact",
	1:  "/prefix/*",
	2:  "*.pdf",
	3:  "*draft*",
	4:  "/a/*/c",       // one * in the middle: a glob
	5:  "/img/*.PNG",   // a glob, compared in lower case
	6:  "/caf%C3%A9/*", // escaped: compared with the escaped path
	7:  "/a%2Fb",       // %2F is not "/" here
	8:  "/x/y",         // unescaped: the decoded path, so /x%2Fy matches
	9:  "/trail/",
	10: "/ÜBER/*", // non-ASCII lower-cased too
	11: "/v*/api/*",
}

func patternConfig() policy.Config {
	var cfg policy.Config
	for i, p := range patternRoutes {
		cfg.RobotsTag = append(cfg.RobotsTag, policy.Route{Paths: []string{p}, Tags: policy.Tags{Rules: rules(fmt.Sprintf("bot%d", i), "noindex")}})
	}
	return cfg
}

// TestPathPatterns drives every kind of pattern over HTTP/1.1 and HTTP/2: the routes that
// Routes reports for the request the server parsed are the ones whose rules the response
// carries, read back with httpsfv.
func TestPathPatterns(t *testing.T) {
	core := mustCore(t, patternConfig())
	h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprint(w, core.Routes(r))
	}))
	cases := []struct {
		path string
		want []int
	}{
		{"/exact", []int{0}},
		{"/EXACT", []int{0}},
		{"/exact?q=1", []int{0}},
		{"/exact/", nil},
		{"/exactly", nil},
		{"/prefix/", []int{1}},
		{"/prefix/a/b", []int{1}},
		{"/PREFIX/A", []int{1}},
		{"/prefix", nil},
		{"/doc.pdf", []int{2}},
		{"/a/b/DOC.PDF", []int{2}},
		{"/doc.pdf/x", nil},
		{"/my-drafts/x", []int{3}},
		{"/DRAFT", []int{3}},
		{"/draft.pdf", []int{2, 3}},
		{"/a/b/c", []int{4}},
		{"/a/B/C", []int{4}},
		{"/a/b/d/c", nil}, // * does not cross a slash
		{"/a//c", nil},    // cleaned to /a/c: no segment for *
		{"/img/logo.png", []int{5}},
		{"/IMG/Logo.Png", []int{5}},
		{"/img/sub/logo.png", nil},
		{"/caf%C3%A9/menu", []int{6}},
		{"/CAF%c3%a9/menu", []int{6}},
		{"/a%2Fb", []int{7}},
		{"/a%2fb", []int{7}},
		{"/a/b", nil},
		{"/x/y", []int{8}},
		{"/X/Y", []int{8}},
		{"/x%2Fy", []int{8}},
		{"/x//y", []int{8}},
		{"/x/./y", []int{8}},
		{"/z/../x/y", []int{8}},
		{"/x/y/", nil},
		{"/trail/", []int{9}},
		{"/trail//", []int{9}},
		{"/trail", nil},
		{"/%C3%9Cber/x", []int{10}},
		{"/%C3%BCber/x", []int{10}},
		{"/v1/api/x", []int{11}},
		{"/v1/api/x/y", nil},
		{"/", nil},
	}
	for _, s := range both(t, h) {
		for _, c := range cases {
			resp, body := s.do(t, "GET", c.path)
			if want := fmt.Sprint(c.want); string(body) != want && !(c.want == nil && string(body) == "[]") {
				t.Errorf("%s %s: Routes %s, want %s", s.name, c.path, body, want)
			}
			if c.want == nil {
				if v := resp.Header.Values("Robots-Tag"); v != nil {
					t.Errorf("%s %s: no route matches, but Robots-Tag %q", s.name, c.path, v)
				}
				continue
			}
			got := sfvMembers(t, resp.Header.Values("Robots-Tag"))
			var tokens []string
			for tok, params := range got {
				if !slices.Equal(params, []string{"noindex"}) {
					t.Errorf("%s %s: %s;%v", s.name, c.path, tok, params)
				}
				tokens = append(tokens, tok)
			}
			sort.Strings(tokens)
			var want []string
			for _, i := range c.want {
				want = append(want, fmt.Sprintf("bot%d", i))
			}
			sort.Strings(want)
			if !slices.Equal(tokens, want) {
				t.Errorf("%s %s: Robots-Tag %q names %v, want %v", s.name, c.path, resp.Header.Get("Robots-Tag"), tokens, want)
			}
		}
	}
}

// TestPathPatternsWithMatch: a route's Match must accept the request too; "*" and no paths
// match every path; Routes lists the indexes in config order.
func TestPathPatternsWithMatch(t *testing.T) {
	core := mustCore(t, policy.Config{RobotsTag: []policy.Route{
		{Paths: []string{"/m/*"}, Match: func(r *http.Request) bool { return r.Header.Get("X-Member") == "1" }, Tags: policy.Tags{Rules: rules("*", "noindex")}},
		{Paths: []string{"*"}, Tags: policy.Tags{Rules: rules("*", "nosnippet")}},
		{Tags: policy.Tags{Rules: rules("*", "noarchive")}},
		{Match: func(r *http.Request) bool { return r.Method == http.MethodPost }, Tags: policy.Tags{Rules: rules("*", "nofollow")}},
		{Paths: []string{"/nope", "/m/a"}, Tags: policy.Tags{Rules: rules("*", "notranslate")}},
	}})
	for _, c := range []struct {
		method, path, member string
		want                 []int
	}{
		{"GET", "/m/a", "1", []int{0, 1, 2, 4}},
		{"GET", "/m/a", "", []int{1, 2, 4}},
		{"GET", "/m/b", "1", []int{0, 1, 2}},
		{"POST", "/other", "1", []int{1, 2, 3}},
		{"GET", "/", "", []int{1, 2}},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		if c.member != "" {
			r.Header.Set("X-Member", c.member)
		}
		if got := core.Routes(r); !slices.Equal(got, c.want) {
			t.Errorf("%s %s member=%q: Routes %v, want %v", c.method, c.path, c.member, got, c.want)
		}
	}
	// Without path patterns anywhere, Routes still applies Match.
	core = mustCore(t, policy.Config{RobotsTag: []policy.Route{
		{Match: func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/q") }, Tags: policy.Tags{Rules: rules("*", "noindex")}},
		{Tags: policy.Tags{Rules: rules("*", "nosnippet")}},
	}})
	if got := core.Routes(httptest.NewRequest("GET", "/q", nil)); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("/q: %v", got)
	}
	if got := core.Routes(httptest.NewRequest("GET", "/r", nil)); !slices.Equal(got, []int{1}) {
		t.Errorf("/r: %v", got)
	}
}

// TestPathPatternErrors: New names every bad pattern by its field path and value, and only
// those; the good patterns of the same routes are not reported.
func TestPathPatternErrors(t *testing.T) {
	noindex := policy.Tags{Rules: rules("*", "noindex")}
	_, err := serve.New(policy.Config{RobotsTag: []policy.Route{
		{Paths: []string{"/ok", "", "drafts"}, Tags: noindex},
		{Paths: []string{"*.pdf"}, Tags: noindex},
		{Paths: []string{"/a\nb", "/a/*/[", "/fine/*", "/x\x00"}, Tags: noindex},
	}}, serve.Options{})
	want := []struct{ path, value, problem string }{
		{"robots_tag[0].paths[1]", "", "a path pattern must not be empty"},
		{"robots_tag[0].paths[2]", "drafts", "a path pattern must start with / or *"},
		{"robots_tag[2].paths[0]", "/a\nb", "a path pattern "},
		{"robots_tag[2].paths[1]", "/a/*/[", "a path pattern is a glob: syntax error in pattern"},
		{"robots_tag[2].paths[3]", "/x\x00", "a path pattern "},
	}
	got := configerr.All(err)
	if len(got) != len(want) {
		t.Fatalf("%d errors, want %d: %v", len(got), len(want), err)
	}
	for i, w := range want {
		if got[i].Path != w.path || got[i].Value != w.value || !strings.HasPrefix(got[i].Problem, w.problem) {
			t.Errorf("error %d: %q %q %q, want %q %q %q...", i, got[i].Path, got[i].Value, got[i].Problem, w.path, w.value, w.problem)
		}
	}
	if !strings.Contains(err.Error(), `robots_tag[0].paths[2] "drafts": a path pattern must start with / or *`) {
		t.Errorf("error text %q", err)
	}
}

// TestPathGlobsWithoutStar: as in Caddy's path matcher, a pattern without "*" but with ?, [
// or \ is a glob (each decision below is Caddy v2.11's MatchPath's); a malformed one is
// refused at load.
func TestPathGlobsWithoutStar(t *testing.T) {
	patterns := []string{"/file?.txt", "/v[12]/api", `/a\b`, "/F[^a-z]le", `/q\?x`}
	var cfg policy.Config
	for _, p := range patterns {
		cfg.RobotsTag = append(cfg.RobotsTag, policy.Route{Paths: []string{p}, Tags: policy.Tags{Rules: rules("*", "noindex")}})
	}
	core := mustCore(t, cfg)
	s := startH1(t, frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprint(w, core.Routes(r))
	})))
	for _, c := range []struct {
		path string
		want string
	}{
		{"/file1.txt", "[0]"},
		{"/FILE2.TXT", "[0]"},
		{"/file%3F.txt", "[0]"}, // "?" matches the decoded "?" too
		{"/file12.txt", "[]"},
		{"/v1/api", "[1]"},
		{"/V2/API", "[1]"},
		{"/v3/api", "[]"},
		{"/ab", "[2]"},
		{"/a%5Cb", "[]"},
		{"/F1le", "[3]"},
		{"/fale", "[]"},
		{"/q%3Fx", "[4]"},
		{"/qax", "[]"},
	} {
		if _, body := s.do(t, "GET", c.path); string(body) != c.want {
			t.Errorf("%s: Routes %s, want %s", c.path, body, c.want)
		}
	}
	_, err := serve.New(policy.Config{RobotsTag: []policy.Route{{Paths: []string{"/x/[a"}, Tags: policy.Tags{Rules: rules("*", "noindex")}}}}, serve.Options{})
	if es := configerr.All(err); len(es) != 1 || es[0].Path != "robots_tag[0].paths[0]" || es[0].Problem != "a path pattern is a glob: syntax error in pattern" {
		t.Errorf("malformed glob: %v", err)
	}
}

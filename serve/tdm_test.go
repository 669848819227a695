package serve_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/fixture"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

func reservation(n int) *int { return &n }

func tdmRoute(paths []string, res int, pol string) policy.Route {
	return policy.Route{Paths: paths, Tags: policy.Tags{TDM: &policy.TDM{Reservation: reservation(res), Policy: pol}}}
}

const pol = "https://provider.com/policies/policy.json"

// tdmFront is frontEnd, which serves the TDMRep file as nethttp does.
func tdmFront(c *serve.Core, next http.Handler) http.Handler { return frontEnd(c, next) }

// TestTDMFields: a route's declaration is the tdm-reservation and tdm-policy fields of report
// #sec-tdm-header (the report's two examples), combined over routes (a 1 from any route wins, with its
// policy) and with the handler's own fields: a handler's 1 stands over a route's 0; a
// handler's malformed or repeated value is unset and never removes the route's reservation.
func TestTDMFields(t *testing.T) {
	cfg := policy.Config{RobotsTag: []policy.Route{
		tdmRoute([]string{"/images/*"}, 1, ""),    // report #sec-tdm-header, first example
		tdmRoute([]string{"/articles/*"}, 1, pol), // second example
		tdmRoute([]string{"/open/*"}, 0, ""),
		tdmRoute([]string{"/articles/open/*"}, 0, "https://other.example/p"),
		{Paths: []string{"/derived/*"}, Tags: policy.Tags{ContentUsage: map[string]string{"train-ai": "n"}, TDM: &policy.TDM{Derive: true}}},
		{Paths: []string{"/plain/*"}, Tags: policy.Tags{Rules: rules("*", "noindex")}},
	}}
	c := mustCore(t, cfg)
	var backend http.Header
	h := tdmFront(c, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range backend {
			w.Header()[k] = v
		}
		_, _ = io.WriteString(w, "ok")
	}))
	for _, s := range both(t, h) {
		for _, tc := range []struct {
			path         string
			backend      http.Header
			wantR, wantP []string
		}{
			{"/images/a.jpg", nil, []string{"1"}, nil},
			{"/articles/x", nil, []string{"1"}, []string{pol}},
			{"/open/x", nil, []string{"0"}, nil},
			{"/articles/open/x", nil, []string{"1"}, []string{pol}}, // the 1 wins, with its policy
			{"/derived/x", nil, []string{"1"}, nil},
			{"/plain/x", nil, nil, nil},
			{"/elsewhere", nil, nil, nil},
			// The handler's fields.
			{"/plain/x", http.Header{"Tdm-Reservation": {"0"}}, []string{"0"}, nil}, // no declaration: left alone
			{"/open/x", http.Header{"Tdm-Reservation": {"1"}, "Tdm-Policy": {"https://b.example/p"}}, []string{"1"}, []string{"https://b.example/p"}},
			{"/images/a.jpg", http.Header{"Tdm-Reservation": {"0"}, "Tdm-Policy": {"https://b.example/p"}}, []string{"1"}, nil},
			{"/articles/x", http.Header{"Tdm-Reservation": {"0"}, "Tdm-Policy": {"https://b.example/p"}}, []string{"1"}, []string{pol}},
			{"/images/a.jpg", http.Header{"Tdm-Reservation": {"1"}, "Tdm-Policy": {"https://b.example/p"}}, []string{"1"}, []string{"https://b.example/p"}},
			{"/articles/x", http.Header{"Tdm-Reservation": {"1"}, "Tdm-Policy": {"https://b.example/p"}}, []string{"1"}, []string{pol}},
			{"/images/a.jpg", http.Header{"Tdm-Reservation": {"yes"}}, []string{"1"}, nil},
			{"/images/a.jpg", http.Header{"Tdm-Reservation": {"1", "0"}}, []string{"1"}, nil},
			// Repeated or listed values are a protocol error, but a lenient agent reads their 1:
			// the route's 0 never turns them into a permission; they stay as the handler sent them.
			{"/open/x", http.Header{"Tdm-Reservation": {"1", "1"}}, []string{"1", "1"}, nil},
			{"/open/x", http.Header{"Tdm-Reservation": {"1, 1"}}, []string{"1, 1"}, nil},
			{"/open/x", http.Header{"Tdm-Reservation": {"0", "1"}, "Tdm-Policy": {"https://b.example/p"}}, []string{"0", "1"}, []string{"https://b.example/p"}},
			{"/open/x", http.Header{"Tdm-Reservation": {"0, 0"}}, []string{"0"}, nil},
			{"/open/x", http.Header{"Tdm-Reservation": {"x,1"}}, []string{"x,1"}, nil},
			{"/open/x", http.Header{"Tdm-Reservation": {"01"}}, []string{"0"}, nil},
			{"/open/x", http.Header{"Tdm-Reservation": {"2"}}, []string{"0"}, nil},
		} {
			backend = tc.backend
			// "added to the HTTP header of the response to a GET or HEAD request"
			for _, method := range []string{"GET", "HEAD"} {
				resp, _ := s.do(t, method, tc.path)
				gotR, gotP := resp.Header.Values("Tdm-Reservation"), resp.Header.Values("Tdm-Policy")
				if !slices.Equal(gotR, tc.wantR) || !slices.Equal(gotP, tc.wantP) {
					t.Errorf("%s %s %s backend %v: tdm-reservation %q tdm-policy %q, want %q %q", s.name, method, tc.path, tc.backend, gotR, gotP, tc.wantR, tc.wantP)
				}
			}
		}
	}
}

// TestTDMMeta: with meta, HTML pages get the declaration as report #sec-tdm-html-meta's elements, after
// the robots ones; a page that already states the reservation gets no duplicate (only the
// policy it lacks); a page stating a lesser reservation gets ours before its own, which stays;
// a page stating more keeps its own alone; where the handler's field reserves over the
// route's 0, no element weakens it. Content-Length stays exact.
func TestTDMMeta(t *testing.T) {
	r := tdmRoute([]string{"/r/*"}, 1, pol)
	r.Meta = true
	r.Rules = rules("*", "noindex")
	z := tdmRoute([]string{"/z/*"}, 0, "")
	z.Meta = true
	c := mustCore(t, policy.Config{RobotsTag: []policy.Route{r, z}})
	var page string
	var backend http.Header
	h := tdmFront(c, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range backend {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", fmt.Sprint(len(page)))
		_, _ = io.WriteString(w, page)
	}))
	res := func(v string) [2]string { return [2]string{"tdm-reservation", v} }
	policyEl := func(v string) [2]string { return [2]string{"tdm-policy", v} }
	robots := [2]string{"robots", "noindex"}
	for _, s := range both(t, h) {
		for _, tc := range []struct {
			path, head string
			backend    http.Header
			want       [][2]string
		}{
			{"/r/p", ``, nil, [][2]string{robots, res("1"), policyEl(pol)}},
			{"/r/p", `<meta name="tdm-reservation" content="1">`, nil, [][2]string{robots, policyEl(pol), res("1")}},
			{"/r/p", `<meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="https://own.example/p">`, nil, [][2]string{robots, res("1"), policyEl("https://own.example/p")}},
			{"/r/p", `<meta name="tdm-reservation" content="0">`, nil, [][2]string{robots, res("1"), policyEl(pol), res("0")}},
			{"/r/p", `<meta name="TDM-Reservation" content=" 1 ">`, nil, [][2]string{robots, policyEl(pol), {"TDM-Reservation", " 1 "}}},
			{"/r/p", `<meta name="tdm-reservation" content="yes">`, nil, [][2]string{robots, res("1"), policyEl(pol), res("yes")}},
			{"/z/p", ``, nil, [][2]string{res("0")}},
			{"/z/p", `<meta name="tdm-reservation" content="1">`, nil, [][2]string{res("1")}},
			{"/z/p", `<meta name="tdm-reservation" content="0">`, nil, [][2]string{res("0")}},
			{"/z/p", ``, http.Header{"Tdm-Reservation": {"1"}}, nil},
		} {
			page = "<!DOCTYPE html><html><head>" + tc.head + "<title>t</title></head><body>x</body></html>"
			backend = tc.backend
			resp, body := s.do(t, "GET", tc.path)
			if got := fixture.HeadMeta(t, body); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s %s %q: meta %v, want %v", s.name, tc.path, tc.head, got, tc.want)
			}
			if resp.ContentLength != int64(len(body)) {
				t.Errorf("%s %s: Content-Length %d, body %d", s.name, tc.path, resp.ContentLength, len(body))
			}
		}
	}
}

// TestTDMConfigErrors: bad declarations are refused at load, each with its field path.
func TestTDMConfigErrors(t *testing.T) {
	for _, c := range []struct {
		tdm       policy.TDM
		usage     map[string]string
		path, say string
	}{
		{policy.TDM{Reservation: reservation(2)}, nil, "robots_tag[0].tdm.reservation", "1 (TDM rights reserved) or 0"},
		{policy.TDM{Reservation: reservation(-1)}, nil, "robots_tag[0].tdm.reservation", "protocol error"},
		{policy.TDM{}, nil, "robots_tag[0].tdm.reservation", "needs a reservation"},
		{policy.TDM{Reservation: reservation(1), Policy: "/policies/p.json"}, nil, "robots_tag[0].tdm.policy", "absolute"},
		{policy.TDM{Reservation: reservation(1), Policy: "https://e.example/p\r\nSet-Cookie: x"}, nil, "robots_tag[0].tdm.policy", "control characters"},
		{policy.TDM{Reservation: reservation(1), Policy: "https://e.example/p\x00"}, nil, "robots_tag[0].tdm.policy", "control characters"},
		{policy.TDM{Derive: true}, nil, "robots_tag[0].tdm.derive", "never derived from silence"},
		{policy.TDM{Derive: true}, map[string]string{"train-ai": "y"}, "robots_tag[0].tdm.derive", "never derived from silence"},
		{policy.TDM{Derive: true}, map[string]string{"search": "n"}, "robots_tag[0].tdm.derive", "never derived from silence"},
		{policy.TDM{Derive: true, Reservation: reservation(1)}, map[string]string{"train-ai": "n"}, "robots_tag[0].tdm.derive", "not both"},
	} {
		tdm := c.tdm
		_, err := serve.New(policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{ContentUsage: c.usage, TDM: &tdm}}}}, serve.Options{})
		found := false
		for _, e := range configerr.All(err) {
			found = found || e.Path == c.path && strings.Contains(e.Error(), c.say)
		}
		if !found {
			t.Errorf("%+v: %v; want %s: ...%s", c.tdm, err, c.path, c.say)
		}
	}
	// A route with only a declaration is complete, meta included.
	r := tdmRoute(nil, 1, "")
	r.Meta = true
	if _, err := serve.New(policy.Config{RobotsTag: []policy.Route{r}}, serve.Options{}); err != nil {
		t.Errorf("declaration-only route: %v", err)
	}
}

// TestTDMRepFile: the generated /.well-known/tdmrep.json (report #sec-tdm-file) is the report's
// examples for the routes that state them, with robots.txt's caching (Cache-Control, ETag,
// Last-Modified, 304) and methods; routes no location expresses are warnings, and the file
// says nothing for them.
func TestTDMRepFile(t *testing.T) {
	match := func(*http.Request) bool { return true }
	cfg := policy.Config{RobotsTag: []policy.Route{
		tdmRoute([]string{"/directory-a/*"}, 1, ""),
		tdmRoute([]string{"/directory-b/html/*"}, 1, pol),
		tdmRoute([]string{"/a/*/b"}, 1, ""),
		{Paths: []string{"/m/*"}, Match: match, Tags: policy.Tags{TDM: &policy.TDM{Reservation: reservation(1)}}},
		{Paths: []string{"/nothing/*"}, Tags: policy.Tags{Rules: rules("*", "noindex")}},
	}}
	c := mustCore(t, cfg, serve.Options{TDMRepFile: true})
	var warned []string
	for _, w := range c.Warnings() {
		warned = append(warned, w.Path+": "+w.Message())
	}
	if len(warned) != 2 || !strings.HasPrefix(warned[0], "robots_tag[2]: ") || !strings.Contains(warned[0], `"/a/*/b"`) ||
		!strings.HasPrefix(warned[1], "robots_tag[3]: ") || !strings.Contains(warned[1], "match function") {
		t.Errorf("warnings %q", warned)
	}
	h := tdmFront(c, http.NotFoundHandler())
	for _, s := range both(t, h) {
		resp, body := s.do(t, "GET", tdmrep.WellKnownPath)
		var got, want any
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("%s: %v\n%s", s.name, err, body)
		}
		// The report's second example's first two rules, in its order.
		_ = json.Unmarshal([]byte(`[{"location": "/directory-a/", "tdm-reservation": 1},
			{"location": "/directory-b/html/", "tdm-reservation": 1, "tdm-policy": "`+pol+`"}]`), &want)
		slices.Reverse(want.([]any)) // a rule with a policy comes first: see TestTDMRepFileAgrees
		if resp.StatusCode != 200 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d %v, want %v", s.name, resp.StatusCode, got, want)
		}
		if ct, cc := resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"); ct != "application/json" || cc != "max-age=3600" {
			t.Errorf("%s: Content-Type %q Cache-Control %q", s.name, ct, cc)
		}
		etag := resp.Header.Get("Etag")
		if resp, body := s.do(t, "GET", tdmrep.WellKnownPath, "If-None-Match", etag); resp.StatusCode != 304 || len(body) != 0 || resp.Header.Get("Etag") != etag {
			t.Errorf("%s: conditional GET %d %q", s.name, resp.StatusCode, body)
		}
		if resp, body := s.do(t, "HEAD", tdmrep.WellKnownPath); resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Etag") != etag {
			t.Errorf("%s: HEAD %d %q", s.name, resp.StatusCode, body)
		}
		if resp, _ := s.do(t, "POST", tdmrep.WellKnownPath); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: POST %d", s.name, resp.StatusCode)
		}
	}
	// Without a declaration, or without Options.TDMRepFile, the path is the handler's.
	for _, c := range []*serve.Core{
		mustCore(t, policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{Rules: rules("*", "noindex")}}}}, serve.Options{TDMRepFile: true}),
		mustCore(t, cfg),
	} {
		handled := false
		next := serve.HandlerFunc(func(http.ResponseWriter, *http.Request) error { handled = true; return nil })
		if _ = c.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tdmrep.WellKnownPath, nil), next); !handled {
			t.Error("a Core without a declaration or TDMRepFile serves tdmrep.json")
		}
	}
}

// TestTDMRepFileZeroRules: rules of 0 come after every reservation, and are left out (with a
// warning) when a reserving route has no location or one with letters, since route paths
// match in any case and TDM agents in one.
func TestTDMRepFileZeroRules(t *testing.T) {
	for _, c := range []struct {
		routes []policy.Route
		want   []tdmrep.Rule
		warn   bool
	}{
		{[]policy.Route{tdmRoute([]string{"*"}, 0, ""), tdmRoute([]string{"/2024/*"}, 1, "")},
			[]tdmrep.Rule{{Location: "/2024/", Reservation: 1}, {Location: "/", Reservation: 0}}, false},
		{[]policy.Route{tdmRoute([]string{"*"}, 0, ""), tdmRoute([]string{"/private/*"}, 1, "")},
			[]tdmrep.Rule{{Location: "/private/", Reservation: 1}}, true},
		{[]policy.Route{tdmRoute([]string{"/0/*"}, 0, ""), {Paths: []string{"/1/*"}, Match: func(*http.Request) bool { return true }, Tags: policy.Tags{TDM: &policy.TDM{Reservation: reservation(1)}}}},
			nil, true},
		{[]policy.Route{tdmRoute([]string{"/open/*"}, 0, "")},
			[]tdmrep.Rule{{Location: "/open/", Reservation: 0}}, false},
		// The operator's case, and lower case where it differs; an upper-case letter makes
		// the rules of 0 unsafe as a lower-case one does.
		{[]policy.Route{tdmRoute([]string{"/Upper/*", "/ÉTÉ", "/low/*"}, 1, "")},
			[]tdmrep.Rule{{Location: "/Upper/", Reservation: 1}, {Location: "/upper/", Reservation: 1}, {Location: "/%C3%89T%C3%89$", Reservation: 1}, {Location: "/%C3%A9t%C3%A9$", Reservation: 1}, {Location: "/low/", Reservation: 1}}, false},
		{[]policy.Route{tdmRoute([]string{"*"}, 0, ""), tdmRoute([]string{"/PRIVATE/*"}, 1, "")},
			[]tdmrep.Rule{{Location: "/PRIVATE/", Reservation: 1}, {Location: "/private/", Reservation: 1}}, true},
	} {
		core := mustCore(t, policy.Config{RobotsTag: c.routes}, serve.Options{TDMRepFile: true})
		rec := httptest.NewRecorder()
		if err := core.ServeHTTP(rec, httptest.NewRequest("GET", tdmrep.WellKnownPath, nil), nil); err != nil {
			t.Fatal(err)
		}
		var got []tdmrep.Rule
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			got = nil
		}
		warned := false
		for _, w := range core.Warnings() {
			warned = warned || strings.Contains(w.Message(), "leaves out")
		}
		if !reflect.DeepEqual(got, c.want) || warned != c.warn {
			t.Errorf("%v: rules %v warned %v, want %v %v", c.routes[0].Paths, got, warned, c.want, c.warn)
		}
	}
}

// locationMatches asks grobotstxt, Google's robots.txt matcher (which report #sec-tdm-file-regexp says to
// follow), whether a tdmrep.json location matches a path: as a Disallow pattern.
func locationMatches(loc, escapedPath string) bool {
	return !grobotstxt.AgentAllowed("User-agent: *\nDisallow: "+loc+"\n", "agent", "http://example.com"+escapedPath)
}

// TestTDMRepFileAgrees: for thousands of generated sites and paths, the declaration a TDM
// agent reads in the generated file (the first rule whose location grobotstxt matches) is
// never a permission the responses do not give: unset, or the tdm-reservation the Core sends
// for that path, and with no route left out the same tdm-policy, whatever the path's case (each
// letter in either: route paths match without case, locations with it); and, with no route
// left out, a path spelled as the operator wrote the patterns that the responses reserve is
// reserved by the file too.
func TestTDMRepFileAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 24))
	segs := []string{"a", "b", "docs", "x.pdf", "y.jpg", "é", "Up", "a.b"}
	// Patterns also in upper case; paths (unless respelled) as written or in lower case.
	patternSegs := append(slices.Clip(segs), "DOCS", "A.B")
	pattern := func() string {
		s := patternSegs[rng.IntN(len(patternSegs))]
		switch rng.IntN(7) {
		case 0:
			return "*"
		case 1:
			return "/" + s
		case 2:
			return "/" + s + "/*"
		case 3:
			return "*." + []string{"pdf", "jpg", "b"}[rng.IntN(3)]
		case 4:
			return "*" + s + "*"
		case 5:
			return "/" + s + "*"
		}
		return "/" + s + "/*/x" // a glob: no location
	}
	sites, paths := 2000, 40
	if serve.RaceEnabled {
		sites = 200
	}
	checked, coveredReserved := 0, 0
	withPolicy, respelledPolicy := 0, 0
	for range sites {
		var routes []policy.Route
		for range 1 + rng.IntN(4) {
			var ps []string
			for range rng.IntN(3) {
				ps = append(ps, pattern())
			}
			p := ""
			if rng.IntN(2) == 0 {
				p = fmt.Sprintf("https://p%d.example/", rng.IntN(3))
			}
			r := tdmRoute(ps, rng.IntN(2), p)
			if rng.IntN(8) == 0 {
				r.Match = func(r *http.Request) bool { return strings.Contains(r.URL.Path, "a") }
			}
			routes = append(routes, r)
		}
		core := mustCore(t, policy.Config{RobotsTag: routes}, serve.Options{TDMRepFile: true})
		// A route the file says nothing for (the rules of 0 left out change no reservation).
		leftOut := false
		for _, w := range core.Warnings() {
			leftOut = leftOut || strings.Contains(w.Message(), "says nothing")
		}
		rec := httptest.NewRecorder()
		if err := core.ServeHTTP(rec, httptest.NewRequest("GET", tdmrep.WellKnownPath, nil), nil); err != nil {
			t.Fatal(err)
		}
		var rules []tdmrep.Rule
		if err := json.Unmarshal(rec.Body.Bytes(), &rules); err != nil {
			t.Fatal(err)
		}
		checked += len(rules)
		for range paths {
			var b strings.Builder
			for range 1 + rng.IntN(3) {
				b.WriteString("/" + segs[rng.IntN(len(segs))])
			}
			if rng.IntN(3) == 0 {
				b.WriteString("/")
			}
			p := b.String()
			// A path in another case than the patterns': routes match it, the file may not.
			respelled := rng.IntN(4) == 0
			if respelled {
				p = strings.Map(func(r rune) rune {
					if rng.IntN(2) == 0 {
						return unicode.ToUpper(r)
					}
					return unicode.ToLower(r)
				}, p)
			}
			u := &url.URL{Path: p}
			req := httptest.NewRequest("GET", u.EscapedPath(), nil)
			w := httptest.NewRecorder()
			_ = core.Tag(w, req, serve.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error { w.WriteHeader(200); return nil }))
			sent, sentPolicy := w.Header().Get("Tdm-Reservation"), w.Header().Get("Tdm-Policy")
			covered := false
			for _, r := range rules {
				if !locationMatches(r.Location, u.EscapedPath()) {
					continue
				}
				if got := fmt.Sprint(r.Reservation); got != sent {
					t.Fatalf("routes %+v\nfile %s\npath %s: the file says %s (%s), the response %q", routes, rec.Body, p, got, r.Location, sent)
				}
				// Every path, in any case, 1 or 0: the fields name the policy the file names.
				if !leftOut && r.Policy != sentPolicy {
					t.Fatalf("routes %+v\nfile %s\npath %s: the file's policy %q, the response's %q", routes, rec.Body, p, r.Policy, sentPolicy)
				}
				if r.Reservation == 1 && r.Policy != "" {
					withPolicy++
					if respelled {
						respelledPolicy++
					}
				}
				covered = true
				break
			}
			// A path spelled as the operator wrote the patterns: the file reserves what the
			// responses reserve.
			if !leftOut && !respelled && sent == "1" {
				if !covered {
					t.Fatalf("routes %+v\nfile %s\npath %s: the response reserves, the file says nothing", routes, rec.Body, p)
				}
				coveredReserved++
			}
		}
	}
	if checked == 0 || coveredReserved < sites || respelledPolicy < sites/4 {
		t.Fatalf("only %d rules, %d reserved paths checked for coverage, %d policies (%d in paths respelled)", checked, coveredReserved, withPolicy, respelledPolicy)
	}
}

package nethttp_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/dunglas/httpsfv"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

// TestBackendMembersKeepTheirToken, end to end: a backend's
// Robots-Tag is read member by member, so one crawler's rule never reaches the response as
// a rule for every crawler ("*"), and a valid member survives malformed neighbours.
func TestBackendMembersKeepTheirToken(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"nosnippet"}}}},
	}})
	cases := []struct {
		rt   []string
		want map[string][]string
	}{
		{[]string{"googlebot;noindex, bingbot;nosnippet;"},
			map[string][]string{"*": {"nosnippet"}, "googlebot": {"noindex"}, "bingbot": {"nosnippet"}}},
		{[]string{"googlebot;noindex;"},
			map[string][]string{"*": {"nosnippet"}, "googlebot": {"noindex"}}},
		{[]string{"*;noindex", "examplebot=nosnippet;"},
			map[string][]string{"*": {"nosnippet", "noindex"}, "examplebot": {"nosnippet"}}},
		{[]string{"googlebot;noindex, bingbot=nosnippet;"},
			map[string][]string{"*": {"nosnippet"}, "googlebot": {"noindex"}, "bingbot": {"nosnippet"}}},
		{[]string{"Googlebot/2.1 ; noindex, {bad}, bingbot: noarchive, nofollow"},
			map[string][]string{"*": {"nosnippet"}, "googlebot": {"noindex"}, "bingbot": {"noarchive", "nofollow"}}},
		{[]string{"googlebot;unavailable_after=2027-01-01;max-snippet=oops"},
			map[string][]string{"*": {"nosnippet"}, "googlebot": {"unavailable_after=2027-01-01T00:00:00Z"}}},
	}
	for _, c := range cases {
		srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Robots-Tag"] = c.rt
			_, _ = io.WriteString(w, "ok")
		}))
		resp, _ := get(t, nil, "GET", srv.URL+"/")
		lines := resp.Header.Values("Robots-Tag")
		if len(lines) != 1 {
			t.Fatalf("%q: %d Robots-Tag lines", c.rt, len(lines))
		}
		if _, err := httpsfv.UnmarshalList(lines); err != nil {
			t.Fatalf("%q: response field %q is not an SF List: %v", c.rt, lines[0], err)
		}
		if got, want := parseRobotsTag(t, resp.Header), policy(t, c.want); !got.Equal(want) {
			t.Errorf("backend sent %q: Robots-Tag %q, want %q", c.rt, lines[0], want.RobotsTag())
		}
	}
}

// logRecorder is an slog.Handler that keeps the records at or above its level.
type logRecorder struct {
	mu      sync.Mutex
	level   slog.Level
	records []string
}

func (l *logRecorder) Enabled(_ context.Context, lv slog.Level) bool { return lv >= l.level }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Level.String()+" "+r.Message)
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

func (l *logRecorder) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.records...)
}

// TestMergedFieldWithinLimit: the union of a route's rules and a backend's field never
// serialises past 8 KiB, where a parser may stop reading. "*" is kept first, the members
// with noindex next, the rest dropped whole, and a warning names what was dropped, once.
func TestMergedFieldWithinLimit(t *testing.T) {
	// A valid backend field of exactly 8,183 bytes: every fifth member carries noindex.
	var members []string
	size := -2
	for i := 0; ; i++ {
		m := fmt.Sprintf("b%s%s;nosnippet", letters(i), strings.Repeat("x", i%5))
		if i%5 == 0 {
			m = fmt.Sprintf("n%s;noindex", letters(i))
		}
		if size+2+len(m) > 8183 {
			break
		}
		members = append(members, m)
		size += 2 + len(m)
	}
	backend := strings.Join(members, ", ")
	backend += ", " + "z" + strings.Repeat("z", 8183-len(backend)-2-len("z;noarchive")) + ";noarchive"
	if len(backend) != 8183 {
		t.Fatalf("backend field is %d bytes", len(backend))
	}
	if p, errs := tagemit.ParseRobotsTag([]string{backend}); len(errs) != 0 || len(p.RobotsTag()) != 8183 {
		t.Fatalf("backend field does not round-trip: %d bytes, %v", len(p.RobotsTag()), errs)
	}
	logs := &logRecorder{level: slog.LevelWarn}
	m, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noarchive"}}}},
	}}, nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Robots-Tag", backend)
		_, _ = io.WriteString(w, "ok")
	}))
	for range 3 {
		resp, _ := get(t, nil, "GET", srv.URL+"/")
		v := resp.Header.Get("Robots-Tag")
		if len(v) > tagemit.MaxFieldSize {
			t.Fatalf("merged field is %d bytes", len(v))
		}
		got, errs := tagemit.ParseRobotsTag([]string{v})
		if len(errs) != 0 {
			t.Fatal(errs)
		}
		rules := got.Rules()
		if strings.Join(rules["*"], ",") != "noarchive" || !strings.HasPrefix(v, "*;noarchive") {
			t.Fatalf("the route's * member is not first: %.60s", v)
		}
		for _, mem := range members {
			if tok, _, _ := strings.Cut(mem, ";"); strings.HasSuffix(mem, "noindex") && rules[tok] == nil {
				t.Fatalf("member %q with noindex dropped", mem)
			}
		}
	}
	warns := logs.all()
	if len(warns) != 1 || !strings.Contains(warns[0], "WARN") || !strings.Contains(warns[0], "8192") {
		t.Fatalf("want one warning about the limit, got %q", warns)
	}
}

func letters(i int) string {
	s := ""
	for {
		s += string(rune('a' + i%26))
		i /= 26
		if i == 0 {
			return s
		}
	}
}

// TestRouteUnionWithinLimit: routes that fit one by one but not together are cut the same
// way when they meet on one request.
func TestRouteUnionWithinLimit(t *testing.T) {
	half := func(prefix string) map[string][]string {
		r := map[string][]string{}
		for i := 0; len(r)*len("xxxxx;nosnippet, ") < 5000; i++ {
			r[prefix+letters(i)] = []string{"nosnippet"}
		}
		return r
	}
	a, b := half("a"), half("b")
	b["*"] = []string{"noindex"}
	logs := &logRecorder{level: slog.LevelWarn}
	m, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: a}},
		{Tags: nethttp.TagConfig{Rules: b}},
	}}, nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	resp, _ := get(t, nil, "GET", srv.URL+"/")
	v := resp.Header.Get("Robots-Tag")
	if len(v) > tagemit.MaxFieldSize || !strings.HasPrefix(v, "*;noindex") {
		t.Fatalf("union is %d bytes, starts %.20q", len(v), v)
	}
	if len(logs.all()) != 1 {
		t.Fatalf("warnings: %q", logs.all())
	}
}

// TestMergedFieldKeepsDeclaredMembers: a backend whose Robots-Tag and X-Robots-Tag fill the
// 8 KiB with its own members (noindex ones, which used to be kept before the route's) cannot
// push out what the route declares. Over a real connection, httpsfv finds every declared
// member with all its rules in Robots-Tag, the X-Robots-Tag lines carry every declared rule,
// and both stay within 8 KiB; the backend's restrictions fill what room is left before
// what only relaxes.
func TestMergedFieldKeepsDeclaredMembers(t *testing.T) {
	declared := map[string][]string{
		"*":         {"noarchive"},
		"googlebot": {"nosnippet", "max-image-preview=standard"},
		"bingbot":   {"max-snippet=10"},
		"_underbot": {"notranslate"},
	}
	for i := range 60 {
		declared["decl-"+letters(i)] = []string{"noimageindex"}
	}
	// The backend's field, of which parsers read the first 8 KiB: a noindex for a declared
	// token, members that only relax, then noindex members past the limit.
	rt := []string{"bingbot;noindex"}
	var xrt []string
	for i := range 50 {
		rt = append(rt, "relax-"+letters(i)+";max-snippet=-1")
	}
	for i := range 700 {
		rt = append(rt, "bot-"+letters(i)+";noindex;nofollow")
		xrt = append(xrt, "legacy-"+letters(i)+": noindex")
	}
	read, _ := tagemit.ParseRobotsTag([]string{strings.Join(rt, ", ")})
	logs := &logRecorder{level: slog.LevelWarn}
	m, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: declared, XRobotsTag: true}},
	}}, nethttp.Options{Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Robots-Tag"] = []string{strings.Join(rt, ", ")}
		w.Header()["X-Robots-Tag"] = xrt
		_, _ = io.WriteString(w, "ok")
	}))
	route, err := tagemit.NewPolicy(declared)
	if err != nil {
		t.Fatal(err)
	}
	want, err := httpsfv.UnmarshalList([]string{route.RobotsTag()})
	if err != nil {
		t.Fatal(err)
	}
	resp, _ := get(t, nil, "GET", srv.URL+"/")
	v := resp.Header.Values("Robots-Tag")
	lines := resp.Header.Values("X-Robots-Tag")
	legacy := len(strings.Join(lines, ", "))
	// The legacy lines are the longer form: they are what fills the 8 KiB.
	if len(v) != 1 || len(v[0]) > tagemit.MaxFieldSize || legacy > tagemit.MaxFieldSize || legacy < tagemit.MaxFieldSize-200 {
		t.Fatalf("Robots-Tag: %d lines, %d bytes; X-Robots-Tag lines %d bytes together", len(v), len(strings.Join(v, "")), legacy)
	}
	got, err := httpsfv.UnmarshalList(v)
	if err != nil {
		t.Fatalf("httpsfv refuses the merged field: %v", err)
	}
	members := map[string]httpsfv.Item{}
	for _, mem := range got {
		item := mem.(httpsfv.Item)
		members[fmt.Sprint(item.Value)] = item
	}
	for _, mem := range want {
		w := mem.(httpsfv.Item)
		g, ok := members[fmt.Sprint(w.Value)]
		if !ok {
			t.Errorf("declared member %v missing", w.Value)
			continue
		}
		for _, name := range w.Params.Names() {
			wv, _ := w.Params.Get(name)
			if gv, ok := g.Params.Get(name); !ok || gv != wv {
				t.Errorf("declared member %v lost %s=%v (has %v)", w.Value, name, wv, gv)
			}
		}
	}
	if b := members["bingbot"]; b.Params == nil || func() bool { _, ok := b.Params.Get("noindex"); return !ok }() {
		t.Error("the backend's noindex for a declared token was not added")
	}
	// Restrictions before what only relaxes: a relax- member is kept only if every bot-
	// member the backend's first 8 KiB holds is.
	backendRead, backendKept, relaxKept := 0, 0, 0
	for tok := range read.Rules() {
		backendRead += boolInt(strings.HasPrefix(tok, "bot-"))
	}
	for tok := range members {
		backendKept += boolInt(strings.HasPrefix(tok, "bot-"))
		relaxKept += boolInt(strings.HasPrefix(tok, "relax-"))
	}
	if backendRead < 100 || backendKept == 0 || relaxKept > 0 && backendKept < backendRead || relaxKept == 50 {
		t.Errorf("read %d of the backend's noindex members, kept %d, and %d of 50 that only relax", backendRead, backendKept, relaxKept)
	}
	// The legacy lines: every declared rule on its token's line ("*" first, without a token).
	for tok, rules := range route.Rules() {
		var line string
		for i, l := range lines {
			if rest, ok := strings.CutPrefix(l, tok+": "); ok || tok == "*" && i == 0 {
				line = rest
				if tok == "*" {
					line = l
				}
			}
		}
		for _, r := range rules {
			if !strings.Contains(line, strings.Replace(r, "=", ": ", 1)) {
				t.Errorf("X-Robots-Tag line for %s %q lacks %s", tok, line, r)
			}
		}
	}
	if warns := logs.all(); len(warns) != 1 || !strings.Contains(warns[0], "routes' members are kept first") || len(warns[0]) > 2000 {
		t.Errorf("want one short warning, got %q", warns)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

package policycheck

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/nethttp"
)

var update = flag.Bool("update", false, "rewrite testdata/check-*.json from the current output")

func exampleSite(t *testing.T) (*Site, nethttp.Config) {
	t.Helper()
	b, err := os.ReadFile("testdata/example.json")
	if err != nil {
		t.Fatal(err)
	}
	s := site(t, string(b))
	var cfg nethttp.Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	return s, cfg
}

// TestCheckAgreesWithGoogle serves the example config over loopback and checks, for
// thousands of crawler and path pairs, that Check's decision is grobotstxt's (Google's
// parser) on the file served, that the rule line named is the rule's line in that file, and
// that Check's tags are the served response's.
func TestCheckAgreesWithGoogle(t *testing.T) {
	s, cfg := exampleSite(t)
	mw, err := nethttp.New(cfg, nethttp.Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, htmlPage)
	})))
	defer srv.Close()
	get := func(path, ua string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("User-Agent", ua)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	_, body := get("/robots.txt", "")
	lines := strings.Split(body, "\n")
	agents := []string{"Googlebot", "GPTBot", "gptbot", "Bingbot", "CCBot", "Google-Extended", "SomeBot", "*"}
	segs := []string{"drafts", "search", "about", "articles", "x.pdf", "a", "robots.txt", "Search"}
	rng := rand.New(rand.NewPCG(13, 2))
	disallowed := 0
	pairs := 3000
	if raceEnabled {
		// Under the race detector only races are looked for: the first pairs of the same
		// seed, all of which the full-size run without -race (./test.sh) checks too.
		pairs = 300
	}
	for n := range pairs {
		path := ""
		for range 1 + rng.IntN(3) {
			path += "/" + segs[rng.IntN(len(segs))]
		}
		if rng.IntN(4) == 0 {
			path += "/"
		}
		agent := agents[rng.IntN(len(agents))]
		rep, err := Check(s, Request{URL: srv.URL + path, Agent: agent})
		if err != nil {
			t.Fatal(err)
		}
		if rep.RobotsTxt.Path != path {
			t.Fatalf("path %q, report %q", path, rep.RobotsTxt.Path)
		}
		// RFC 9309 §2.5 exempts /robots.txt itself; Google's parser has no exemption.
		if agent != "*" && path != "/robots.txt" {
			if g := grobotstxt.AgentAllowed(body, agent, srv.URL+path); g != rep.Allowed {
				t.Fatalf("%s %s: Check says allowed=%v, grobotstxt %v\n%s", agent, path, rep.Allowed, g, body)
			}
		}
		if !rep.Allowed {
			disallowed++
		}
		if r := rep.RobotsTxt.Rule; r != nil {
			if r.Line < 1 || r.Line > len(lines) || lines[r.Line-1] != r.Text || !strings.HasSuffix(r.Text, ": "+r.Path) {
				t.Fatalf("%s %s: rule %+v, but line %d of the file is %q", agent, path, r, r.Line, lines[r.Line-1])
			}
		}
		if g := rep.RobotsTxt.Group; g != nil && !strings.HasPrefix(strings.ToLower(lines[g.Line-1]), "user-agent:") {
			t.Fatalf("group line %d is %q", g.Line, lines[g.Line-1])
		}
		if n%10 == 0 && agent != "*" {
			resp, page := get(path, agent)
			if got, want := strings.Join(resp.Header.Values("Robots-Tag"), ", "), rep.Response.RobotsTag; got != want {
				t.Fatalf("%s: served Robots-Tag %q, Check %q", path, got, want)
			}
			if !reflect.DeepEqual(resp.Header.Values("X-Robots-Tag"), rep.Response.XRobotsTag) && len(rep.Response.XRobotsTag)+len(resp.Header.Values("X-Robots-Tag")) > 0 {
				t.Fatalf("%s: served X-Robots-Tag %q, Check %q", path, resp.Header.Values("X-Robots-Tag"), rep.Response.XRobotsTag)
			}
			if rep.Response.RobotsTxtResponder != (page == body) {
				t.Fatalf("%s: responder %v, page %s", path, rep.Response.RobotsTxtResponder, page)
			}
			if !rep.Response.RobotsTxtResponder && !strings.Contains(page, "<head>"+rep.Response.Meta+"<title>") {
				t.Fatalf("%s: page %s, Check's meta %q", path, page, rep.Response.Meta)
			}
		}
	}
	if disallowed < pairs/10 || disallowed > pairs*9/10 {
		t.Fatalf("%d of %d disallowed: the paths do not exercise the rules", disallowed, pairs)
	}
}

// TestCheckGolden compares the JSON output with testdata/check-*.json, the documented
// examples of the schema; go test -run TestCheckGolden -update rewrites them.
func TestCheckGolden(t *testing.T) {
	s, _ := exampleSite(t)
	for name, req := range map[string]Request{
		"drafts-googlebot": {URL: "https://example.com/drafts/x", Agent: "Googlebot"},
		"article-gptbot-backend": {URL: "https://example.com/articles/a?page=2",
			Agent:          "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)",
			BackendHeaders: []string{"Robots-Tag: nofollow, bingbot;noindex"}},
		"search-about-bing": {URL: "https://example.com/search/about", Agent: "bingbot"},
		"purpose":           {URL: "https://example.com/articles/a", Agent: "NewBot", Purpose: "EXAMPLE-PURPOSE-1"},
	} {
		rep, err := Check(s, req)
		if err != nil {
			t.Fatal(err)
		}
		wantGolden(t, rep, "check-"+name+".json")
	}
}

// wantGolden compares rep's JSON with testdata/file (-update rewrites it) and returns the
// file's bytes.
func wantGolden(t *testing.T, rep *Report, file string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s: got\n%s\nwant\n%s", file, b.Bytes(), want)
	}
	return want
}

// TestCheckSchema decodes the JSON of many reports into the documented schema with unknown
// fields refused, and checks the members that are always present.
func TestCheckSchema(t *testing.T) {
	s, _ := exampleSite(t)
	for _, url := range []string{"https://example.com/", "https://example.com/drafts/a", "https://example.com/x.pdf", "https://example.com/robots.txt"} {
		for _, agent := range []string{"*", "GPTBot", "Googlebot"} {
			rep, err := Check(s, Request{URL: url, Agent: agent})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			rep.WriteJSON(&b)
			var m map[string]any
			if err := json.Unmarshal(b.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"url", "agent", "product_token", "allowed", "robots_txt", "response", "preferences", "enforcement"} {
				if _, ok := m[k]; !ok {
					t.Fatalf("no %q in %s", k, b.String())
				}
			}
			resp := m["response"].(map[string]any)
			for _, k := range []string{"routes", "robots_tag", "x_robots_tag", "meta", "content_usage", "rules_for_agent"} {
				if _, ok := resp[k]; !ok {
					t.Fatalf("no response.%q in %s", k, b.String())
				}
			}
			var back Report
			dec := json.NewDecoder(&b)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&back); err != nil || !reflect.DeepEqual(&back, rep) {
				t.Fatalf("round trip: %v\n%+v\n%+v", err, back, rep)
			}
		}
	}
}

// TestCheckBackendMerge: the backend's Robots-Tag is merged with the config's, as served.
func TestCheckBackendMerge(t *testing.T) {
	s := site(t, `{"robots_tag": [{"paths": ["/a/*"], "rules": {"*": ["noindex"]}, "x_robots_tag": true}]}`)
	rep, err := Check(s, Request{URL: "https://example.com/a/b", Agent: "Googlebot", BackendHeaders: []string{"Robots-Tag: nofollow, googlebot;max-snippet=5"}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := httpsfv.UnmarshalList([]string{rep.Response.RobotsTag})
	if err != nil {
		t.Fatalf("Robots-Tag %q: %v", rep.Response.RobotsTag, err)
	}
	if len(l) != 2 || rep.Response.RobotsTag != `*;noindex;nofollow, googlebot;max-snippet=5` {
		t.Fatalf("Robots-Tag %q", rep.Response.RobotsTag)
	}
	if got := strings.Join(rep.Response.RulesForAgent, " "); got != "noindex max-snippet=5 nofollow" {
		t.Fatalf("rules for Googlebot: %q", got)
	}
	if !rep.Allowed || rep.RobotsTxt.Served || len(rep.Response.Routes) != 1 || rep.Response.Routes[0].JSONPath != "robots_tag[0]" {
		t.Fatalf("%+v", rep)
	}
	if _, err := Check(s, Request{URL: "https://example.com/a/b", BackendHeaders: []string{"no colon"}}); err == nil {
		t.Fatal("a backend header without a colon was accepted")
	}
}

// TestCheckPreferencesAndEnforcement: robots.txt's usage preferences for the crawler and
// path, the route's Content-Usage field, and enforcement of the file by User-Agent.
func TestCheckPreferencesAndEnforcement(t *testing.T) {
	s := site(t, `{
	  "robots_txt": {"enforce": {"status": 451}, "groups": [
	    {"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}],
	     "content_usage": [{"preferences": {"train-ai": "n", "search": "y"}}, {"path": "/open/", "preferences": {"train-ai": "y"}}],
	     "content_signal": [{"preferences": {"ai-train": "no"}}]},
	    {"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/articles/"}]}]},
	  "robots_tag": [{"paths": ["/articles/*"], "content_usage": {"train-ai": "n"}}]}`)
	for _, tc := range []struct {
		url, agent    string
		cu, cs        string
		blocked       bool
		responseUsage string
		allowed       bool
	}{
		{"https://example.com/open/x", "Googlebot", "train-ai=y", "ai-train=no", false, "", true},
		{"https://example.com/articles/a", "Googlebot", "search=y, train-ai=n", "ai-train=no", false, "train-ai=n", true},
		{"https://example.com/private/a", "Googlebot", "", "", false, "", false},
		{"https://example.com/articles/a", "Mozilla/5.0 (compatible; GPTBot/1.1)", "", "", true, "train-ai=n", false},
		{"https://example.com/open/a", "GPTBot", "", "", false, "", true},
	} {
		rep, err := Check(s, Request{URL: tc.url, Agent: tc.agent})
		if err != nil {
			t.Fatal(err)
		}
		e := rep.Enforcement
		if formatPrefs(rep.Preferences.ContentUsage) != tc.cu || formatPrefs(rep.Preferences.ContentSignal) != tc.cs ||
			!e.Configured || e.Blocked != tc.blocked || (e.Blocked && (e.Status != 451 || !strings.Contains(e.Message, "GPTBot"))) ||
			rep.Response.ContentUsage != tc.responseUsage || rep.Allowed != tc.allowed {
			t.Errorf("%s %s: %+v %+v %q", tc.url, tc.agent, rep.Preferences, e, rep.Response.ContentUsage)
		}
	}
}

// TestCheckMergeSources: check decides with the file merge_file merges in, as the served
// robots.txt does, and says that merge_upstream's backend file is not seen.
func TestCheckMergeSources(t *testing.T) {
	cms := filepath.Join(t.TempDir(), "robots.txt")
	if err := os.WriteFile(cms, []byte("User-agent: *\nDisallow: /wp-admin/\nAllow: /drafts/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, merge string
		url         string
		allowed     bool
		note        bool
	}{
		{"merge_file adds its Disallow", `"merge_file": ` + strconv.Quote(cms), "https://example.com/wp-admin/x", false, false},
		{"merge_file cannot lift a declared Disallow", `"merge_file": ` + strconv.Quote(cms), "https://example.com/drafts/x", false, false},
		{"merge_file, a path neither restricts", `"merge_file": ` + strconv.Quote(cms), "https://example.com/a", true, false},
		{"merge_upstream: declared rules, with a note", `"merge_upstream": true`, "https://example.com/wp-admin/x", true, true},
		{"merge_upstream, a declared Disallow holds", `"merge_upstream": true`, "https://example.com/drafts/x", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := site(t, `{"robots_txt": {`+tc.merge+`, "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/drafts/"}]}]}}`)
			rep, err := Check(s, Request{URL: tc.url, Agent: "Googlebot"})
			if err != nil {
				t.Fatal(err)
			}
			noted := false
			for _, n := range rep.Notes {
				noted = noted || strings.Contains(n, "merge_upstream")
			}
			if rep.Allowed != tc.allowed || noted != tc.note {
				t.Errorf("allowed %v (want %v), merge_upstream note %v (want %v): %+v", rep.Allowed, tc.allowed, noted, tc.note, rep)
			}
		})
	}
}

// TestCheckRobotsFile decides with a given file, diagnostics included.
func TestCheckRobotsFile(t *testing.T) {
	file := "# theirs\nUser-agent: FooBot\nDisallow: /foo\nAllow: /foo/bar\nnonsense line\n\nUser-agent: *\nUser-agent: BarBot\nDisallow: /\n"
	for _, tc := range []struct {
		agent, path string
		allowed     bool
		line        int
	}{
		{"FooBot", "/foo/x", false, 3},
		{"foobot", "/foo/bar/x", true, 4},
		{"FooBot", "/other", true, 0},
		{"BarBot", "/other", false, 9},
		{"BazBot", "/", false, 9},
	} {
		rep, err := Check(&Site{}, Request{URL: "https://example.org" + tc.path, Agent: tc.agent, RobotsFile: []byte(file), RobotsFileName: "theirs.txt"})
		if err != nil {
			t.Fatal(err)
		}
		if g := grobotstxt.AgentAllowed(file, tc.agent, "https://example.org"+tc.path); g != rep.Allowed || rep.Allowed != tc.allowed {
			t.Errorf("%s %s: Check %v, grobotstxt %v, want %v", tc.agent, tc.path, rep.Allowed, g, tc.allowed)
		}
		line := 0
		if rep.RobotsTxt.Rule != nil {
			line = rep.RobotsTxt.Rule.Line
		}
		if line != tc.line || rep.RobotsTxt.Source != "theirs.txt" || len(rep.RobotsTxt.Diagnostics) != 1 || !strings.Contains(rep.RobotsTxt.Diagnostics[0], "line 5") {
			t.Errorf("%s %s: %+v", tc.agent, tc.path, rep.RobotsTxt)
		}
	}
}

// TestCheckErrors: a bad URL and an invalid config are errors, not reports.
func TestCheckErrors(t *testing.T) {
	s, _ := exampleSite(t)
	for _, u := range []string{"", "/drafts/x", "ftp://example.com/", "https://"} {
		if _, err := Check(s, Request{URL: u}); err == nil {
			t.Errorf("URL %q accepted", u)
		}
	}
	bad := site(t, `{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "drafts"}]}]}}`)
	if _, err := Check(bad, Request{URL: "https://example.com/"}); err == nil || !strings.Contains(err.Error(), "robots_txt.groups[0].rules[0]") {
		t.Errorf("invalid config: %v", err)
	}
}

// TestProductToken takes the crawler's token from User-Agent headers.
func TestProductToken(t *testing.T) {
	for agent, want := range map[string]string{
		"":          "*",
		"*":         "*",
		"Googlebot": "Googlebot",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)":                               "Googlebot",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)": "GPTBot",
		"Mozilla/5.0 (compatible; ExampleBot/1.0)":                                                               "ExampleBot",
		"curl/8.0": "curl",
	} {
		if got, _ := productToken(agent, []string{"ExampleBot"}); got != want {
			t.Errorf("%q: %q, want %q", agent, got, want)
		}
	}
}

// TestCheckTextLongGroup: a preset group's many user-agent lines are summed up in the text
// report, the matching one always named; the JSON lists them all.
func TestCheckTextLongGroup(t *testing.T) {
	s := site(t, `{"robots_txt": {"groups": [{"presets": ["ai-training"], "rules": [{"type": "disallow", "path": "/"}]}]}}`)
	rep, err := Check(s, Request{URL: "https://example.com/a", Agent: "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	line := ""
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "  group:") {
			line = l
		}
	}
	n := len(rep.RobotsTxt.Group.UserAgents)
	if n < 20 || !strings.Contains(line, "User-agent: GPTBot") || !strings.Contains(line, fmt.Sprintf("and %d more lines", n-maxGroupWho)) {
		t.Errorf("%d user agents; group line %q", n, line)
	}
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

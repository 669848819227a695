package serve_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
)

const chromeUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// TestNewErrors: New reports every problem of a config, each as a *configerr.Error with its
// field path in the config's JSON form and the value found there, and builds no Core.
func TestNewErrors(t *testing.T) {
	star := []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/x"}}}}
	type want struct{ path, value, problem string }
	cases := []struct {
		name string
		cfg  policy.Config
		want []want
	}{
		{"empty", policy.Config{}, []want{{"", "", "nothing to do: configure robots_txt, robots_tag, or both"}}},
		{"bad rule", policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{Rules: rules("*", "noindx")}}}},
			[]want{{`robots_tag[0].rules["*"][0]`, "noindx", `unknown rule "noindx"`}}},
		{"no rules", policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{Rules: rules("*", "noindex")}}, {Tags: policy.Tags{Rules: map[string][]string{}}}}},
			[]want{{"robots_tag[1].rules", "", "no rules"}}},
		{"meta and x_robots_tag without rules", policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{ContentUsage: map[string]string{"train-ai": "n"}, Meta: true, XRobotsTag: true}}}},
			[]want{{"robots_tag[0].meta", "", "meta writes the route's robots rules"}, {"robots_tag[0].x_robots_tag", "", "x_robots_tag sends the route's robots rules"}}},
		{"bad usage", policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{ContentUsage: map[string]string{"train-ai": "maybe"}}}}},
			[]want{{`robots_tag[0].content_usage["train-ai"]`, "maybe", "Content-Usage values are y (allow) and n (disallow)"}}},
		{"bad path and rule together", policy.Config{RobotsTag: []policy.Route{{Paths: []string{"x"}, Tags: policy.Tags{Rules: rules("*", "noindx")}}}},
			[]want{{"robots_tag[0].paths[0]", "x", "a path pattern must start with / or *"}, {`robots_tag[0].rules["*"][0]`, "noindx", "unknown rule"}}},
		{"bad token", policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: []robotsgen.Group{{UserAgents: []string{"Google Bot"}}}}},
			[]want{{"robots_txt.groups[0].user_agents[0]", "Google Bot", "a product token may contain only"}}},
		{"max_age", policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: star, MaxAge: policy.Duration(25 * time.Hour)}},
			[]want{{"robots_txt.max_age", "25h0m0s", "max_age must be at least 1s"}}},
		{"enforce status", policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: []robotsgen.Group{{UserAgents: []string{"GPTBot"}}}, Enforce: &policy.Enforce{Status: 302}}},
			[]want{{"robots_txt.enforce.status", "302", "the status of a blocked request is a client or server error"}}},
		{"enforce without a crawler", policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: star, Enforce: &policy.Enforce{}}},
			[]want{{"robots_txt.enforce", "", "no group names a crawler"}}},
		{"merge_file missing", policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: star, Merge: policy.Merge{MergeFile: "/no/such/robots.txt"}}},
			[]want{{"robots_txt.merge_file", "/no/such/robots.txt", "cannot read the robots.txt to merge: no such file or directory"}}},
		{"merge_upstream_timeout", policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: star, Merge: policy.Merge{MergeUpstreamTimeout: policy.Duration(time.Second)}}},
			[]want{{"robots_txt.merge_upstream_timeout", "1s", "a fetch timeout needs merge_upstream"}}},
		{"both parts", policy.Config{
			RobotsTxt: &policy.RobotsTxt{Groups: star, MaxAge: -1},
			RobotsTag: []policy.Route{{Tags: policy.Tags{Rules: rules("*", "noindex")}}, {Paths: []string{""}, Tags: policy.Tags{Rules: rules("*", "noindex")}}},
		}, []want{{"robots_txt.max_age", "-1ns", "max_age must be at least 1s"}, {"robots_tag[1].paths[0]", "", "a path pattern must not be empty"}}},
	}
	for _, c := range cases {
		core, err := serve.New(c.cfg, serve.Options{})
		if core != nil || err == nil {
			t.Errorf("%s: New returned a Core (%v)", c.name, err)
			continue
		}
		got := configerr.All(err)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d errors, want %d: %v", c.name, len(got), len(c.want), err)
			continue
		}
		for i, w := range c.want {
			if got[i].Path != w.path || got[i].Value != w.value || !strings.HasPrefix(got[i].Problem, w.problem) {
				t.Errorf("%s: error %d is %q %q %q, want %q %q %q...", c.name, i, got[i].Path, got[i].Value, got[i].Problem, w.path, w.value, w.problem)
			}
		}
	}
}

// TestWarnings: what is valid but likely not meant is in Warnings, with field paths, and
// LogWarnings logs each at warn level with its path.
func TestWarnings(t *testing.T) {
	core := mustCore(t, policy.Config{
		RobotsTxt: &policy.RobotsTxt{Groups: []robotsgen.Group{{UserAgents: []string{"AI2Bot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}}}},
		RobotsTag: []policy.Route{
			{Tags: policy.Tags{Rules: rules("*", "noindex")}},
			{Tags: policy.Tags{Rules: rules("360Spider", "noindex")}},
		},
	})
	ws := core.Warnings()
	var paths []string
	for _, w := range ws {
		paths = append(paths, w.Path)
		if !strings.Contains(w.Problem, "digit") {
			t.Errorf("warning %q", w)
		}
	}
	if strings.Join(paths, " ") != `robots_txt.groups[0].user_agents[0] robots_tag[1].rules["360Spider"]` {
		t.Errorf("warnings at %q", paths)
	}
	var buf bytes.Buffer
	core.LogWarnings(slog.New(slog.NewTextHandler(&buf, nil)))
	l := buf.String()
	if strings.Count(l, "level=WARN") != 2 || !strings.Contains(l, "path=robots_txt.groups[0].user_agents[0]") || !strings.Contains(l, `path="robots_tag[1].rules[\"360Spider\"]"`) {
		t.Errorf("logged:\n%s", l)
	}
	if w := mustCore(t, metaConfig).Warnings(); len(w) != 0 {
		t.Errorf("warnings of a plain config: %v", w)
	}
}

// blockAI is the README's recipe: every AI crawler of the catalogue kept out, everyone else out
// of /admin/ only; refused requests get 451.
var blockAI = policy.Config{RobotsTxt: &policy.RobotsTxt{
	Groups: []robotsgen.Group{
		{Presets: []string{crawlers.AITraining, crawlers.AISearch}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
		{UserAgents: []string{"ExampleBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}, {Type: robotsgen.Allow, Path: "/private/open/"}}},
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}},
	},
	Enforce: &policy.Enforce{Status: 451},
}}

// TestEnforce: a crawler a group names gets Block.Status and WriteError's text where the
// served file disallows its path, exactly where Google's parser reads the served file so;
// browsers, crawlers no group names, the * group and /robots.txt are never refused.
func TestEnforce(t *testing.T) {
	core := mustCore(t, blockAI)
	h := frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("app")) }))
	for _, s := range both(t, h) {
		_, file := s.do(t, "GET", "/robots.txt")
		served := string(file)
		refused := 0
		for _, ua := range []struct{ header, token string }{
			{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot"},
			{"CCBot/2.0 (https://commoncrawl.org/faq/)", "CCBot"},
			{"PerplexityBot/1.0", "PerplexityBot"},
			{"ExampleBot/3.1", "ExampleBot"},
			{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", ""},
			{chromeUA, ""},
			{"", ""},
		} {
			for _, p := range []string{"/", "/article?id=1", "/admin/x", "/private/x", "/private/open/y", "/robots.txt"} {
				resp, body := s.do(t, "GET", p, "User-Agent", ua.header)
				blocked := resp.StatusCode == 451
				if !blocked && resp.StatusCode != 200 {
					t.Fatalf("%s %q %s: status %d", s.name, ua.header, p, resp.StatusCode)
				}
				want := false
				if ua.token != "" && p != "/robots.txt" {
					want = !grobotstxt.AgentAllowed(served, ua.token, s.url+p)
				}
				if blocked != want {
					t.Errorf("%s %q %s: refused %v, want %v (Google's parser on the served file)", s.name, ua.header, p, blocked, want)
				}
				if blocked {
					refused++
					rule := "/"
					if ua.token == "ExampleBot" {
						rule = "/private/"
					}
					if msg := "451 Unavailable For Legal Reasons: robots.txt disallows this path for " + ua.token + " (Disallow: " + rule + ")\n"; string(body) != msg {
						t.Errorf("%s %q %s: body %q, want %q", s.name, ua.header, p, body, msg)
					}
				} else if p != "/robots.txt" && string(body) != "app" {
					t.Errorf("%s %q %s: body %q", s.name, ua.header, p, body)
				}
			}
		}
		// Three AI crawlers on five paths each, ExampleBot on /private/x.
		if refused != 16 {
			t.Errorf("%s: %d requests refused, want 16", s.name, refused)
		}
	}
	// Any User-Agent line that names a crawler counts.
	r := httptest.NewRequest("GET", "/x", nil)
	r.Header.Add("User-Agent", chromeUA)
	r.Header.Add("User-Agent", "GPTBot/1.0")
	if b, ok := core.Enforce(r); !ok || b.Token != "GPTBot" || b.Status != 451 || b.Rule.Path != "/" || b.Rule.Type != robotsgen.Disallow {
		t.Errorf("two User-Agent lines: %+v %v", b, ok)
	}
}

// TestCrawler: Crawler names the crawler enforcement reads from the User-Agent and the
// served file's decision at the request's path; without enforce it names none.
func TestCrawler(t *testing.T) {
	core := mustCore(t, blockAI)
	for _, c := range []struct {
		ua, path, token string
		ok, allowed     bool
		rule            string
	}{
		{"GPTBot/1.0", "/a", "GPTBot", true, false, "/"},
		{"ExampleBot/1", "/private/x", "ExampleBot", true, false, "/private/"},
		{"ExampleBot/1", "/private/open/x", "ExampleBot", true, true, "/private/open/"},
		{"ExampleBot/1", "/public", "ExampleBot", true, true, ""},
		{"ExampleBot/1", "/robots.txt", "ExampleBot", true, true, ""},
		{chromeUA, "/a", "", false, false, ""},
		{"Googlebot/2.1", "/admin/", "", false, false, ""},
	} {
		r := httptest.NewRequest("GET", c.path, nil)
		r.Header.Set("User-Agent", c.ua)
		tok, d, ok := core.Crawler(r)
		if tok != c.token || ok != c.ok || ok && d.Allowed != c.allowed {
			t.Errorf("%s %s: %q %+v %v", c.ua, c.path, tok, d, ok)
			continue
		}
		if got := ""; ok {
			if d.Rule != nil {
				got = d.Rule.Path
			}
			if got != c.rule {
				t.Errorf("%s %s: decided by %q, want %q", c.ua, c.path, got, c.rule)
			}
		}
	}
	plain := mustCore(t, policy.Config{RobotsTxt: siteRobots})
	r := httptest.NewRequest("GET", "/a", nil)
	r.Header.Set("User-Agent", "GPTBot/1.0")
	if _, _, ok := plain.Crawler(r); ok {
		t.Error("Crawler without enforce")
	}
	if _, blocked := plain.Enforce(r); blocked {
		t.Error("Enforce without enforce")
	}
	if _, blocked := mustCore(t, metaConfig).Enforce(r); blocked {
		t.Error("Enforce without robots_txt")
	}
}

// TestWriteError: the text body front ends without error pages send.
func TestWriteError(t *testing.T) {
	rec := httptest.NewRecorder()
	serve.WriteError(rec, 503, "try later")
	if rec.Code != 503 || rec.Body.String() != "503 Service Unavailable: try later\n" || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("%d %q %v", rec.Code, rec.Body.String(), rec.Header())
	}
}

// TestClose: a Core still serves after Close, and Close may be called again.
func TestClose(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "robots.txt"), []byte("User-agent: *\nDisallow: /cms/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: siteRobots.Groups, Merge: policy.Merge{MergeUpstream: true, MergeFile: filepath.Join(dir, "robots.txt")}}}
	core, err := serve.New(cfg, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := startH1(t, frontEnd(core, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("User-agent: *\nDisallow: /backend/\n"))
	})))
	_, before := s.do(t, "GET", "/robots.txt")
	core.Close()
	core.Close()
	_, after := s.do(t, "GET", "/robots.txt")
	for _, body := range [][]byte{before, after} {
		for _, p := range []string{"/drafts/", "/cms/", "/backend/"} {
			if grobotstxt.AgentAllowed(string(body), "Googlebot", s.url+p+"x") {
				t.Errorf("%s allowed in\n%s", p, body)
			}
		}
	}
}

package nethttp_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/usage"
)

// presetDeclared keeps the training crawlers out but for /open-data/, one of them (AI2Bot,
// a name with digits) out of /private/ only, and everyone out of /drafts/.
func presetDeclared() *nethttp.RobotsTxtConfig {
	return &nethttp.RobotsTxtConfig{
		Groups: []robotsgen.Group{
			{Presets: []string{crawlers.AITraining}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}, {Type: robotsgen.Allow, Path: "/open-data/"}},
				ContentUsage: []usage.Rule{{Preferences: map[string]string{"train-ai": "n"}}}},
			{UserAgents: []string{"AI2Bot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}},
			{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/drafts/"}}},
		},
		Comments: []string{"declared"},
		Enforce:  &nethttp.Enforce{},
	}
}

// cmsRobots names one of the preset's crawlers and one crawler of no preset.
const cmsRobots = `User-agent: *
Disallow: /wp-admin/

User-agent: CCBot
Disallow: /cms-only/

User-agent: ExampleCMSBot
Disallow: /feeds/
`

// enforceAgents are User-Agent headers: of preset crawlers (robots.txt names and a name never
// written there), of a crawler the CMS names, of a search engine, of a browser.
var enforceAgents = []struct{ ua, token string }{
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot"},
	{"CCBot/2.0 (https://commoncrawl.org/faq/)", "CCBot"},
	{"Mozilla/5.0 (compatible) AI2Bot (+https://www.allenai.org/crawler)", "AI2Bot"},
	{"Kangaroo Bot/1.0", ""}, // preset name never written to robots.txt
	{"ExampleCMSBot/1.0", "ExampleCMSBot"},
	{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot"},
	{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36", ""},
}

var enforcePaths = []string{"/", "/article", "/open-data/a.csv", "/private/x", "/drafts/x", "/wp-admin/x", "/cms-only/x", "/feeds/x"}

// checkServedAndEnforced fetches robots.txt and every agent's every path, and checks that the
// served file keeps the preset and that enforcement answers exactly the named crawlers the
// served file disallows (Google's parser decides the file).
func checkServedAndEnforced(t *testing.T, base string, cmsMerged bool) {
	t.Helper()
	resp, body := get(t, nil, "GET", base+"/robots.txt")
	if resp.StatusCode != 200 {
		t.Fatalf("robots.txt: %d %s", resp.StatusCode, body)
	}
	served := string(body)
	cs, _ := crawlers.Category(crawlers.AITraining)
	writable, _ := crawlers.RobotsTxtNames(cs)
	for _, name := range writable {
		if !strings.Contains(served, "User-agent: "+name+"\n") {
			t.Fatalf("the served file lacks the preset's %s:\n%s", name, served)
		}
	}
	if !strings.Contains(served, "# declared") || !strings.Contains(served, "Content-Usage: train-ai=n") {
		t.Errorf("the declared comment or usage line is lost:\n%s", served)
	}
	if cmsMerged != strings.Contains(served, "Disallow: /feeds/") {
		t.Errorf("CMS merged %v, but the file is:\n%s", cmsMerged, served)
	}
	for _, a := range enforceAgents {
		for _, p := range enforcePaths {
			resp, _ := get(t, nil, "GET", base+p, "User-Agent", a.ua)
			enforced := resp.StatusCode == http.StatusForbidden
			if resp.StatusCode != 200 && !enforced {
				t.Fatalf("%s %s: status %d", a.ua, p, resp.StatusCode)
			}
			switch {
			case a.token == "" && strings.HasPrefix(a.ua, "Kangaroo"):
				// A preset name never written to robots.txt: decided as its preset's group.
				if want := p != "/open-data/a.csv"; enforced != want {
					t.Errorf("%s %s: enforced %v, want %v", a.ua, p, enforced, want)
				}
			case a.token == "" || a.token == "Googlebot" || a.token == "ExampleCMSBot" && !cmsMerged:
				if enforced {
					t.Errorf("%s %s: enforced, but the file names no group for it", a.ua, p)
				}
			default:
				allowed := grobotstxt.AgentAllowed(served, a.token, "http://example.com"+p)
				if enforced == allowed {
					t.Errorf("%s %s: enforced %v, but the served file allows it: %v\n%s", a.token, p, enforced, allowed, served)
				}
			}
		}
	}
}

// TestMergeKeepsPresetsAndEnforcement: a preset group survives merge_file and merge_upstream
// (whatever the backend answers: a CMS file, an empty file, 404, an HTML page), and enforcement
// refuses exactly what the served file disallows to the crawlers it names.
func TestMergeKeepsPresetsAndEnforcement(t *testing.T) {
	t.Run("declared alone", func(t *testing.T) {
		srv := serve(t, mustNew(t, nethttp.Config{RobotsTxt: presetDeclared()}), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		checkServedAndEnforced(t, srv.URL, false)
	})
	t.Run("merge_file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "robots.txt")
		if err := os.WriteFile(path, []byte(cmsRobots), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := presetDeclared()
		cfg.MergeFile = path
		srv := serve(t, mustNew(t, nethttp.Config{RobotsTxt: cfg}), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		checkServedAndEnforced(t, srv.URL, true)
	})
	for name, backend := range map[string]func(w http.ResponseWriter, r *http.Request){
		"merge_upstream CMS file": serveText(cmsRobots),
		"merge_upstream empty":    serveText(""),
		"merge_upstream blank":    serveText("\n\n# nothing\n"),
		"merge_upstream 404":      serveStatus(404),
		"merge_upstream HTML": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<!doctype html><p>not found</p>"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := presetDeclared()
			cfg.MergeUpstream = true
			b := &robotsBackend{serve: backend}
			srv := serve(t, mustNew(t, nethttp.Config{RobotsTxt: cfg}), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					b.ServeHTTP(w, r)
				}
			}))
			checkServedAndEnforced(t, srv.URL, name == "merge_upstream CMS file")
		})
	}
}

// TestMergeUpstreamEnforcesBeforeFetch: before an origin's robots.txt has been merged,
// enforcement decides with the declared file, which the merge only adds to.
func TestMergeUpstreamEnforcesBeforeFetch(t *testing.T) {
	cfg := presetDeclared()
	cfg.MergeUpstream = true
	srv := serve(t, mustNew(t, nethttp.Config{RobotsTxt: cfg}), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			serveText(cmsRobots)(w, r)
		}
	}))
	gptbot := enforceAgents[0].ua
	if resp, _ := get(t, nil, "GET", srv.URL+"/article", "User-Agent", gptbot); resp.StatusCode != 403 {
		t.Errorf("GPTBot before any merge: %d, want 403 (declared)", resp.StatusCode)
	}
	if resp, _ := get(t, nil, "GET", srv.URL+"/cms-only/x", "User-Agent", "CCBot/2.0"); resp.StatusCode != 403 {
		t.Errorf("CCBot before any merge: %d, want 403 (declared disallows / for it)", resp.StatusCode)
	}
	if resp, _ := get(t, nil, "GET", srv.URL+"/feeds/x", "User-Agent", "ExampleCMSBot/1.0"); resp.StatusCode != 200 {
		t.Errorf("ExampleCMSBot before the merge: %d, want 200 (the declared file does not name it)", resp.StatusCode)
	}
	get(t, nil, "GET", srv.URL+"/robots.txt")
	if resp, _ := get(t, nil, "GET", srv.URL+"/feeds/x", "User-Agent", "ExampleCMSBot/1.0"); resp.StatusCode != 403 {
		t.Errorf("ExampleCMSBot after the merge: %d, want 403 (the served file disallows /feeds/ for it)", resp.StatusCode)
	}
}

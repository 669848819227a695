package nethttp_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/internal/fixture"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// The cases are internal/fixture's, shared with the other front end's tests.
var (
	presetDeclared = fixture.PresetDeclared
	enforceAgents  = fixture.EnforceAgents
	enforcePaths   = fixture.EnforcePaths
)

const cmsRobots = fixture.CMSRobots

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
			resp, _ := get(t, nil, "GET", base+p, "User-Agent", a.UA)
			enforced := resp.StatusCode == http.StatusForbidden
			if resp.StatusCode != 200 && !enforced {
				t.Fatalf("%s %s: status %d", a.UA, p, resp.StatusCode)
			}
			switch {
			case a.Token == "" && strings.HasPrefix(a.UA, "Kangaroo"):
				// A preset name never written to robots.txt: decided as its preset's group.
				if want := p != "/open-data/a.csv"; enforced != want {
					t.Errorf("%s %s: enforced %v, want %v", a.UA, p, enforced, want)
				}
			case a.Token == "" || a.Token == "Googlebot" || a.Token == "ExampleCMSBot" && !cmsMerged:
				if enforced {
					t.Errorf("%s %s: enforced, but the file names no group for it", a.UA, p)
				}
			default:
				allowed := grobotstxt.AgentAllowed(served, a.Token, "http://example.com"+p)
				if enforced == allowed {
					t.Errorf("%s %s: enforced %v, but the served file allows it: %v\n%s", a.Token, p, enforced, allowed, served)
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
	gptbot := enforceAgents[0].UA
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

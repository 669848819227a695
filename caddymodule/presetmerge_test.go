package caddymodule

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// presetMergeSite keeps the training crawlers out but for /open-data/, merged with a CMS's
// file, enforced.
const presetMergeSite = `
http://localhost:@PORT@ {
	robots_txt {
		preset ai-training {
			disallow /
			allow /open-data/
			content_usage train-ai=n
		}
		group * {
			disallow /drafts/
		}
		enforce
		@MERGE@
	}
	@BACKEND@
}
`

const presetCMS = "User-agent: *\nDisallow: /wp-admin/\n\nUser-agent: ExampleCMSBot\nDisallow: /feeds/\n"

// wantPresetServedAndEnforced: the served file names every robots.txt name of the preset,
// and enforcement answers crawlers exactly where it disallows them.
func wantPresetServedAndEnforced(t *testing.T, cmsMerged bool) string {
	t.Helper()
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	served := string(body)
	cs, _ := crawlers.Category(crawlers.AITraining)
	writable, _ := crawlers.RobotsTxtNames(cs)
	for _, name := range writable {
		if !strings.Contains(served, "User-agent: "+name+"\n") {
			t.Fatalf("the served file lacks the preset's %s:\n%s", name, served)
		}
	}
	if !strings.Contains(served, "Content-Usage: train-ai=n") || strings.Contains(served, "Disallow: /feeds/") != cmsMerged {
		t.Errorf("declared usage line lost, or CMS merged is not %v:\n%s", cmsMerged, served)
	}
	for _, c := range []struct{ ua, token string }{
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot"},
		{"CCBot/2.0 (https://commoncrawl.org/faq/)", "CCBot"},
		{"ExampleCMSBot/1.0", "ExampleCMSBot"},
	} {
		for _, p := range []string{"/", "/article", "/open-data/a.csv", "/drafts/x", "/wp-admin/x", "/feeds/x"} {
			resp, _ := do(t, "GET", siteURL(p), "User-Agent: "+c.ua)
			allowed := grobotstxt.AgentAllowed(served, c.token, siteURL(p))
			named := c.token != "ExampleCMSBot" || cmsMerged
			if want := named && !allowed; (resp.StatusCode == 403) != want {
				t.Errorf("%s %s: status %d, want enforced %v (served file allows %v)", c.token, p, resp.StatusCode, want, allowed)
			}
		}
	}
	return served
}

// TestPresetsThroughMergeInCaddy: in a real Caddy, a preset group survives merge_file and
// merge_upstream (a CMS file, an empty one), enforcement agrees with the served file, the
// built binary's check agrees with both, and an edited merge_file is served and enforced
// without a reload.
func TestPresetsThroughMergeInCaddy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cms-robots.txt")
	if err := os.WriteFile(file, []byte(presetCMS), 0o644); err != nil {
		t.Fatal(err)
	}
	site := strings.NewReplacer("@MERGE@", fmt.Sprintf("merge_file %q", file), "@BACKEND@", `respond "page"`).Replace(presetMergeSite)
	startCaddyfile(t, site)
	wantPresetServedAndEnforced(t, true)

	// caddy robots check reads the same config: the same decision as the served file and
	// enforcement, for a preset crawler and for the crawler only the CMS file names.
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(globals()+expand(site)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		agent, path       string
		allowed, enforced bool
	}{
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "/article", false, true},
		{"GPTBot", "/open-data/a.csv", true, false},
		{"ExampleCMSBot/1.0", "/feeds/x", false, true},
		{"ExampleCMSBot/1.0", "/article", true, false},
		{"Googlebot", "/wp-admin/x", false, false},
	} {
		out, errOut, st := runCaddy(t, dir, "robots", "check", "--format", "json", "--url", siteURL(c.path), "--agent", c.agent)
		var rep checkJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil || st > 1 {
			t.Fatalf("%s %s: status %d, %v\n%s\n%s", c.agent, c.path, st, err, out, errOut)
		}
		if rep.Allowed != c.allowed || rep.Enforcement.Blocked != c.enforced || (st == 0) != c.allowed {
			t.Errorf("check %s %s: allowed %v, blocked %v, status %d; want %v, %v", c.agent, c.path, rep.Allowed, rep.Enforcement.Blocked, st, c.allowed, c.enforced)
		}
		resp, _ := do(t, "GET", siteURL(c.path), "User-Agent: "+c.agent)
		if (resp.StatusCode == 403) != c.enforced {
			t.Errorf("served %s %s: %d, want enforced %v", c.agent, c.path, resp.StatusCode, c.enforced)
		}
	}

	// Edited: served and enforced from the next robots.txt request a second later.
	if err := os.WriteFile(file, []byte(presetCMS+"\nUser-agent: ExampleCMSBot\nDisallow: /new/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	served := wantPresetServedAndEnforced(t, true)
	if !strings.Contains(served, "Disallow: /new/") {
		t.Errorf("the edited merge_file is not served:\n%s", served)
	}
	if resp, _ := do(t, "GET", siteURL("/new/x"), "User-Agent: ExampleCMSBot/1.0"); resp.StatusCode != 403 {
		t.Errorf("the edited merge_file is not enforced: %d", resp.StatusCode)
	}
}

func TestPresetsThroughMergeUpstreamInCaddy(t *testing.T) {
	for _, c := range []struct {
		name    string
		backend http.HandlerFunc
		merged  bool
	}{
		{"CMS file", serveText(presetCMS), true},
		{"empty 200", serveText(""), false},
		{"404", serveStatus(404), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newMergeBackend(t)
			b.set(c.backend)
			startCaddyfile(t, strings.NewReplacer("@MERGE@", "merge_upstream", "@BACKEND@", "reverse_proxy "+b.Listener.Addr().String()).Replace(presetMergeSite))
			wantPresetServedAndEnforced(t, c.merged)
		})
	}
}

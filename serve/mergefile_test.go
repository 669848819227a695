package serve_test

// merge_file: read when the Core is built, and again, at most once a second on a request for
// /robots.txt, when it has changed; a file that can no longer be read or merged leaves the
// last good merge served (and enforced), with one warning.

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/internal/fixture"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
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
func checkServedAndEnforced(t *testing.T, s site, cmsMerged bool) {
	t.Helper()
	resp, body := s.do(t, "GET", "/robots.txt")
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
			resp, _ := s.do(t, "GET", p, "User-Agent", a.UA)
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

// mergeFile is a merge_file whose contents a test changes, each time with a modification
// time of its own (so that no change hides in the file system's timestamp granularity).
type mergeFile struct {
	t    *testing.T
	path string
	n    int
}

func newMergeFile(t *testing.T, contents string) *mergeFile {
	f := &mergeFile{t: t, path: filepath.Join(t.TempDir(), "robots.txt")}
	f.write(contents)
	return f
}

func (f *mergeFile) write(s string) {
	f.t.Helper()
	if err := os.WriteFile(f.path, []byte(s), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.n++
	mt := time.Now().Add(-time.Duration(100-f.n) * time.Hour)
	if err := os.Chtimes(f.path, mt, mt); err != nil {
		f.t.Fatal(err)
	}
}

// eventually polls cond until it holds, for at most 5 s: a change to merge_file is seen by
// the first request for robots.txt a second after the last check.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5s", what)
		}
		time.Sleep(40 * time.Millisecond)
	}
}

// checkInterval is how often merge_file is checked at most.
const checkInterval = time.Second

// TestMergeFileEdited: an edited merge_file is served, and enforced, from the next request
// for robots.txt a second later, without a reload; a file removed, unreadable or no longer
// merging leaves the last merge served, with one warning; a file rewritten with the same
// contents keeps the validators. Each change waits for the next check, a second later, so
// the three files change side by side (subtests run from goroutines, taking no slot of
// -parallel).
func TestMergeFileEdited(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for name, f := range map[string]func(*testing.T){
		"edited":        mergeFileEdited,
		"unmergeable":   mergeFileUnmergeable,
		"same contents": mergeFileSameContents,
	} {
		wg.Go(func() { t.Run(name, f) })
	}
	wg.Wait()
}

// mergeFileEdited: an edited file is served and enforced; removed, the last merge stays,
// with one warning; written again, it is served.
func mergeFileEdited(t *testing.T) {
	f := newMergeFile(t, cmsRobots)
	cfg := presetDeclared()
	cfg.MergeFile = f.path
	l := &logs{}
	s := startH1(t, frontEnd(mustCore(t, policy.Config{RobotsTxt: cfg}, l.options()), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	robots := func() string {
		_, body := s.do(t, "GET", "/robots.txt")
		return string(body)
	}
	status := func(ua, path string) int {
		resp, _ := s.do(t, "GET", path, "User-Agent", ua)
		return resp.StatusCode
	}
	first := robots()
	if !strings.Contains(first, "/feeds/") || status("ExampleCMSBot/1.0", "/new/x") != 200 {
		t.Fatalf("before the edit:\n%s", first)
	}
	f.write(cmsRobots + "\nUser-agent: ExampleCMSBot\nDisallow: /new/\n")
	var edited string
	eventually(t, "the edit is served", func() bool { edited = robots(); return edited != first })
	if !strings.Contains(edited, "Disallow: /new/") {
		t.Fatalf("the edit is not served:\n%s", edited)
	}
	if got := status("ExampleCMSBot/1.0", "/new/x"); got != 403 {
		t.Errorf("the edit is not enforced: %d", got)
	}
	if l.count("file", "changed: serving the declared file merged with its new contents") != 1 {
		t.Errorf("warnings:\n%s", l.all("file"))
	}
	checkServedAndEnforced(t, s, true)

	if err := os.Remove(f.path); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the removal is noticed", func() bool {
		if got := robots(); got != edited {
			t.Fatalf("a removed merge_file changed what is served:\n%s", got)
		}
		return l.count("file", "cannot read it any more") > 0
	})
	noticed := time.Now()
	time.Sleep(time.Until(noticed.Add(checkInterval + 50*time.Millisecond))) // one more check
	if got := robots(); got != edited {
		t.Errorf("a removed merge_file changed what is served:\n%s", got)
	}
	if got := status("ExampleCMSBot/1.0", "/new/x"); got != 403 {
		t.Errorf("the last merge is no longer enforced: %d", got)
	}
	if n := l.count("file", "cannot read it any more"); n != 1 {
		t.Errorf("%d warnings about the removed file, want 1:\n%s", n, l.all("file"))
	}
	f.write("User-agent: ExampleCMSBot\nDisallow: /other/\n")
	var got string
	eventually(t, "the file written again is served", func() bool { got = robots(); return got != edited })
	if !strings.Contains(got, "Disallow: /other/") || strings.Contains(got, "/feeds/") {
		t.Errorf("the file written again is not served:\n%s", got)
	}
	if got := status("ExampleCMSBot/1.0", "/new/x"); got != 200 {
		t.Errorf("a rule no longer in the file is still enforced: %d", got)
	}
	if got := status("ExampleCMSBot/1.0", "/other/x"); got != 403 {
		t.Errorf("the new rule is not enforced: %d", got)
	}
}

// hugeRobots is a robots.txt within the size limit whose merge with a file naming a crawler
// is not: the "*" rules are repeated in that crawler's group.
func hugeRobots() string {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for i := range 140 {
		fmt.Fprintf(&b, "Disallow: /p%03d/%s\n", i, strings.Repeat("x", 2000))
	}
	return b.String()
}

// mergeFileUnmergeable: a changed file that cannot be merged or read (too large merged, a
// directory) leaves the last good merge served and enforced, with one warning each; the file
// made good again is served.
func mergeFileUnmergeable(t *testing.T) {
	declared := &policy.RobotsTxt{
		Groups:  []robotsgen.Group{{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/gpt/"}}}},
		Enforce: &policy.Enforce{Status: 429},
	}
	f := newMergeFile(t, "User-agent: GPTBot\nDisallow: /cms/\n")
	declared.MergeFile = f.path
	l := &logs{}
	s := startH1(t, frontEnd(mustCore(t, policy.Config{RobotsTxt: declared}, l.options()), http.NotFoundHandler()))
	robots := func() (string, string) {
		resp, body := s.do(t, "GET", "/robots.txt")
		return string(body), resp.Header.Get("Etag")
	}
	gpt := func(path string) int {
		resp, _ := s.do(t, "GET", path, "User-Agent", "GPTBot/1.0")
		return resp.StatusCode
	}
	good, etag := robots()
	if grobotstxt.AgentAllowed(good, "GPTBot", "http://x/cms/a") || grobotstxt.AgentAllowed(good, "GPTBot", "http://x/gpt/a") || gpt("/cms/a") != 429 {
		t.Fatalf("the first merge:\n%s", good)
	}

	f.write(hugeRobots())
	eventually(t, "the unmergeable file is noticed", func() bool {
		if body, e := robots(); body != good || e != etag {
			t.Fatalf("an unmergeable file changed what is served:\n%.300s", body)
		}
		return l.count("file", "changed, but merged with the declared file it is not a valid robots.txt") > 0
	})
	if gpt("/cms/a") != 429 || gpt("/p001/") != 404 {
		t.Errorf("enforcement no longer follows the last good merge")
	}

	if err := os.Remove(f.path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(f.path, 0o755); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the directory is noticed", func() bool {
		if body, _ := robots(); body != good {
			t.Fatalf("a directory changed what is served:\n%.300s", body)
		}
		return l.count("file", "it is a directory: serving the last merge read") > 0
	})
	if err := os.Remove(f.path); err != nil {
		t.Fatal(err)
	}

	f.write("User-agent: GPTBot\nDisallow: /cms2/\n")
	var body string
	eventually(t, "the good file is served", func() bool { body, _ = robots(); return body != good })
	if !strings.Contains(body, "Disallow: /cms2/") || strings.Contains(body, "Disallow: /cms/\n") || gpt("/cms2/a") != 429 || gpt("/cms/a") != 404 {
		t.Errorf("the good file:\n%s", body)
	}
	for _, w := range []string{"not a valid robots.txt", "it is a directory"} {
		if n := l.count("file", w); n != 1 {
			t.Errorf("%d warnings saying %q, want 1:\n%s", n, w, l.all("file"))
		}
	}
}

// mergeFileSameContents: a file rewritten with the same contents keeps what is served, with
// its validators, so that caches still get 304s.
func mergeFileSameContents(t *testing.T) {
	f := newMergeFile(t, cmsRobots)
	cfg := presetDeclared()
	cfg.MergeFile = f.path
	l := &logs{}
	s := startH1(t, frontEnd(mustCore(t, policy.Config{RobotsTxt: cfg}, l.options()), http.NotFoundHandler()))
	resp, body := s.do(t, "GET", "/robots.txt")
	first := time.Now()
	etag, lm := resp.Header.Get("Etag"), resp.Header.Get("Last-Modified")
	f.write(cmsRobots)
	// A state made a second later would have a later Last-Modified (whole seconds).
	time.Sleep(time.Until(first.Add(checkInterval + 50*time.Millisecond)))
	resp2, body2 := s.do(t, "GET", "/robots.txt", "If-None-Match", etag)
	if resp2.StatusCode != 304 || len(body2) != 0 || resp2.Header.Get("Last-Modified") != lm {
		t.Errorf("rewritten with the same contents: %d, Last-Modified %q (was %q)", resp2.StatusCode, resp2.Header.Get("Last-Modified"), lm)
	}
	resp2, body2 = s.do(t, "GET", "/robots.txt")
	if string(body2) != string(body) || resp2.Header.Get("Etag") != etag || resp2.Header.Get("Last-Modified") != lm {
		t.Errorf("rewritten with the same contents: ETag %q Last-Modified %q", resp2.Header.Get("Etag"), resp2.Header.Get("Last-Modified"))
	}
	if n := l.count("file", "changed"); n != 0 {
		t.Errorf("warned about an unchanged merge:\n%s", l.all("file"))
	}
}

// TestMergeFileAtLoad: merge_file's skipped lines are told to Options.Warn with their line
// numbers; a file whose merge is not a valid robots.txt is a config error at
// robots_txt.merge_file, as is a directory.
func TestMergeFileAtLoad(t *testing.T) {
	f := newMergeFile(t, "User-agent: *\nDisallow: /a/\nNonsense line\nDisallow /no-colon\n")
	l := &logs{}
	core := mustCore(t, policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: siteRobots.Groups, Merge: policy.Merge{MergeFile: f.path}}}, l.options())
	if l.count("file", "merge_file "+f.path+": line 3 skipped or changed") != 1 {
		t.Errorf("warnings:\n%s", l.all("file"))
	}
	_, body := startH1(t, frontEnd(core, http.NotFoundHandler())).do(t, "GET", "/robots.txt")
	for p, allowed := range map[string]bool{"/a/x": false, "/drafts/x": false, "/no-colon": false, "/b": true} {
		if grobotstxt.AgentAllowed(string(body), "Googlebot", "http://x"+p) != allowed {
			t.Errorf("Googlebot %s: want allowed %v in\n%s", p, allowed, body)
		}
	}

	f.write(hugeRobots())
	gptOnly := []robotsgen.Group{{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/gpt/"}}}}
	_, err := serve.New(policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: gptOnly, Merge: policy.Merge{MergeFile: f.path}}}, serve.Options{})
	if es := configerr.All(err); len(es) != 1 || es[0].Path != "robots_txt.merge_file" || es[0].Value != f.path || !strings.Contains(es[0].Problem, "the declared file merged with this one is not a valid robots.txt") {
		t.Errorf("unmergeable merge_file: %v", err)
	}
	dir := t.TempDir()
	_, err = serve.New(policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: siteRobots.Groups, Merge: policy.Merge{MergeFile: dir}}}, serve.Options{})
	if es := configerr.All(err); len(es) != 1 || es[0].Path != "robots_txt.merge_file" || es[0].Problem != "cannot read the robots.txt to merge: it is a directory" {
		t.Errorf("directory as merge_file: %v", err)
	}
}

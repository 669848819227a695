package caddymodule

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/command"
	"github.com/sitepolicy/caddy-robots/docs"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// docPage is a Markdown file of the documentation, read from its path relative to this
// package.
type docPage struct {
	path string
	src  []byte
}

// docPages returns the documentation: the README and every page of docs/.
func docPages(t *testing.T) []docPage {
	t.Helper()
	paths, err := filepath.Glob("../docs/*.md")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no pages in ../docs: %v", err)
	}
	var pages []docPage
	for _, p := range append([]string{"../README.md"}, paths...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, docPage{p, src})
	}
	return pages
}

// docBlock returns the fenced block, with info string info, after the marker
// <!-- test: name --> of the Markdown file at path (relative to this package).
func docBlock(t *testing.T, path, name, info string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, err := docs.Marked(src, name, info)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return block
}

// TestREADMECaddyfiles adapts every Caddyfile snippet of the README and of docs/ (wrapped in a
// site when it is a fragment), loads it as "caddy robots lint" does (every module provisioned)
// and lints it, so the documentation cannot show a config Caddy would refuse, nor one that
// lint warns about. The syntax summary, with its <placeholders>, is the one block left out.
func TestREADMECaddyfiles(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	checked, summaries := 0, 0
	for _, page := range docPages(t) {
		blocks, err := docs.Blocks(page.src)
		if err != nil {
			t.Fatalf("%s: %v", page.path, err)
		}
		for _, b := range blocks {
			if b.Info != "caddyfile" {
				continue
			}
			if page.path == "../README.md" && b.Marker == "syntax-summary" {
				summaries++
				continue
			}
			block := b.Text
			first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(block), "\n", 2)[0])
			cfg, wrapped := block, false
			// A whole Caddyfile starts with a site address or the global options block.
			if first != "{" && !strings.HasPrefix(first, "http") && !strings.Contains(strings.Fields(first)[0], ".") {
				cfg, wrapped = "http://localhost:8080 {\n"+block+"\nrespond ok\n}\n", true
			}
			out, warnings, err := adapter.Adapt([]byte(cfg), map[string]any{"filename": page.path})
			if err != nil {
				t.Errorf("%s:%d: Caddyfile block refused: %v\n%s", page.path, b.Line, err, block)
				continue
			}
			for _, w := range warnings {
				if wrapped && strings.Contains(w.Message, "not formatted") {
					continue // the wrapping, not the documentation, is unformatted
				}
				t.Errorf("%s:%d: Caddyfile block: warning %s", page.path, b.Line, w.Message)
			}
			if !strings.Contains(string(out), `"handler":"robots_`) {
				t.Errorf("%s:%d: Caddyfile block adapts to no robots handler", page.path, b.Line)
			}
			lintDocBlock(t, fmt.Sprintf("%s:%d", page.path, b.Line), cfg)
			checked++
		}
	}
	if checked < 10 || summaries != 1 {
		t.Errorf("%d Caddyfile blocks checked (want at least 10), %d syntax summaries left out (want 1)", checked, summaries)
	}
}

// lintDocBlock loads cfg, the Caddyfile of a documentation block at place, as caddy robots
// lint does, and fails the test on a load error or a finding at warning level or above.
func lintDocBlock(t *testing.T, place, cfg string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	lc, err := command.Load(file, "caddyfile")
	if err != nil {
		t.Errorf("%s: Caddyfile block does not load: %v", place, err)
		return
	}
	defer lc.Close()
	for _, site := range lc.Sites() {
		findings, err := policycheck.Lint(site)
		if err != nil {
			t.Errorf("%s: lint: %v", place, err)
		}
		for _, f := range findings {
			if f.Severity.AtLeastWarning() {
				t.Errorf("%s: Caddyfile block: lint finds %s", place, f)
			}
		}
	}
}

// TestREADMESyntaxSummary: the README's syntax summary (the Caddyfile block after the
// marker <!-- test: syntax-summary -->) lists, in each block, exactly the sub-directives the
// parsers accept, so a sub-directive cannot be added without being documented, nor
// documented without existing.
func TestREADMESyntaxSummary(t *testing.T) {
	block := docBlock(t, "../README.md", "syntax-summary", "caddyfile")
	listed := map[string][]string{}
	var open []string // the blocks the current line is in, innermost last
	for _, line := range strings.Split(block, "\n") {
		code, _, _ := strings.Cut(line, "#")
		code = strings.TrimSpace(code)
		switch {
		case code == "":
			continue
		case code == "}":
			if len(open) == 0 {
				t.Fatalf("unbalanced } in the summary")
			}
			open = open[:len(open)-1]
			continue
		}
		word := strings.Fields(code)[0]
		if len(open) > 0 {
			listed[open[len(open)-1]] = append(listed[open[len(open)-1]], word)
		}
		if strings.HasSuffix(code, "{") {
			open = append(open, word)
		}
	}
	for blk, accepted := range parserSubdirectives(t) {
		for _, sub := range accepted {
			if !slices.Contains(listed[blk], sub) {
				t.Errorf("the README's syntax summary does not list %s in %s (it lists %v)", sub, blk, listed[blk])
			}
		}
		for _, sub := range listed[blk] {
			if !slices.Contains(accepted, sub) {
				t.Errorf("the README's syntax summary lists %s in %s, which the parser does not accept", sub, blk)
			}
		}
		delete(listed, blk)
	}
	if len(listed) > 0 {
		t.Errorf("the summary has blocks no parser reads: %v", listed)
	}
}

// buildOutput matches a command that builds a binary, with the directory it runs in when it
// starts with "cd DIR &&", and the path it writes.
var buildOutput = regexp.MustCompile(`(?:cd (\S+) && )?(?:go build|xcaddy build)[^\n` + "`" + `]*?(?:-o|--output) (\S+?)[` + "`" + `\s]`)

// TestREADMEBuildOutputsIgnored: every binary a command of the documentation builds (go build
// -o, xcaddy build --output) lands on a path .gitignore covers, so following the README and
// docs/ leaves a clean checkout; and the commands that run a built binary name one of those
// paths.
func TestREADMEBuildOutputsIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	var all strings.Builder
	for _, page := range docPages(t) {
		all.Write(page.src)
		all.WriteString("\n")
	}
	// Continued lines ("\" at the end) are one command.
	text := strings.ReplaceAll(all.String(), "\\\n", " ")
	text = regexp.MustCompile(`[ \t]+`).ReplaceAllString(text, " ")
	var built []string
	for _, m := range buildOutput.FindAllStringSubmatch(text, -1) {
		built = append(built, path.Clean(path.Join(m[1], m[2])))
	}
	if len(built) < 2 {
		t.Fatalf("found only %v built by the documentation's commands", built)
	}
	for _, p := range built {
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", p)
		cmd.Dir = ".."
		if err := cmd.Run(); err != nil {
			t.Errorf("the documentation builds %s, which .gitignore does not cover (git check-ignore: %v)", p, err)
		}
	}
	// The check and lint examples run the binary from the repository root (docBlockCommand
	// fails unless the block runs ./caddy-robots).
	docBlockCommand(t, "../docs/check.md", checkMarkers[0], "./caddy-robots")
	if !slices.Contains(built, "caddy-robots") {
		t.Errorf("the check examples run ./caddy-robots, but no command of the documentation builds it (built: %v)", built)
	}
	t.Logf("built by the documentation: %v", built)
}

// TestREADMEPurposeGroups: the purpose-group config of docs/caddy.md (the Caddyfile block
// after the marker purpose-groups), in a real Caddy, serves the robots.txt the block after
// purpose-groups-served shows, guard line and its comment included, so the explanation of
// that line is about the real file.
func TestREADMEPurposeGroups(t *testing.T) {
	cfg := docBlock(t, "../docs/caddy.md", "purpose-groups", "caddyfile")
	served := docBlock(t, "../docs/caddy.md", "purpose-groups-served", "")
	if !strings.HasPrefix(served, "# "+robotsgen.PurposeSentinelComment+"\nUser-agent: "+robotsgen.PurposeSentinel+"\n") {
		t.Errorf("docs/caddy.md's file does not start with the guard line and its comment:\n%s", served)
	}
	startCaddyfile(t, "http://localhost:@PORT@ {\n"+cfg+"respond ok\n}\n")
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if string(body) != served {
		t.Errorf("robots.txt\n%s\ndocs/caddy.md shows\n%s", body, served)
	}
}

// TestREADMECurlDrafts: the curl -i of docs/caddy.md (the console block after the marker
// caddy-curl-drafts), sent to Caddyfile.example in a real Caddy, gets the status line and
// every header the page shows, in the order Caddy writes them, and nothing more; the page's
// body starts with the lines shown before "...". Only the values of Date, Last-Modified and
// Etag (the clock's and the file's) are not compared.
func TestREADMECurlDrafts(t *testing.T) {
	block := docBlock(t, "../docs/caddy.md", "caddy-curl-drafts", "console")
	cmd, shown, _ := strings.Cut(block, "\n")
	path, ok := strings.CutPrefix(cmd, "$ curl -i http://localhost:8080")
	if !ok {
		t.Fatalf("the block runs %q", cmd)
	}
	shown, ok = strings.CutSuffix(shown, "...\n")
	if !ok {
		t.Fatalf("the block does not end with ...:\n%s", block)
	}
	example := exampleCaddyfile(t, sitePort, "off")
	startCaddyfile(t, example[strings.Index(example, fmt.Sprintf("http://localhost:%d {", sitePort)):])
	// curl sends no Accept-Encoding: the page is not compressed.
	resp, body := do(t, "GET", siteURL(path), "Accept-Encoding: identity", "User-Agent: curl/8.14.1", "Accept: */*")
	// Go's server writes the header fields sorted by name, then Date.
	var got strings.Builder
	fmt.Fprintf(&got, "HTTP/1.1 %s\n", resp.Status)
	keys := slices.Sorted(maps.Keys(resp.Header))
	keys = append(slices.DeleteFunc(keys, func(k string) bool { return k == "Date" }), "Date")
	for _, k := range keys {
		for _, v := range resp.Header.Values(k) {
			fmt.Fprintf(&got, "%s: %s\n", k, v)
		}
	}
	got.WriteString("\n")
	got.Write(body)
	volatile := regexp.MustCompile(`(?m)^(Date|Last-Modified|Etag): .*$`)
	mask := func(s string) string { return volatile.ReplaceAllString(s, "$1: ...") }
	if g, w := mask(got.String()), mask(shown); !strings.HasPrefix(g, w) {
		t.Errorf("docs/caddy.md shows\n%s\nCaddy sends\n%s", w, g[:min(len(g), len(w)+200)])
	}
}

// TestXcaddyDocsCommand: the xcaddy build of docs/caddy.md (the block after the marker
// xcaddy-build) is the command xcaddy.json describes, every replacement included: the
// nested modules' replaces are not inherited by xcaddy's build module, so a command without
// one of them fails.
func TestXcaddyDocsCommand(t *testing.T) {
	block := docBlock(t, "../docs/caddy.md", "xcaddy-build", "sh")
	got := strings.Join(strings.Fields(strings.ReplaceAll(block, "\\\n", " ")), " ")
	if want := xcaddyCommand(readManifest(t)); got != want {
		t.Errorf("docs/caddy.md builds with\n\t%s\nxcaddy.json describes\n\t%s", got, want)
	}
}

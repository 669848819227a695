package caddymodule

import (
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// TestREADMECaddyfiles adapts every Caddyfile snippet of the README (wrapped in a site when it
// is a fragment), so the documentation cannot show a config Caddy would refuse. The syntax
// summary, with its <placeholders>, is the one block left out.
func TestREADMECaddyfiles(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(b), "```caddyfile\n")[1:]
	if len(blocks) < 5 {
		t.Fatalf("README has only %d Caddyfile blocks", len(blocks))
	}
	adapter := caddyconfig.GetAdapter("caddyfile")
	checked := 0
	for i, rest := range blocks {
		block, _, ok := strings.Cut(rest, "```")
		if !ok {
			t.Fatalf("block %d is not closed", i)
		}
		if strings.Contains(block, "<matcher>") {
			continue
		}
		first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(block), "\n", 2)[0])
		cfg, wrapped := block, false
		if !strings.HasPrefix(first, "http") && !strings.Contains(strings.Fields(first)[0], ".") {
			cfg, wrapped = "http://localhost:8080 {\n"+block+"\nrespond ok\n}\n", true
		}
		out, warnings, err := adapter.Adapt([]byte(cfg), map[string]any{"filename": "README"})
		if err != nil {
			t.Errorf("README Caddyfile block %d refused: %v\n%s", i, err, block)
			continue
		}
		for _, w := range warnings {
			if wrapped && strings.Contains(w.Message, "not formatted") {
				continue // the wrapping, not the README, is unformatted
			}
			t.Errorf("README Caddyfile block %d: warning %s", i, w.Message)
		}
		if !strings.Contains(string(out), `"handler":"robots_`) {
			t.Errorf("README Caddyfile block %d adapts to no robots handler", i)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d README Caddyfile blocks checked", checked)
	}
}

// TestREADMESyntaxSummary: the README's syntax summary (the Caddyfile block after the
// "syntax-summary" marker) lists, in each block, exactly the sub-directives the parsers
// accept, so a sub-directive cannot be added without being documented, nor documented
// without existing.
func TestREADMESyntaxSummary(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- syntax-summary")
	if !ok {
		t.Fatal("README has no syntax-summary marker")
	}
	_, rest, ok = strings.Cut(rest, "```caddyfile\n")
	if !ok {
		t.Fatal("no Caddyfile block after the syntax-summary marker")
	}
	block, _, _ := strings.Cut(rest, "```")
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

// TestREADMEBuildOutputsIgnored: every binary a README command builds (go build -o, xcaddy
// build --output) lands on a path .gitignore covers, so following the README leaves a clean
// checkout; and the commands that run a built binary name one of those paths.
func TestREADMEBuildOutputsIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// Continued lines ("\" at the end) are one command.
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	text = regexp.MustCompile(`[ \t]+`).ReplaceAllString(text, " ")
	var built []string
	for _, m := range buildOutput.FindAllStringSubmatch(text, -1) {
		built = append(built, path.Clean(path.Join(m[1], m[2])))
	}
	if len(built) < 2 {
		t.Fatalf("found only %v built by the README", built)
	}
	for _, p := range built {
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", p)
		cmd.Dir = ".."
		if err := cmd.Run(); err != nil {
			t.Errorf("the README builds %s, which .gitignore does not cover (git check-ignore: %v)", p, err)
		}
	}
	// The check and lint examples run the binary from the repository root.
	if len(consoleBlocks(t, "../README.md", "./caddy-robots")) == 0 || !slices.Contains(built, "caddy-robots") {
		t.Errorf("the check examples do not run ./caddy-robots, or no README command builds it (built: %v)", built)
	}
	t.Logf("built by the README: %v", built)
}

// TestREADMEPurposeGroups: the README's purpose-group config (the Caddyfile block after the
// "purpose-groups" marker), in a real Caddy, serves the robots.txt the next plain block shows,
// guard line and its comment included, so the explanation of that line is about the real file.
func TestREADMEPurposeGroups(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- purpose-groups")
	if !ok {
		t.Fatal("README has no purpose-groups marker")
	}
	_, rest, _ = strings.Cut(rest, "```caddyfile\n")
	cfg, rest, _ := strings.Cut(rest, "```")
	_, rest, ok = strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatal("no plain block after the purpose-groups config")
	}
	served, _, _ := strings.Cut(rest, "```")
	if !strings.HasPrefix(served, "# "+robotsgen.PurposeSentinelComment+"\nUser-agent: "+robotsgen.PurposeSentinel+"\n") {
		t.Errorf("the README's file does not start with the guard line and its comment:\n%s", served)
	}
	startCaddyfile(t, "http://localhost:@PORT@ {\n"+cfg+"respond ok\n}\n")
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if string(body) != served {
		t.Errorf("robots.txt\n%s\nREADME shows\n%s", body, served)
	}
}

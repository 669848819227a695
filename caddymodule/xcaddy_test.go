package caddymodule

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// xcaddyManifest is the part of xcaddy's Builder JSON that xcaddy.json uses (the JSON tags of
// xcaddy.Builder, xcaddy.Dependency and xcaddy.Replace).
type xcaddyManifest struct {
	CaddyVersion string `json:"caddy_version"`
	Plugins      []struct {
		ModulePath string `json:"module_path"`
		Version    string `json:"version,omitempty"`
	} `json:"plugins"`
	Replacements []struct {
		Old string `json:"old"`
		New string `json:"new"`
	} `json:"replacements"`
}

func readManifest(t *testing.T) xcaddyManifest {
	t.Helper()
	b, err := os.ReadFile("../xcaddy.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var m xcaddyManifest
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("xcaddy.json: %v", err)
	}
	return m
}

var (
	moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)\s*$`)
	caddyLine  = regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/caddyserver/caddy/v2\s+(v\S+)`)
)

func modulePath(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := moduleLine.FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s/go.mod has no module line", dir)
	}
	return string(m[1])
}

// xcaddyCommand is the xcaddy command line that the manifest describes, run from the
// repository root.
func xcaddyCommand(m xcaddyManifest) string {
	repl := map[string]string{}
	for _, r := range m.Replacements {
		repl[r.Old] = r.New
	}
	args := []string{"xcaddy", "build", m.CaddyVersion}
	for _, p := range m.Plugins {
		w := p.ModulePath
		if p.Version != "" {
			w += "@" + p.Version
		}
		if to, ok := repl[p.ModulePath]; ok {
			w += "=" + to
			delete(repl, p.ModulePath)
		}
		args = append(args, "--with", w)
	}
	for _, r := range m.Replacements {
		if to, ok := repl[r.Old]; ok {
			args = append(args, "--replace", r.Old+"="+to)
		}
	}
	return strings.Join(append(args, "--output", "./caddy-robots"), " ")
}

// TestXcaddyManifest keeps xcaddy.json consistent with the modules: the Caddy version is the one
// caddymodule/go.mod requires, the plugin is this module, and the replacements point at the
// directories that hold the modules they name (the plugin's go.mod replaces the root module
// with ../, which xcaddy's build module does not inherit, so the manifest must say it too).
func TestXcaddyManifest(t *testing.T) {
	m := readManifest(t)
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	cv := caddyLine.FindSubmatch(gomod)
	if cv == nil {
		t.Fatal("go.mod does not require github.com/caddyserver/caddy/v2")
	}
	if m.CaddyVersion != string(cv[1]) {
		t.Errorf("xcaddy.json caddy_version %q, caddymodule/go.mod requires %s", m.CaddyVersion, cv[1])
	}
	self := modulePath(t, ".")
	root := modulePath(t, "..")
	if len(m.Plugins) != 1 || m.Plugins[0].ModulePath != self {
		t.Errorf("xcaddy.json plugins %+v, want exactly %s", m.Plugins, self)
	}
	main, err := os.ReadFile("cmd/caddy-robots/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(main), `_ "`+self+`"`) {
		t.Errorf("cmd/caddy-robots does not import %s", self)
	}
	replaced := map[string]bool{}
	for _, r := range m.Replacements {
		dir := filepath.Join("..", filepath.FromSlash(r.New))
		if got := modulePath(t, dir); got != r.Old {
			t.Errorf("replacement %s => %s: that directory holds module %s", r.Old, r.New, got)
		}
		replaced[r.Old] = true
	}
	for _, need := range []string{self, root, modulePath(t, "../metrics/prom"), modulePath(t, "../redisstore")} {
		if !replaced[need] {
			t.Errorf("xcaddy.json does not replace %s with its directory in this repository", need)
		}
	}
	if !regexp.MustCompile(`(?m)^replace\s+` + regexp.QuoteMeta(root) + `\s+=>\s+\.\./?\s*$`).Match(gomod) {
		t.Errorf("caddymodule/go.mod does not replace %s with ../", root)
	}
	t.Logf("release build, from the repository root:\n\t%s", xcaddyCommand(m))
}

// TestXcaddyManifestResolves does what xcaddy does with the manifest up to compiling: a
// throw-away main module that requires the Caddy version and the plugin, with the manifest's
// replacements, must resolve every package of a Caddy build. Like xcaddy, it may fetch the
// go.mod files of Caddy's own dependencies that the plugin's pruned module graph never
// needed (a fresh machine's module cache does not have them).
func TestXcaddyManifestResolves(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	m := readManifest(t)
	repoRoot, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "module caddy\n\ngo 1.26.0\n\nrequire github.com/caddyserver/caddy/v2 %s\n", m.CaddyVersion)
	var imports strings.Builder
	for _, p := range m.Plugins {
		v := p.Version
		if v == "" {
			v = "v0.0.0-00010101000000-000000000000"
		}
		fmt.Fprintf(&gomod, "require %s %s\n", p.ModulePath, v)
		fmt.Fprintf(&imports, "\t_ %q\n", p.ModulePath)
	}
	for _, r := range m.Replacements {
		fmt.Fprintf(&gomod, "replace %s => %s\n", r.Old, filepath.Join(repoRoot, filepath.FromSlash(r.New)))
	}
	main := "package main\n\nimport (\n\tcaddycmd \"github.com/caddyserver/caddy/v2/cmd\"\n\t_ \"github.com/caddyserver/caddy/v2/modules/standard\"\n" + imports.String() + ")\n\nfunc main() { caddycmd.Main() }\n"
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"go.mod": gomod.String(), "main.go": main, "go.sum": string(sum)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "list", "-mod=mod", "-deps", ".")
	cmd.Dir = dir
	cmd.Env = toolEnv("GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the xcaddy build module does not resolve: %v\n%s\ngo.mod:\n%s", err, out, gomod.String())
	}
	for _, pkg := range []string{m.Plugins[0].ModulePath, "github.com/sitepolicy/caddy-robots/serve", "github.com/caddyserver/caddy/v2/modules/standard"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(pkg) + `$`).Match(out) {
			t.Errorf("the build module does not include %s", pkg)
		}
	}
}

// TestReleaseScript runs release.sh in a clone of this repository: it must tag the root module,
// make metrics/prom and caddymodule require that version (and caddymodule metrics/prom's,
// keeping the replaces for development), and tag both, leaving modules that still build.
func TestReleaseScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git and the go command")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	dir := filepath.Join(t.TempDir(), "clone")
	run := func(wd string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = wd
		cmd.Env = append(toolEnv("GOWORK=off", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run(repo, nil, "git", "clone", "-q", repo, dir)
	before := strings.TrimSpace(run(dir, nil, "git", "rev-parse", "HEAD"))
	run(dir, []string{"RELEASE_SKIP_TESTS=1"}, "./release.sh", "v0.9.1")
	tags := run(dir, nil, "git", "tag", "-l")
	for _, want := range []string{"v0.9.1", "caddymodule/v0.9.1", "metrics/prom/v0.9.1", "redisstore/v0.9.1"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).MatchString(tags) {
			t.Errorf("tag %s missing: %q", want, tags)
		}
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "caddymodule", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*github\.com/sitepolicy/caddy-robots/metrics/prom v0\.9\.1$`).Match(gomod) || !regexp.MustCompile(`(?m)^\s*github\.com/sitepolicy/caddy-robots v0\.9\.1$`).Match(gomod) || !regexp.MustCompile(`(?m)^replace github\.com/sitepolicy/caddy-robots => \.\./?$`).Match(gomod) {
		t.Errorf("caddymodule/go.mod after the release:\n%s", gomod)
	}
	// The tag of the caddymodule release holds that go.mod.
	if got := run(dir, nil, "git", "show", "caddymodule/v0.9.1:caddymodule/go.mod"); got != string(gomod) {
		t.Error("caddymodule/v0.9.1 does not hold the bumped go.mod")
	}
	promMod, err := os.ReadFile(filepath.Join(dir, "metrics", "prom", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*github\.com/sitepolicy/caddy-robots v0\.9\.1$`).Match(promMod) || !regexp.MustCompile(`(?m)^replace github\.com/sitepolicy/caddy-robots => \.\./\.\./?$`).Match(promMod) {
		t.Errorf("metrics/prom/go.mod after the release:\n%s", promMod)
	}
	if got := run(dir, nil, "git", "show", "metrics/prom/v0.9.1:metrics/prom/go.mod"); got != string(promMod) {
		t.Error("metrics/prom/v0.9.1 does not hold the bumped go.mod")
	}
	redisMod, err := os.ReadFile(filepath.Join(dir, "redisstore", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*github\.com/sitepolicy/caddy-robots v0\.9\.1$`).Match(redisMod) || !regexp.MustCompile(`(?m)^replace github\.com/sitepolicy/caddy-robots => \.\./?$`).Match(redisMod) {
		t.Errorf("redisstore/go.mod after the release:\n%s", redisMod)
	}
	if got := run(dir, nil, "git", "show", "redisstore/v0.9.1:redisstore/go.mod"); got != string(redisMod) {
		t.Error("redisstore/v0.9.1 does not hold the bumped go.mod")
	}
	// The modules still build: each release module's go.mod and go.sum differ from before the
	// release only in the lines of this repository's modules (so every other module is at the
	// version this run compiles and tests), and its requirements resolve, every package its
	// packages and tests import found, from the go.mod and go.sum as released (-mod=readonly:
	// nothing to add). Compiling the clone instead would compile this repository's packages
	// again, as their paths under -trimpath now carry the version v0.9.1.
	ours := regexp.MustCompile(`github\.com/sitepolicy/caddy-robots`)
	others := func(text string) string {
		var keep []string
		for _, l := range strings.Split(text, "\n") {
			if !ours.MatchString(l) {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	for _, m := range []string{"caddymodule", "metrics/prom", "redisstore"} {
		for _, f := range []string{"go.mod", "go.sum"} {
			was := run(dir, nil, "git", "show", before+":"+m+"/"+f)
			now, err := os.ReadFile(filepath.Join(dir, m, f))
			if err != nil {
				t.Fatal(err)
			}
			if others(was) != others(string(now)) {
				t.Errorf("%s/%s: the release changed lines of other modules than this repository's:\n--- before\n%s\n--- after\n%s", m, f, was, now)
			}
		}
		run(filepath.Join(dir, m), []string{"GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=readonly"), "GOPROXY=off"}, "go", "list", "-deps", "-test", "./...")
	}
}

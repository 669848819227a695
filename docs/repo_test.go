package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/docs"
)

// TestRepositoryMarkers: every Markdown file of the repository reads as blocks, and each
// marker in them is named by a test (as a quoted string in a _test.go file of either module),
// so a marker cannot stay behind when its test goes.
func TestRepositoryMarkers(t *testing.T) {
	var tests strings.Builder
	var pages []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || path == filepath.Join("..", "bench", "out")) {
			return filepath.SkipDir
		}
		switch {
		case strings.HasSuffix(path, ".md"):
			pages = append(pages, path)
		case strings.HasSuffix(path, "_test.go") && path != filepath.Join("..", "docs", "repo_test.go"):
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tests.Write(src)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pages {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docs.Blocks(src)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, b := range blocks {
			if b.Marker == "" {
				continue
			}
			n++
			if !strings.Contains(tests.String(), `"`+b.Marker+`"`) {
				t.Errorf("%s:%d: no test asks for the marker %q", p, b.Line-1, b.Marker)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d markers in %v", n, pages)
	}
}

// TestEveryBlockAccountedFor: every fenced block of README.md and docs/ is checked against
// the code, or says why not. A Caddyfile block is adapted, loaded and linted (caddymodule's
// TestREADMECaddyfiles); any other block has a marker a test asks for (TestRepositoryMarkers)
// or a <!-- not tested: reason --> comment. A command and its output shown without either
// would drift from what the command does.
func TestEveryBlockAccountedFor(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages: %v", err)
	}
	checked, untested := 0, 0
	for _, p := range append([]string{filepath.Join("..", "README.md")}, pages...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docs.Blocks(src)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, b := range blocks {
			switch {
			case b.Untested != "":
				untested++
			case b.Info == "caddyfile" || b.Marker != "":
				checked++
			default:
				t.Errorf("%s:%d: a %q block without a test marker or a <!-- not tested: reason --> comment:\n%s", p, b.Line, b.Info, b.Text)
			}
		}
	}
	t.Logf("%d blocks checked by tests, %d not tested (with reasons)", checked, untested)
}

// TestNoConflictMarkers: no Markdown page, Go file or script of the repository keeps a merge's
// conflict markers (ba49609 committed docs/report.md with both sides of one).
func TestNoConflictMarkers(t *testing.T) {
	checked := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || path == filepath.Join("..", "bench", "out")) {
			return filepath.SkipDir
		}
		switch filepath.Ext(path) {
		case ".md", ".go", ".sh", ".json", ".mod":
		default:
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(src), "\n") {
			for _, m := range []string{"<<<<<<< ", "=======", ">>>>>>> "} {
				if strings.HasPrefix(line, m) && (m != "=======" || line == m) {
					t.Errorf("%s:%d: a merge conflict marker: %q", path, i+1, line)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files: the walk missed the repository", checked)
	}
}

// TestRootModuleHasNoRedis: the root module's go.mod and go.sum name no Redis client, so that
// a nethttp user who does not use the fleet's store never downloads one (docs/fleet.md): the
// store on Redis is the nested module redisstore.
func TestRootModuleHasNoRedis(t *testing.T) {
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(string(b)), "redis") {
			t.Errorf("the root module's %s names redis: keep the client in redisstore/go.mod", name)
		}
	}
}

package docs_test

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// modulePath is the root module's path; the nested modules' paths extend it with their
// directory, so every package's import path is modulePath + "/" + its directory.
const modulePath = "github.com/sitepolicy/caddy-robots"

// thirdParty names the packages of other modules as packages.md's "depends on" column does:
// an import path with one of these prefixes (the path itself or a package under it) is
// written as the name. An import of another module not listed here is written as its path.
var thirdParty = []struct{ prefix, name string }{
	{"github.com/caddyserver/caddy/v2", "Caddy"},
	{"github.com/prometheus/client_golang", "the Prometheus client"},
	{"github.com/dunglas/httpsfv", "`httpsfv`"},
	{"golang.org/x/net/html", "`x/net/html`"},
	{"golang.org/x/net/publicsuffix", "`x/net/publicsuffix`"},
	{"golang.org/x/net/dns/dnsmessage", "`x/net/dns/dnsmessage`"},
	{"cel.dev/cel-go", "`cel-go`"},
	{"github.com/spf13/cobra", "`cobra`"},
	{"go.uber.org/zap", "`zap`"},
}

// depName is how the "depends on" column names the package imported as path: a package of
// the repository by its directory in backquotes (`policycheck/cli`), another module's by
// thirdParty, "" for the standard library (an import path whose first element has no dot).
func depName(path string) string {
	if rel, ok := strings.CutPrefix(path, modulePath+"/"); ok {
		return "`" + rel + "`"
	}
	first, _, _ := strings.Cut(path, "/")
	if !strings.Contains(first, ".") {
		return ""
	}
	for _, tp := range thirdParty {
		if path == tp.prefix || strings.HasPrefix(path, tp.prefix+"/") {
			return tp.name
		}
	}
	return "`" + path + "`"
}

// repoPackages returns, for each package of the repository's modules (every directory
// outside testdata and bench/out with a Go file of the default build that is no test), its
// directory relative to the repository root ("policycheck/cli") and the names of what it
// imports (depName), sorted.
func repoPackages(t *testing.T, root string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if rel != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || rel == "bench/out") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			var noGo *build.NoGoError
			if errors.As(err, &noGo) {
				return nil
			}
			return fmt.Errorf("%s: %v", rel, err)
		}
		// The repository's packages first, then other modules', as the rows are written.
		var ours, others []string
		for _, imp := range p.Imports {
			n := depName(imp)
			switch {
			case strings.HasPrefix(imp, modulePath+"/"):
				ours = append(ours, n)
			case n != "" && !slices.Contains(others, n):
				others = append(others, n)
			}
		}
		byName := func(a, b string) int { return strings.Compare(strings.Trim(a, "`"), strings.Trim(b, "`")) }
		slices.SortFunc(ours, byName)
		slices.SortFunc(others, byName)
		pkgs[rel] = append(append([]string{}, ours...), others...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// packageRow is a row of packages.md's table: the package (its directory) and the names its
// "depends on" column gives.
type packageRow struct {
	line int
	pkg  string
	deps []string
}

var (
	// rowRE matches a row of the table: | `pkg` (a note) | what it is | depends on |.
	rowRE = regexp.MustCompile("^\\| `([^`]+)`[^|]*\\|.*\\| ([^|]*) \\|$")
	// noteRE matches a note in parentheses after a name, "(presets)".
	noteRE = regexp.MustCompile(`\s*\([^()]*\)`)
)

// packageRows reads the rows of packages.md's table. The "depends on" column is a list of
// names separated by commas, each optionally followed by a note in parentheses; "standard
// library" is no name (the standard library is not listed).
func packageRows(t *testing.T, src []byte) []packageRow {
	t.Helper()
	var rows []packageRow
	for i, line := range strings.Split(string(src), "\n") {
		m := rowRE.FindStringSubmatch(line)
		if m == nil || m[1] == "package" {
			continue
		}
		row := packageRow{line: i + 1, pkg: m[1], deps: []string{}}
		for _, item := range strings.Split(noteRE.ReplaceAllString(m[2], ""), ",") {
			item = strings.TrimSpace(item)
			if item != "" && item != "standard library" {
				row.deps = append(row.deps, item)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// column spells a set of names as the "depends on" column does.
func column(deps []string) string {
	if len(deps) == 0 {
		return "standard library"
	}
	return strings.Join(deps, ", ")
}

// TestPackagesTable: docs/packages.md has a row for every package of the repository's
// modules and none for a package that does not exist, and each row's "depends on" column
// names exactly what the package imports (its Go files that are no test, in the default
// build): the repository's packages by directory, other modules' by the names of thirdParty,
// the standard library not at all. Notes in parentheses after a name are kept as written.
// Each error says which row to change and how.
func TestPackagesTable(t *testing.T) {
	src, err := os.ReadFile("packages.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := packageRows(t, src)
	if len(rows) < 20 {
		t.Fatalf("packages.md: only %d rows read from the table", len(rows))
	}
	pkgs := repoPackages(t, "..")
	if _, ok := pkgs["serve"]; !ok || len(pkgs) < 20 {
		t.Fatalf("only %d packages found in the repository, serve not among them: %v", len(pkgs), pkgs)
	}
	seen := map[string]int{}
	for _, r := range rows {
		if l, ok := seen[r.pkg]; ok {
			t.Errorf("packages.md:%d: a second row for `%s` (the first is line %d): remove one", r.line, r.pkg, l)
			continue
		}
		seen[r.pkg] = r.line
		want, ok := pkgs[r.pkg]
		if !ok {
			t.Errorf("packages.md:%d: row `%s`: there is no such package in the repository (no directory %s with a Go file that is no test): remove the row, or rename it if the package moved", r.line, r.pkg, r.pkg)
			continue
		}
		var add, remove []string
		for _, d := range want {
			if !slices.Contains(r.deps, d) {
				add = append(add, d)
			}
		}
		for _, d := range r.deps {
			if !slices.Contains(want, d) {
				remove = append(remove, d)
			}
		}
		if len(add) == 0 && len(remove) == 0 {
			continue
		}
		var how []string
		if len(add) > 0 {
			how = append(how, "add "+strings.Join(add, ", "))
		}
		if len(remove) > 0 {
			how = append(how, "remove "+strings.Join(remove, ", ")+" (not imported)")
		}
		t.Errorf("packages.md:%d: row `%s`, column \"depends on\": %s; the column should name exactly: %s", r.line, r.pkg, strings.Join(how, "; "), column(want))
	}
	var missing []string
	for p := range pkgs {
		if _, ok := seen[p]; !ok {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	for _, p := range missing {
		t.Errorf("packages.md: no row for the package `%s`: add the row | `%s` | <what it is> | %s |", p, p, column(pkgs[p]))
	}
}

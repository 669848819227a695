package nethttp_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConformanceTableNamesRealTests checks that every test, fuzz target and example that
// docs/CONFORMANCE.md cites exists in the repository, so the table cannot point at tests that
// were renamed or removed.
func TestConformanceTableNamesRealTests(t *testing.T) {
	table, err := os.ReadFile("../docs/CONFORMANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	funcRE := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Example)\w*)\(`)
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range funcRE.FindAllSubmatch(src, -1) {
			defined[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cited := regexp.MustCompile("`(?:[a-z]+\\.)?((?:Test|Fuzz|Example)[A-Za-z0-9_]*)")
	n := 0
	for _, m := range cited.FindAllStringSubmatch(string(table), -1) {
		n++
		if !defined[m[1]] {
			t.Errorf("docs/CONFORMANCE.md cites %s, which no test file defines", m[1])
		}
	}
	if n < 50 {
		t.Errorf("docs/CONFORMANCE.md cites only %d tests", n)
	}
}

package caddymodule

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPublicAPIOnly: the Caddy module is released on its own, so it may use only the root
// module's public packages (and its own internal ones); an internal one of the root module
// could change under a release pairing.
func TestPublicAPIOnly(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			// The module's own internal packages (caddymodule/internal/...) are its own.
			own := strings.HasPrefix(p, "github.com/sitepolicy/caddy-robots/caddymodule/")
			if strings.HasPrefix(p, "github.com/sitepolicy/caddy-robots/") && !own && strings.Contains(p+"/", "/internal/") {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil || files < 20 {
		t.Fatalf("walked %d files: %v", files, err)
	}
}

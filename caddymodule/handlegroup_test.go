package caddymodule

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/command"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// TestLintHandleBlocks: a robots_tag in a handle block after another handle block of the
// same group runs only where the earlier one does not match, so lint must not read it as
// applying to every path (a review found signal-conflict and overridden-usage warnings on a
// config whose server sends exactly what robots.txt says); the same routes without handle
// blocks do conflict.
func TestLintHandleBlocks(t *testing.T) {
	dir := t.TempDir()
	lintOf := func(body string) []policycheck.Finding {
		t.Helper()
		path := filepath.Join(dir, "Caddyfile")
		if err := os.WriteFile(path, []byte("http://localhost:9999 {\n"+body+"\n}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := command.Load(path, "")
		if err != nil {
			t.Fatal(err)
		}
		defer cfg.Close()
		var out []policycheck.Finding
		for _, s := range cfg.Sites() {
			fs, err := policycheck.Lint(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fs...)
		}
		return out
	}
	robots := `	robots_txt {
		group * {
			disallow /admin/
			content_usage train-ai=n
			content_usage /blog/ train-ai=y
		}
	}
`
	for _, tc := range []struct {
		name, routes string
		want         []string // lints expected
	}{
		{"handle blocks", `	handle /blog/* {
		robots_tag {
			content_usage train-ai=y
		}
		respond blog
	}
	handle {
		robots_tag {
			content_usage train-ai=n
		}
		respond other
	}`, nil},
		{"handle_path blocks", `	handle_path /blog/* {
		robots_tag {
			content_usage train-ai=y
		}
		respond blog
	}
	handle {
		robots_tag {
			content_usage train-ai=n
		}
		respond other
	}`, nil},
		{"same routes, no handle blocks", `	robots_tag /blog/* {
		content_usage train-ai=y
	}
	robots_tag {
		content_usage train-ai=n
	}
	respond ok`, []string{policycheck.LintSignalConflict, policycheck.LintOverriddenUsage}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]bool{}
			for _, f := range lintOf(robots + tc.routes) {
				if f.Severity.AtLeastWarning() {
					got[f.Lint] = true
				}
			}
			for _, w := range tc.want {
				if !got[w] {
					t.Errorf("no %s in %v", w, got)
				}
				delete(got, w)
			}
			if len(got) > 0 {
				t.Errorf("unexpected findings %v", got)
			}
		})
	}
}

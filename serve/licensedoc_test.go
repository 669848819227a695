package serve_test

import (
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// TestLicenseDocumentShadowsRoute: a robots_tag route whose own pattern names a license
// document's path gets a warning naming the route (the document answers the path, untagged);
// a route at "*", or one whose patterns miss the path, gets none.
func TestLicenseDocumentShadowsRoute(t *testing.T) {
	doc := rsl.Document{Path: "/legal/License.xml", Content: []rsl.Content{{URL: "/", Prohibits: []string{"ai-train"}}}}
	for _, c := range []struct {
		paths []string
		warn  bool
	}{
		{[]string{"*"}, false},
		{nil, false},
		{[]string{"/articles/*"}, false},
		{[]string{"/legal/*"}, true},
		{[]string{"/articles/*", "*.xml"}, true},
		{[]string{"/LEGAL/license.xml"}, true}, // routes match without case
		{[]string{"*license*"}, true},
		{[]string{"/legal/license.xml/"}, false},
	} {
		cfg := policy.Config{
			RobotsTxt: &policy.RobotsTxt{LicenseDocuments: []rsl.Document{doc}},
			RobotsTag: []policy.Route{{Paths: c.paths, Tags: policy.Tags{Rules: rules("*", "noindex")}}},
		}
		core := mustCore(t, cfg)
		warned := false
		for _, w := range core.Warnings() {
			if strings.Contains(w.Message(), "license document") {
				warned = true
				if w.Path != "robots_tag[0]" || !strings.Contains(w.Message(), doc.Path) {
					t.Errorf("%q: warning %s: %s", c.paths, w.Path, w.Message())
				}
			}
		}
		if warned != c.warn {
			t.Errorf("%q: warned %v, want %v", c.paths, warned, c.warn)
		}
	}
}

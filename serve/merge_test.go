package serve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/usage"
)

// TestMergeCacheBounded: however many distinct values a backend sends, the merge cache holds
// at most maxMerged of them, never one over the field limit, and a value seen again is
// served from the cache.
func TestMergeCacheBounded(t *testing.T) {
	p, err := tagemit.NewPolicy(map[string][]string{"*": {"nosnippet"}})
	if err != nil {
		t.Fatal(err)
	}
	o := newTagOutput(p, usage.Prefs{}, false)
	for i := range 10_000 {
		got := o.withBackend([]string{fmt.Sprintf("bot-%s;noindex", strings.Repeat("x", i%50)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676%26)))}, nil)
		if !strings.Contains(got.robotsTag[0], "noindex") {
			t.Fatalf("value %d: merged %q", i, got.robotsTag[0])
		}
		if n := len(o.merged.m); n > maxMerged {
			t.Fatalf("cache holds %d values", n)
		}
	}
	big := "*;noindex, " + strings.Repeat("x", tagemit.MaxFieldSize)
	o.withBackend([]string{big}, nil)
	if _, ok := o.merged.m[backendKey{rt: big}]; ok {
		t.Fatal("a value over the field limit was cached")
	}
	a := o.withBackend([]string{"*;noindex"}, []string{"googlebot: noarchive"})
	if b := o.withBackend([]string{"*;noindex"}, []string{"googlebot: noarchive"}); a != b {
		t.Fatal("a repeated value was merged again")
	}
	if c := o.withBackend([]string{"*;noindex", "googlebot: noarchive"}, nil); c == a {
		t.Fatal("the same lines under other field names share a cache entry")
	}
}

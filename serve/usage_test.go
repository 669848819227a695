package serve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/tagemit"
	"github.com/sitepolicy/caddy-robots/usage"
)

// TestUsageMergeCache: a backend's Content-Usage is combined with the route's once per
// distinct value; of an unparsable value only its n members are kept, with an error for the
// debug log; the cache stays bounded.
func TestUsageMergeCache(t *testing.T) {
	u, err := usage.ContentUsage.FromConfig(map[string]string{"train-ai": "n"})
	if err != nil {
		t.Fatal(err)
	}
	o := newTagOutput(tagemit.Policy{}, u, false)
	for _, c := range []struct {
		lines   []string
		want    string
		wantErr bool
	}{
		{[]string{"search=y"}, "train-ai=n, search=y", false},
		{[]string{"train-ai=y"}, "train-ai=n", false},
		{[]string{"train-ai=n", "search=n"}, "train-ai=n, search=n", false},
		{[]string{"foo=y, search=y;p=1"}, "train-ai=n, search=y;p=1, foo=y", false},
		{[]string{"Train-AI=y"}, "train-ai=n", true},
		{[]string{"search=y,"}, "train-ai=n", true},
		{[]string{"search=n,"}, "train-ai=n, search=n", true},
	} {
		for range 2 { // the second time from the cache
			got, err := o.withBackendUsage(c.lines)
			if len(got) != 1 || got[0] != c.want || (err != nil) != c.wantErr {
				t.Errorf("%q: %q, %v; want %q (error %v)", c.lines, got, err, c.want, c.wantErr)
			}
		}
	}
	if got, _ := o.withBackendUsage([]string{"train-ai=n"}); &got[0] != &o.contentUsage[0] {
		t.Error("a value that adds nothing did not reuse the route's field")
	}
	a, _ := o.withBackendUsage([]string{"search=y"})
	if b, _ := o.withBackendUsage([]string{"search=y"}); &a[0] != &b[0] {
		t.Error("a repeated value was merged again")
	}
	for i := range 1000 {
		o.withBackendUsage([]string{fmt.Sprintf("x%d=y", i)})
		if n := len(o.usageMerged.m); n > maxMerged {
			t.Fatalf("cache holds %d values", n)
		}
	}
	big := "search=y, " + strings.Repeat("x", tagemit.MaxFieldSize)
	o.withBackendUsage([]string{big})
	if _, ok := o.usageMerged.m[big]; ok {
		t.Fatal("a value over the field limit was cached")
	}
}

// TestNewTaggerUsage: a route needs rules or preferences; preferences are checked with
// their field paths; meta and x_robots_tag need rules.
func TestNewTaggerUsage(t *testing.T) {
	if _, err := newTagger(nil, nil, map[string]string{"train-ai": "n"}, nil, false, false, nil, requestLog{}); err != nil {
		t.Errorf("preferences alone: %v", err)
	}
	for _, c := range []struct {
		rules       map[string][]string
		prefs       map[string]string
		meta, xrt   bool
		path, probl string
	}{
		{nil, nil, false, false, "rules", "no rules"},
		{nil, map[string]string{}, false, false, "rules", "no rules"},
		{nil, map[string]string{"train-ia": "n"}, false, false, `content_usage["train-ia"]`, `did you mean "train-ai"`},
		{map[string][]string{"*": {"noindx"}}, map[string]string{"search": "no"}, false, false, `content_usage["search"]`, `did you mean "n"`},
		{nil, map[string]string{"train-ai": "n"}, true, false, "meta", "has none"},
		{nil, map[string]string{"train-ai": "n"}, false, true, "x_robots_tag", "has none"},
	} {
		_, err := newTagger(c.rules, nil, c.prefs, nil, c.meta, c.xrt, nil, requestLog{})
		found := false
		for _, e := range configerr.All(err) {
			found = found || e.Path == c.path && strings.Contains(e.Error(), c.probl)
		}
		if !found {
			t.Errorf("%v %v: %v; want %s: ...%s", c.rules, c.prefs, err, c.path, c.probl)
		}
	}
}

// TestNewTaggerXRobotsTagSize: the X-Robots-Tag lines are longer than the Robots-Tag field
// they say the same with; a route whose lines together pass 8 KiB is refused when it sends
// them, and loads when it does not.
func TestNewTaggerXRobotsTagSize(t *testing.T) {
	rules := map[string][]string{}
	for i := 0; ; i++ {
		rules[fmt.Sprintf("bot%c%c%c", 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26)] = []string{"noindex", "nofollow"}
		p, err := tagemit.NewPolicy(rules)
		if err != nil {
			t.Fatal(err)
		}
		if len(strings.Join(p.XRobotsTag(), ", ")) > tagemit.MaxFieldSize {
			break
		}
	}
	if _, err := newTagger(rules, nil, nil, nil, false, false, nil, requestLog{}); err != nil {
		t.Fatalf("without x_robots_tag: %v", err)
	}
	_, err := newTagger(rules, nil, nil, nil, false, true, nil, requestLog{})
	if es := configerr.All(err); len(es) != 1 || es[0].Path != "x_robots_tag" || !strings.Contains(es[0].Error(), "X-Robots-Tag lines would be") {
		t.Fatalf("with x_robots_tag: %v", err)
	}
}

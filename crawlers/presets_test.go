package crawlers_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// TestPresetCrawlers checks the expansion of presets against its definition over random
// preset and except lists: every crawler of a known preset is in it once (case aside), in
// the presets' order and All's within each, unless except names it or its leading word;
// nothing else is.
func TestPresetCrawlers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	all := crawlers.All()
	cats := append(crawlers.Categories(), "AI-Training", "no-such-category")
	n := 300
	if raceEnabled {
		n = 40
	}
	for range n {
		var presets, except []string
		for range r.IntN(4) {
			presets = append(presets, cats[r.IntN(len(cats))])
		}
		for range r.IntN(6) {
			name := all[r.IntN(len(all))].Name
			switch r.IntN(3) {
			case 0:
				name = strings.ToUpper(name)
			case 1:
				name = crawlers.LeadingToken(name)
			}
			except = append(except, name)
		}
		left := func(name string) bool {
			return slices.ContainsFunc(except, func(e string) bool {
				return strings.EqualFold(e, name) || strings.EqualFold(e, crawlers.LeadingToken(name))
			})
		}
		var want []string
		var wantFull []crawlers.Crawler
		for _, p := range presets {
			cs, err := crawlers.Category(p)
			if err != nil {
				continue
			}
			for _, c := range cs {
				if !left(c.Name) && !slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(w, c.Name) }) {
					want = append(want, c.Name)
					wantFull = append(wantFull, c)
				}
			}
		}
		var got []string
		gotFull := crawlers.PresetCrawlers(presets, except)
		for _, c := range gotFull {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("PresetCrawlers(%q, %q) = %q, want %q", presets, except, got, want)
		}
		// Each crawler as Category gives it, its categories included.
		if !reflect.DeepEqual(gotFull, wantFull) {
			t.Fatalf("PresetCrawlers(%q, %q) = %+v, want %+v", presets, except, gotFull, wantFull)
		}
		// The categories are the caller's: changing one changes no later expansion.
		if len(gotFull) > 0 {
			gotFull[0].Categories[0] = "changed"
		}
	}
	if got := crawlers.PresetCrawlers(nil, nil); got != nil {
		t.Errorf("no presets expand to %v", got)
	}
}

// The allocation tests: the race detector changes allocation counts, so they skip under it
// (./test.sh runs them in its pass without -race).

package usage

import "testing"

// TestAllocs: the per-response paths with precomputed values do not allocate: String,
// Get, Combine when one side covers the other, MergeHeader with no backend field or a
// backend field that adds nothing... except httpsfv's parse, which allocates; so only
// the no-field case is held to zero there.
func TestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	route := mustArgs(t, ContentUsage, "train-ai=n", "search=y")
	sub := mustArgs(t, ContentUsage, "train-ai=y")
	var sink string
	var p Prefs
	for name, f := range map[string]func(){
		"String":                func() { sink = route.String() },
		"Get":                   func() { _ = route.Get("search") },
		"Combine covered":       func() { p = Combine(route, sub) },
		"Combine covered, flip": func() { p = Combine(sub, route) },
		"Combine empty":         func() { p = Combine(Prefs{}, route) },
		"MergeHeader no field":  func() { sink, _ = MergeHeader(route, nil) },
		"FormatLine no path":    func() { sink = FormatLine("", route) },
		"IsEmpty":               func() { _ = route.IsEmpty() },
	} {
		if n := testing.AllocsPerRun(200, f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
	_, _ = sink, p
}

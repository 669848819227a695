package crawlers

import "testing"

// The set of left-out names compares names without case, and leaves out a name a parser
// reads as an excluded token (its leading word), never a longer token that merely starts
// with one.
func TestExcluded(t *testing.T) {
	e := newExcluded([]string{"MistralAI-User", "googleother"})
	for name, want := range map[string]bool{
		"GoogleOther": true, "GOOGLEOTHER": true, "MistralAI-User/1.0": true, "mistralai-user": true,
		"GoogleOther-Image": false, "MistralAI": false, "GPTBot": false,
	} {
		if got := e.has(name); got != want {
			t.Errorf("has(%q) = %v, want %v", name, got, want)
		}
	}
	if newExcluded(nil).has("GPTBot") {
		t.Error("the empty set excludes")
	}
}

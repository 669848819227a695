package robotsgen

import (
	"math/rand/v2"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// TestPatternWitness: a Pattern matches a path exactly when Google's parser (grobotstxt)
// applies a lone Disallow line of that pattern to it, over generated patterns ("*", a final
// "$", letters in both cases, escapes, non-ASCII) and paths.
func TestPatternWitness(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	parts := []string{"a", "A", "b", "/", "*", ".", "é", "%41", "x.pdf", "-"}
	gen := func(n int) string {
		s := "/"
		for range rng.IntN(n) {
			s += parts[rng.IntN(len(parts))]
		}
		return s
	}
	n := 20000
	if raceEnabled {
		n = 2000
	}
	matched := 0
	for range n {
		pat, path := gen(5), gen(7)
		if rng.IntN(3) == 0 {
			pat += "$"
		}
		// Google's parser compares escapes as written (see normalise): the path is given
		// to it as the pattern's normalisation would spell it.
		want := !grobotstxt.AgentAllowed("User-agent: *\nDisallow: "+normalise(pat, true)+"\n", "agent", "http://example.com"+normalise(path, false))
		if got := NewPattern(pat).Match(path); got != want {
			t.Fatalf("pattern %q path %q: Match %v, grobotstxt %v", pat, path, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < n/20 {
		t.Fatalf("only %d of %d matched", matched, n)
	}
}

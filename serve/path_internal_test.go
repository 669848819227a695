package serve

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPathNeedsAgreesWithDefinition checks the one-pass scan of request paths against what it
// stands for: whether strings.ToLower changes the path, and whether cleanPath changes the
// lowered path (over generated paths rich in the bytes that matter, and the edge cases).
func TestPathNeedsAgreesWithDefinition(t *testing.T) {
	alphabet := []string{"/", "/", ".", "a", "Z", "z", "A", "-", "%2F", "é", "K", "\xff", "//", "/.", "/..", "x"}
	cases := []string{"", "/", ".", "a", "//", "/.", "/..", "/a/", "/A", "/é", "a/b", "/a//", "/a/."}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, p := range cases {
		lower, clean := pathNeeds(p)
		if lower {
			_, clean = pathNeeds(strings.ToLower(p))
		}
		l := strings.ToLower(p)
		// Lowering is only skipped when it would change nothing, and cleaning only when the
		// path is already clean.
		if !lower && l != p {
			t.Fatalf("pathNeeds(%q): lower false, but ToLower gives %q", p, l)
		}
		if !clean && cleanPath(l) != l {
			t.Fatalf("pathNeeds(%q): clean false, but cleanPath gives %q", l, cleanPath(l))
		}
	}
}

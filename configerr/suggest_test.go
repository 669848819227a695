package configerr

import (
	"math/rand/v2"
	"testing"
)

// osa is the textbook full-matrix optimal string alignment distance, the witness for Distance.
func osa(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"noindex", "noindex", 0},
		{"noindx", "noindex", 1}, {"nonidex", "noindex", 1}, {"kitten", "sitting", 3},
		{"ca", "abc", 3}, // OSA, not Damerau: a swapped pair is not edited again
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = "abcd"[r.IntN(4)]
		}
		return string(b)
	}
	for range 20000 {
		a, b := word(), word()
		if got, want := Distance(a, b), osa(a, b); got != want {
			t.Fatalf("Distance(%q, %q) = %d, the full matrix says %d", a, b, got, want)
		}
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"allow", "disallow", "sitemap"}
	for name, want := range map[string]string{"dissallow": "disallow", "alow": "allow", "stiemap": "sitemap", "zzzzzz": "", "": ""} {
		if got := Closest(name, cands); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}

//go:build !race

// The allocation tests: the race detector changes allocation counts, so they are built only
// without it (./test.sh runs them in its pass without -race).

package crawlers_test

import "testing"

func TestMatchDoesNotAllocate(t *testing.T) {
	m := catalogueMatcher(t)
	for _, ua := range append([]string{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "x ChatGPT Agent"}, browserUAs...) {
		if n := testing.AllocsPerRun(100, func() { m.Match(ua) }); n != 0 {
			t.Errorf("Match(%q) allocates %v times", ua, n)
		}
	}
}

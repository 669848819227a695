package crawlers_test

import "testing"

// FuzzMatch: for any User-Agent header, the matcher over the whole catalogue answers what the
// regular-expression reference answers (whole word, ASCII case folding, earliest then longest).
func FuzzMatch(f *testing.F) {
	for _, ua := range browserUAs {
		f.Add(ua)
	}
	for _, ua := range []string{
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
		"Mozilla/5.0 (compatible; ChatGPT-User/1.0; +https://openai.com/bot)",
		"ChatGPT Agent", "chatgpt agentx", "iaskspider/2.0(+http://iask.com)", "AI2Bot-Dolma",
		"360Spider", "SLCC1; LCC", "ccbot\xffCCBot", "Google-Extended", "bytespider\tBytespider",
	} {
		f.Add(ua)
	}
	m := catalogueMatcher(f)
	ref := newRef(allNames())
	f.Fuzz(func(t *testing.T, ua string) {
		got, gok := m.Match(ua)
		want, wok := ref.match(ua)
		if got != want || gok != wok {
			t.Fatalf("Match(%q) = %q, %v; reference %q, %v", ua, got, gok, want, wok)
		}
	})
}

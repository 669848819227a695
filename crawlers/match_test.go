package crawlers_test

import (
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

const chromeUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"

var browserUAs = []string{
	chromeUA,
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15",
	"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67",
	"Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0; SLCC2; .NET CLR 2.0.50727)",
	"curl/8.5.0",
	"",
}

func allNames() []string {
	var names []string
	for _, c := range crawlers.All() {
		names = append(names, c.Name)
	}
	return names
}

func catalogueMatcher(t testing.TB) *crawlers.UAMatcher {
	t.Helper()
	m, err := crawlers.NewUAMatcher(allNames())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMatchExamples(t *testing.T) {
	m := catalogueMatcher(t)
	for _, tc := range []struct{ ua, want string }{
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "GPTBot"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "ClaudeBot"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", "ChatGPT-User"},
		{"Mozilla/5.0 (X11; Linux x86_64) Chrome/130 Safari/537.36 ChatGPT Agent", "ChatGPT Agent"},
		{"chatgpt agent/1.0", "ChatGPT Agent"},
		{"GPTBOT", "GPTBot"},
		{"gptbot", "GPTBot"},
		{"x GPTBot", "GPTBot"},
		{"Mozilla/5.0 (compatible; iaskspider/2.0; +https://iask.ai)", "iaskspider/2.0"}, // longest at the same start
		{"iaskspider/2.1", "iaskspider"},
		{"Brightbot 1.05", "Brightbot"}, // "Brightbot 1.0" does not end at a boundary
		{"Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)", "Bytespider"},
		{"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "facebookexternalhit"},
		{"Mozilla/5.0 (compatible; AI2Bot/1.0)", "AI2Bot"},
		{"Claude-Code/1.0", "Claude-Code"}, // not "Code"
		{"Code/1.90.0", "Code"},
		// Everyday words of the catalogue match where a client names itself: first, or
		// first in a comment entry.
		{"Spider/1.0", "Spider"},
		{"Mozilla/5.0 (compatible; Spider/1.0)", "Spider"},
		{"Operator", "Operator"},
		{"Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html) GPTBot/1.0", "GPTBot"},
		{"OpenAI/Python 1.51.0", "OpenAI"},
		{"GoogleOther-Image/1.0", "GoogleOther-Image"},
		{"see panscient.com", "panscient.com"},
		{"Panscient crawler", "Panscient"},
		{"GPTBot\u00e9", "GPTBot"},                       // a non-ASCII byte separates words
		{"\u00e9GPTBot", "GPTBot"},                       // on both sides
		{"CCBot/2.0 GPTBot/1.0", "CCBot"},                // leftmost wins
		{"(GPTBot) (CCBot)", "GPTBot"},                   // leftmost wins, whichever comes first in the catalogue
		{"meta-externalagent/1.1", "Meta-ExternalAgent"}, // the spelling given first; All sorts it first
	} {
		got, ok := m.Match(tc.ua)
		if !ok || got != tc.want {
			t.Errorf("Match(%q) = %q, %v; want %q", tc.ua, got, ok, tc.want)
		}
	}
	for _, ua := range append([]string{
		"Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0; SLCC1)", // LCC inside a word
		"LCC1", "LCC-x", "x-LCC", "_LCC", "XGPTBot", "GPTBotX", "GPTBot2", "GPTBot_",
		"GPTBo", "ChatGPT  Agent", "ChatGPT Agents", "ChatGPT-Agent",
		"VSCode/1.90", "Crawl4AIx",
		// Found by review: search engines and browsers inside editors taken for AI agents.
		"Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
		"Baiduspider-render/2.0",
		"Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)",
		"Screaming Frog SEO Spider/19.0",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.95.3 Chrome/128.0.6613.186 Electron/32.2.1 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.42.3 Chrome/124.0.6367.243 Electron/30.4.0 Safari/537.36",
		"Mozilla/5.0 (compatible; Foo/1.0; +https://example.com/gptbot)",
		"Mozilla/5.0 (compatible; Foo/1.0; gptbot@example.com)",
		"Mozilla/5.0 (compatible; MSIE 8.0; Windows NT 6.1) Operator",
		// Search engines and SEO tools stay out of every category.
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
		"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
		"DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)",
		"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
		"Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
		"Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
		"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Mozilla/5.0 (compatible; Qwantify/2.4w; +https://www.qwant.com/)/2.4w",
		"Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznamu.seznam.cz/)",
	}, browserUAs...) {
		if got, ok := m.Match(ua); ok {
			t.Errorf("Match(%q) = %q, want no match", ua, got)
		}
	}
}

func TestNewUAMatcherRejects(t *testing.T) {
	for _, tok := range []string{"", " GPTBot", "GPTBot/", ".bot", "Bötchen", "tab\tbot", "bot\n"} {
		if _, err := crawlers.NewUAMatcher([]string{"GPTBot", tok}); err == nil {
			t.Errorf("NewUAMatcher accepted %q", tok)
		}
	}
	m, err := crawlers.NewUAMatcher(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Match(chromeUA); ok {
		t.Error("an empty matcher matched")
	}
	if _, ok := m.Match(""); ok {
		t.Error("an empty matcher matched the empty string")
	}
}

// refMatcher is the slow reference: one regular expression per token, with
// explicit ASCII case classes (regexp's (?i) would also fold the Kelvin sign
// and the long s, which robots.txt matching does not).
type refMatcher struct {
	tokens []string
	folded []string // only to skip regexps that cannot match
	res    []*regexp.Regexp
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func newRef(tokens []string) *refMatcher {
	r := &refMatcher{tokens: tokens}
	for _, tok := range tokens {
		r.folded = append(r.folded, asciiLower(tok))
		var b strings.Builder
		for _, c := range []byte(tok) {
			switch {
			case 'a' <= c && c <= 'z':
				b.WriteString("[" + string(c) + string(c-32) + "]")
			case 'A' <= c && c <= 'Z':
				b.WriteString("[" + string(c+32) + string(c) + "]")
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		before := `(?:^|[^A-Za-z0-9_-])`
		if crawlers.GenericNames[asciiLower(tok)] {
			before = `(?:^[ \t]*|[(;][ \t]*)` // the first product, or first in a comment entry
		}
		r.res = append(r.res, regexp.MustCompile(before+`(`+b.String()+`)(?:$|[^A-Za-z0-9_-])`))
	}
	return r
}

// match returns the token whose leftmost whole-word occurrence starts
// first, the longest on a tie, the first given on a further tie.
func (r *refMatcher) match(ua string) (string, bool) {
	best, bestStart := -1, 0
	ua = maskAddresses(ua)
	folded := asciiLower(ua)
	for i, re := range r.res {
		if !strings.Contains(folded, r.folded[i]) {
			continue
		}
		loc := re.FindStringSubmatchIndex(ua)
		if loc == nil {
			continue
		}
		start := loc[2]
		if best < 0 || start < bestStart || start == bestStart && len(r.tokens[i]) > len(r.tokens[best]) {
			best, bestStart = i, start
		}
	}
	if best < 0 {
		return "", false
	}
	return r.tokens[best], true
}

// maskAddresses replaces each URL or e-mail address (a run between white space, ";", ",",
// "(" and ")" holding "://" or "@") by as many "#", which no token contains.
func maskAddresses(ua string) string {
	re := regexp.MustCompile(`[^ \t;,()]+`)
	return re.ReplaceAllStringFunc(ua, func(run string) string {
		if strings.Contains(run, "://") || strings.Contains(run, "@") {
			return strings.Repeat("#", len(run))
		}
		return run
	})
}

// Random headers built from real ones with catalogue names (whole, cut,
// extended) inserted at random places, with random separators and random
// case: Match agrees with the reference on every one.
func TestMatchAgreesWithReference(t *testing.T) {
	names := allNames()
	m := catalogueMatcher(t)
	ref := newRef(names)
	seps := []string{"", " ", ";", "; ", "/", "(", ")", "+", ".", ",", "-", "_", "a", "Z", "7", "\t", "é", "\xff", "@", "  ", "://", " +https://x.example/"}
	rng := rand.New(rand.NewPCG(12, 2026))
	iterations := 20000
	if testing.Short() || raceEnabled {
		iterations = 2000
	}
	hits := 0
	for range iterations {
		ua := browserUAs[rng.IntN(len(browserUAs))]
		for range rng.IntN(4) {
			tok := names[rng.IntN(len(names))]
			switch rng.IntN(6) {
			case 0: // a cut name
				tok = tok[:1+rng.IntN(len(tok))]
			case 1: // an extended name
				tok += seps[rng.IntN(len(seps))] + "x"
			}
			b := []byte(tok)
			for j := range b {
				if rng.IntN(2) == 0 && 'a' <= b[j] && b[j] <= 'z' {
					b[j] -= 32
				} else if rng.IntN(2) == 0 && 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 32
				}
			}
			at := rng.IntN(len(ua) + 1)
			ua = ua[:at] + seps[rng.IntN(len(seps))] + string(b) + seps[rng.IntN(len(seps))] + ua[at:]
		}
		got, gok := m.Match(ua)
		want, wok := ref.match(ua)
		if got != want || gok != wok {
			t.Fatalf("Match(%q) = %q, %v; reference %q, %v", ua, got, gok, want, wok)
		}
		if gok {
			hits++
		}
	}
	// The generator must exercise both outcomes.
	if hits < iterations/4 || hits > iterations*9/10 {
		t.Errorf("%d of %d headers matched: the generator is off balance", hits, iterations)
	}
}

var sinkToken string

// BenchmarkMatchBrowser is the common case: a browser's header, no match,
// against the whole catalogue.
func BenchmarkMatchBrowser(b *testing.B) {
	m := catalogueMatcher(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(chromeUA)))
	for b.Loop() {
		sinkToken, _ = m.Match(chromeUA)
	}
}

func BenchmarkMatchBrowsers(b *testing.B) {
	m := catalogueMatcher(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, ua := range browserUAs {
			sinkToken, _ = m.Match(ua)
		}
	}
}

func BenchmarkMatchCrawler(b *testing.B) {
	m := catalogueMatcher(b)
	ua := "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
	b.ReportAllocs()
	for b.Loop() {
		sinkToken, _ = m.Match(ua)
	}
}

func BenchmarkNewUAMatcher(b *testing.B) {
	names := allNames()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := crawlers.NewUAMatcher(names); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGenericNamesReviewed: every everyday word the matcher treats specially is a name of
// the AI catalogue or the bot catalogue, and docs/crawlers.md lists each of them.
func TestGenericNamesReviewed(t *testing.T) {
	all := allNames()
	for _, b := range crawlers.Bots() {
		all = append(all, b.Names...)
	}
	names := map[string]bool{}
	for _, n := range all {
		names[asciiLower(n)] = true
	}
	readme, err := os.ReadFile("../docs/crawlers.md")
	if err != nil {
		t.Fatal(err)
	}
	for g := range crawlers.GenericNames {
		if !names[g] {
			t.Errorf("%q is not a catalogue name", g)
		}
		found := false
		for _, n := range all {
			if asciiLower(n) == g && strings.Contains(string(readme), "`"+n+"`") {
				found = true
			}
		}
		if !found {
			t.Errorf("docs/crawlers.md does not list %q among the everyday words", g)
		}
	}
}

// TestMatchCollidingTokens: many tokens with the same first letter and leading-word length,
// and phrases sharing a leading word (the matcher's binary searches over both), decided as
// the reference decides, over random headers made of them.
func TestMatchCollidingTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1000))
	var tokens []string
	seen := map[string]bool{}
	for len(tokens) < 3000 {
		w := []byte("sb")
		for range 4 {
			w = append(w, "abz09-_"[rng.IntN(7)])
		}
		tok := string(w)
		if rng.IntN(5) == 0 {
			tok += []string{" agent", "/2.0", " x", ".bot"}[rng.IntN(4)]
		}
		if !seen[strings.ToLower(tok)] && tok[len(tok)-1] != '-' && tok[len(tok)-1] != '.' {
			seen[strings.ToLower(tok)] = true
			tokens = append(tokens, tok)
		}
	}
	m, err := crawlers.NewUAMatcher(tokens)
	if err != nil {
		t.Fatal(err)
	}
	ref := newRef(tokens)
	hits := 0
	for range 5000 {
		ua := "Mozilla/5.0 (compatible; "
		for range 1 + rng.IntN(3) {
			tok := tokens[rng.IntN(len(tokens))]
			if rng.IntN(3) == 0 {
				tok = strings.ToUpper(tok[:3]) + tok[3:]
			}
			if rng.IntN(4) == 0 {
				tok = tok[:len(tok)-1] + "q" // a near miss
			}
			ua += tok + []string{"/1.0; ", " ", "; ", " agent ", ".bot "}[rng.IntN(5)]
		}
		got, gok := m.Match(ua)
		want, wok := ref.match(ua)
		if got != want || gok != wok {
			t.Fatalf("Match(%q) = %q, %v; reference %q, %v", ua, got, gok, want, wok)
		}
		if gok {
			hits++
		}
	}
	if hits < 2500 {
		t.Errorf("only %d of 5000 headers matched", hits)
	}
}

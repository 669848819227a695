// The allocation tests: the race detector changes allocation counts, so they skip under it
// (./test.sh runs them in its pass without -race).

package crawlers_test

import (
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

func TestMatchDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	m := catalogueMatcher(t)
	for _, ua := range append([]string{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "x ChatGPT Agent"}, browserUAs...) {
		if n := testing.AllocsPerRun(100, func() { m.Match(ua) }); n != 0 {
			t.Errorf("Match(%q) allocates %v times", ua, n)
		}
	}
}

func TestIdentifyBotDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	for _, ua := range append([]string{
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Mozilla/5.0 (compatible; YandexAdditional/3.0; +http://yandex.com/bots)",
		"Claude-User/1.0",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
	}, browserUAs...) {
		if n := testing.AllocsPerRun(100, func() { crawlers.IdentifyBot(ua) }); n != 0 {
			t.Errorf("IdentifyBot(%q) allocates %v times", ua, n)
		}
		if n := testing.AllocsPerRun(100, func() { crawlers.IdentifyBotNameHeader([]string{ua}) }); n != 0 {
			t.Errorf("IdentifyBotNameHeader(%q) allocates %v times", ua, n)
		}
	}
}

func TestRefererPlatformDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	for _, ref := range []string{"https://www.google.com/", "https://WWW.Google.CO.UK/search?q=x", "https://notgoogle.com/", "https://a.b.c.d.e.example/", "android-app://com.google.android.gm/", ""} {
		if n := testing.AllocsPerRun(100, func() { crawlers.RefererPlatform(ref) }); n != 0 {
			t.Errorf("RefererPlatform(%q) allocates %v times", ref, n)
		}
	}
}

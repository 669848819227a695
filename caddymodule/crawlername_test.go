package caddymodule

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// crawlerNameSite blocks ai-training with the crawler matcher and otherwise answers with the
// identity's placeholders.
const crawlerNameSite = `
:@PORT@ {
	@ai crawler ai-training
	respond @ai "blocked {http.crawler.name}" 403
	respond "{http.crawler.id}|{http.crawler.name}|{http.crawler.operator}|{http.crawler.category}|{http.crawler.categories}"
}
`

// TestCrawlerNameThroughCaddy: a request is the crawler of the name its User-Agent carries,
// never the union of its catalogue entry: "@ai crawler ai-training" with "respond @ai 403"
// blocks YandexAdditional and not YandexBot, both of Yandex's entry, and the placeholders
// name YandexBot. For every name of either catalogue (every tenth under -race), the matcher
// and the placeholders see that name's own categories and operator (crawlers.BotName).
func TestCrawlerNameThroughCaddy(t *testing.T) {
	caddyTesterWithGlobals(t, crawlersGlobals(t, t.TempDir()), crawlerNameSite)
	for _, c := range []struct {
		ua     string
		status int
		body   string
	}{
		{"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", 200, "yandex-crawler|YandexBot|Yandex|search-engine|search-engine"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 8_1 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12B411 Safari/600.1.4 (compatible; YandexMobileBot/3.0; +http://yandex.com/bots)", 200, "yandex-crawler|YandexMobileBot|Yandex|search-engine|search-engine"},
		{"Mozilla/5.0 (compatible; YandexAdditional/3.0; +http://yandex.com/bots)", 403, "blocked YandexAdditional"},
		{"Mozilla/5.0 (compatible; Claude-Web/1.0; +https://www.anthropic.com/)", 200, "anthropic-crawler|Claude-Web|Anthropic|ai|ai,ai-all"},
		{"Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", 403, "blocked ClaudeBot"},
		{"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", 403, "blocked GPTBot"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0)", 200, "|Claude-SearchBot|Anthropic|ai-all|ai-all,ai-search"},
	} {
		resp, body := do(t, "GET", siteURL("/page"), "User-Agent: "+c.ua)
		if resp.StatusCode != c.status || string(body) != c.body {
			t.Errorf("%s: %d %q, want %d %q", c.ua, resp.StatusCode, body, c.status, c.body)
		}
	}
	step, n := 1, 0
	if raceEnabled {
		step = 10
	}
	for i, bn := range crawlers.BotNames() {
		ua := "Mozilla/5.0 (compatible; " + bn.Name + "/9.9; +https://example.com/bot)"
		if id, _, _ := crawlers.IdentifyBotName(ua); id != bn.ID || i%step != 0 {
			continue // a name several entries have is its owner's; checked there
		}
		n++
		resp, body := do(t, "GET", siteURL("/page"), "User-Agent: "+ua)
		if slices.Contains(bn.Categories, crawlers.AITraining) {
			if resp.StatusCode != 403 || string(body) != "blocked "+bn.Name {
				t.Errorf("%s (%s, in ai-training): %d %q", bn.Name, bn.ID, resp.StatusCode, body)
			}
			continue
		}
		category := ""
		if len(bn.Categories) > 0 {
			category = bn.Categories[0]
		}
		want := strings.Join([]string{bn.ID, bn.Name, bn.Operator, category, strings.Join(bn.Categories, ",")}, "|")
		if resp.StatusCode != 200 || string(body) != want {
			t.Errorf("%s (%s): %d %q, want 200 %q", bn.Name, bn.ID, resp.StatusCode, body, want)
		}
	}
	if n < 80 {
		t.Errorf("only %d names checked", n)
	}
}

// TestInternedByIndex: a request's identity, found by its name's index
// (crawlers.IdentifyBotNameIndex), is interned in the slots of that bot and name, the same
// that an identity found by bot and name (a signature's, internIdentity) uses: for every
// name of either catalogue, with a crawlers app (the address is not Google's: unverifiable,
// impostor or pending by the bot) and without one (unchecked).
func TestInternedByIndex(t *testing.T) {
	a := benchApp(t)
	for _, bn := range crawlers.BotNames() {
		r := httptest.NewRequest("GET", "/page", nil)
		r.Header.Set("User-Agent", "Mozilla/5.0 (compatible; "+bn.Name+"/9.9; +https://example.com/bot)")
		bot, name, ok := crawlers.IdentifyBotNameHeader(r.Header["User-Agent"])
		if !ok {
			t.Fatalf("%s: names no crawler", bn.Name)
		}
		slots := internedSlots().byKey[internKey{bot, name}]
		if ci := (*Crawlers)(nil).find(r); ci != slots.unchecked.Load() || ci.id.Bot != bot || ci.id.Name != name {
			t.Fatalf("%s (%s): unchecked %+v, not its slot's", name, bot, ci.id)
		}
		ci := a.find(r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{caddyhttp.ClientIPVarKey: "203.0.113.9"})))
		if ci.id.Bot != bot || ci.id.Name != name || ci != internIdentity(ci.id) {
			t.Fatalf("%s (%s): %+v, not its slot's", name, bot, ci.id)
		}
	}
}

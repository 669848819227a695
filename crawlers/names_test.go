package crawlers_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/crawlers/internal/gen"
)

// sourceName is what the two sources, read by the generator's parsers, say a name is.
type sourceName struct {
	id, name   string   // the bot entry it is identified as ("" for none) and its spelling
	categories []string // the entry's (per entry in the bot data) and the name's own in the AI data
	operator   string   // the entry's vendor, else the name's operator in the AI data
}

// sourceNames reads both sources and returns every name of either (each once without regard
// to case) with what its source says of it: a name of several bots is the one BotNameOwners
// names; an AI name no bot has whose leading word is a bot's name ("iaskspider/2.0") is that
// bot's.
func sourceNames(t testing.TB) []sourceName {
	t.Helper()
	botData, err := os.ReadFile("data/well-known-bots.json")
	if err != nil {
		t.Fatal(err)
	}
	bots, err := gen.ParseBots(botData)
	if err != nil {
		t.Fatal(err)
	}
	aiData, err := os.ReadFile("data/robots.json")
	if err != nil {
		t.Fatal(err)
	}
	ai, err := gen.Parse(aiData)
	if err != nil {
		t.Fatal(err)
	}
	// The AI data's entry of a name: its own spelling, else the first equal but for case.
	aiOf := func(name string) *gen.Entry {
		if i := slices.IndexFunc(ai, func(e gen.Entry) bool { return e.Name == name }); i >= 0 {
			return &ai[i]
		}
		if i := slices.IndexFunc(ai, func(e gen.Entry) bool { return strings.EqualFold(e.Name, name) }); i >= 0 {
			return &ai[i]
		}
		return nil
	}
	byName := map[string][]int{} // folded name -> bots
	for i, b := range bots {
		for _, n := range b.Names {
			k := strings.ToLower(n)
			if !slices.Contains(byName[k], i) {
				byName[k] = append(byName[k], i)
			}
		}
	}
	owner := func(k string) *gen.Bot {
		ids := byName[k]
		if o, ok := gen.BotNameOwners[k]; ok {
			return &bots[slices.IndexFunc(bots, func(b gen.Bot) bool { return b.ID == o })]
		}
		if len(ids) != 1 {
			t.Fatalf("%q is a name of %d bots and has no owner", k, len(ids))
		}
		return &bots[ids[0]]
	}
	var out []sourceName
	seen := map[string]bool{}
	add := func(b *gen.Bot, name string) {
		k := strings.ToLower(name)
		if seen[k] {
			return
		}
		seen[k] = true
		s := sourceName{name: name}
		if b != nil {
			s.id, s.operator = b.ID, b.Operator
			s.categories = slices.Clone(b.Categories)
		}
		if e := aiOf(name); e != nil {
			s.categories = append(append(s.categories, crawlers.AIAll), e.Categories...)
			if s.operator == "" {
				s.operator = e.Operator
			}
		}
		out = append(out, s)
	}
	for _, b := range bots {
		for _, n := range b.Names {
			o := owner(strings.ToLower(n))
			add(o, o.Names[slices.IndexFunc(o.Names, func(m string) bool { return strings.EqualFold(m, n) })])
		}
	}
	for _, e := range ai {
		k := strings.ToLower(e.Name)
		if len(byName[k]) > 0 {
			continue // a bot's name, added above
		}
		w := strings.IndexFunc(k, func(r rune) bool { return !(r == '-' || r == '_' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') })
		if w > 0 && len(byName[k[:w]]) > 0 {
			add(owner(k[:w]), e.Name)
		} else {
			add(nil, e.Name)
		}
	}
	return out
}

// TestEveryNameIsItsOwnCrawler: for every name of either source, a request whose User-Agent
// carries it, as a crawler writes it or alone, is that name, with that name's own categories
// in its source (the bot data's entry's, which it gives per entry, and the AI data's of that
// name, never of another name of the entry) and its operator; and the entry it is verified
// as is the one its source puts it in.
func TestEveryNameIsItsOwnCrawler(t *testing.T) {
	names := sourceNames(t)
	if len(names) < 800 {
		t.Fatalf("only %d names", len(names))
	}
	for _, s := range names {
		for _, ua := range []string{"Mozilla/5.0 (compatible; " + s.name + "/9.9; +https://example.com/bot)", s.name} {
			id, name, ok := crawlers.IdentifyBotName(ua)
			if !ok || id != s.id || name != s.name {
				t.Errorf("IdentifyBotName(%q) = %q %q %v, want %q %q", ua, id, name, ok, s.id, s.name)
				continue
			}
			if bid, bok := crawlers.IdentifyBot(ua); bid != s.id || bok != (s.id != "") {
				t.Errorf("IdentifyBot(%q) = %q %v, want %q", ua, bid, bok, s.id)
			}
		}
		bn, ok := crawlers.LookupBotName(s.id, s.name)
		if !ok || bn.ID != s.id || bn.Name != s.name || !slices.Equal(bn.Categories, s.categories) {
			t.Errorf("LookupBotName(%q, %q) = %+v %v, want categories %q", s.id, s.name, bn, ok, s.categories)
		}
		if s.operator != "" && bn.Operator != s.operator {
			t.Errorf("%s (%s): operator %q, the sources say %q", s.name, s.id, bn.Operator, s.operator)
		}
		if s.id != "" && bn.Operator == "" {
			if b, _ := crawlers.BotByID(s.id); b.Operator != "" {
				t.Errorf("%s (%s): no operator, the entry's is %q", s.name, s.id, b.Operator)
			}
		}
	}
	distinct := map[string]bool{}
	for _, bn := range crawlers.BotNames() {
		distinct[strings.ToLower(bn.Name)] = true
	}
	if len(distinct) != len(names) {
		t.Errorf("BotNames has %d names, the sources %d", len(distinct), len(names))
	}
}

// TestYandexIsNotAITraining is the case of issue 32: Yandex's entry holds its search crawler and
// its AI-training one; a request from YandexBot is YandexBot, a search engine, not in
// ai-training; one from YandexAdditional is in ai-training; both are verified as Yandex's.
func TestYandexIsNotAITraining(t *testing.T) {
	for ua, want := range map[string]struct {
		name     string
		training bool
	}{
		"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)":                                                 {"YandexBot", false},
		"Mozilla/5.0 (compatible; YaDirectFetcher/1.0; Dyatel; +http://yandex.com/bots)":                                   {"YaDirectFetcher", false},
		"Mozilla/5.0 (compatible; YandexAdditional/3.0; +http://yandex.com/bots)":                                          {"YandexAdditional", true},
		"Mozilla/5.0 (compatible; YandexAdditionalBot/3.0; +http://yandex.com/bots)":                                       {"YandexAdditionalBot", true},
		"Mozilla/5.0 (iPhone; CPU iPhone OS 8_1 like Mac OS X) (compatible; YandexMobileBot/3.0; +http://yandex.com/bots)": {"YandexMobileBot", false},
	} {
		id, name, _ := crawlers.IdentifyBotName(ua)
		bn, _ := crawlers.LookupBotName(id, name)
		if id != "yandex-crawler" || name != want.name || slices.Contains(bn.Categories, crawlers.AITraining) != want.training ||
			!slices.Contains(bn.Categories, "search-engine") || bn.Operator != "Yandex" {
			t.Errorf("%q: %q %q %+v", ua, id, name, bn)
		}
	}
}

// TestOperatorsFilled: the bot data gives no operator for GPTBot's, ClaudeBot's, CCBot's and
// Bytespider's entries; the AI data does, and the catalogue has it.
func TestOperatorsFilled(t *testing.T) {
	for id, want := range map[string]string{
		"openai-crawler": "OpenAI", "anthropic-crawler": "Anthropic", "ccbot-crawler": "Common Crawl Foundation",
		"bytedance-crawler": "ByteDance", "yandex-crawler": "Yandex", "google-crawler": "Google", "imessage-preview": "Apple",
	} {
		if b, _ := crawlers.BotByID(id); b.Operator != want {
			t.Errorf("%s: operator %q, want %q", id, b.Operator, want)
		}
	}
	// Apple's link previews send Meta's name: the entry is Apple's.
	if bn, _ := crawlers.LookupBotName("imessage-preview", "facebookexternalhit"); bn.Operator != "Apple" {
		t.Errorf("imessage-preview's facebookexternalhit: %+v", bn)
	}
}

// spanningEntries are the entries of the bot catalogue whose names are crawlers of different
// categories or operators, reviewed: a request is the crawler of the name it carries
// (TestEveryNameIsItsOwnCrawler), the entry says only how to verify it.
var spanningEntries = map[string]string{
	"anthropic-crawler": "ClaudeBot collects for training; Claude-Web is only in ai-all",
	"facebook-crawler":  "FacebookBot collects for training; Facebot (Meta's link previews) is in no AI category",
	"iask-crawler":      "the AI data has iaskspider in ai-all only and iaskspider/2.0 in ai-search",
	"imessage-preview":  "Apple's link previews send Twitterbot, Facebot and facebookexternalhit; the AI data has facebookexternalhit (Meta's, in ai-all)",
	"yandex-crawler":    "YandexAdditional and YandexAdditionalBot collect for AI training; YandexBot and the other 35 names do not",
}

// TestSpanningEntries lists the entries whose names differ in categories or operator, and
// fails on any that spanningEntries does not have (a data update that adds one wants a look)
// or that no longer spans.
func TestSpanningEntries(t *testing.T) {
	type kind struct{ cats, op string }
	kinds := map[string]map[kind][]string{}
	for _, bn := range crawlers.BotNames() {
		if bn.ID == "" {
			continue
		}
		if kinds[bn.ID] == nil {
			kinds[bn.ID] = map[kind][]string{}
		}
		k := kind{strings.Join(bn.Categories, ","), bn.Operator}
		kinds[bn.ID][k] = append(kinds[bn.ID][k], bn.Name)
	}
	spanning := map[string]bool{}
	for id, ks := range kinds {
		if len(ks) < 2 {
			continue
		}
		spanning[id] = true
		t.Logf("%s: %v", id, ks)
		if _, ok := spanningEntries[id]; !ok {
			t.Errorf("%s: its names are crawlers of different categories or operators (%v): review it and add it to spanningEntries", id, ks)
		}
	}
	for id := range spanningEntries {
		if !spanning[id] {
			t.Errorf("%s is in spanningEntries but its names no longer differ: remove it", id)
		}
	}
}

// TestBotNameIndex: for every name of either catalogue in a header, IdentifyBotNameIndex's
// index is the position in BotNames of the crawler it identifies, and NumBotNames counts them.
func TestBotNameIndex(t *testing.T) {
	all := crawlers.BotNames()
	if n := crawlers.NumBotNames(); n != len(all) {
		t.Fatalf("NumBotNames() = %d, BotNames has %d", n, len(all))
	}
	seen := map[int]bool{}
	for _, bn := range all {
		for _, ua := range []string{"Mozilla/5.0 (compatible; " + bn.Name + "/9.9; +https://example.com/bot)", bn.Name} {
			id, name, i, ok := crawlers.IdentifyBotNameIndex([]string{"Mozilla/5.0 Firefox/130.0", ua})
			if !ok || i < 0 || i >= len(all) || all[i].ID != id || !strings.EqualFold(all[i].Name, name) {
				t.Fatalf("IdentifyBotNameIndex(%q) = %q %q %d %v", ua, id, name, i, ok)
			}
			if wid, wname, wok := crawlers.IdentifyBotNameHeader([]string{ua}); wid != id || wname != name || !wok {
				t.Fatalf("IdentifyBotNameHeader(%q) = %q %q, the index's %q %q", ua, wid, wname, id, name)
			}
			seen[i] = true
		}
	}
	if len(seen) < len(all)*9/10 {
		t.Errorf("only %d of %d indexes reached", len(seen), len(all))
	}
}

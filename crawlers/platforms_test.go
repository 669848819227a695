package crawlers_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/crawlers/internal/gen"
)

func TestPlatformsAreGenerated(t *testing.T) {
	checkGenerated(t, gen.GeneratePlatforms, "data/platforms.json", "", "platforms_gen.go")
}

// Every operator a platform names is the operator of some crawler of the catalogues, every
// bot it lists exists, and a listed bot's own operator (if the data gives one) is the
// platform's: a typo in platforms.json would otherwise leave a platform without crawls.
func TestPlatformsNameCatalogueCrawlers(t *testing.T) {
	ops := map[string]bool{}
	for _, bn := range crawlers.BotNames() {
		ops[bn.Operator] = true
	}
	for _, c := range crawlers.All() {
		ops[c.Operator] = true
	}
	for _, p := range crawlers.Platforms() {
		for _, o := range p.Operators {
			if !ops[o] {
				t.Errorf("%s: operator %q runs no crawler of the catalogues", p.ID, o)
			}
		}
		for _, id := range p.Bots {
			b, ok := crawlers.BotByID(id)
			if !ok {
				t.Errorf("%s: no bot %q", p.ID, id)
				continue
			}
			if b.Operator != "" && !slices.Contains(p.Operators, b.Operator) {
				t.Errorf("%s: bot %q is operated by %q, not the platform's", p.ID, id, b.Operator)
			}
			if got, _, _ := crawlers.BotPlatform(id); got != p.ID {
				t.Errorf("BotPlatform(%q) = %q, want %q", id, got, p.ID)
			}
		}
		if i, ok := crawlers.PlatformIndex(p.ID); !ok || crawlers.PlatformID(i) != p.ID {
			t.Errorf("PlatformIndex(%q) = %d, %v", p.ID, i, ok)
		}
	}
}

// A crawler is its operator's platform, as a User-Agent names it.
func TestCrawlerPlatform(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)":                               "google",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)": "openai",
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)":                                "microsoft",
		"DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)":                                             "duckduckgo",
		"CCBot/2.0 (https://commoncrawl.org/faq/)":                                                               "commoncrawl",
		"Claude-User/1.0": "anthropic",
		"Mozilla/5.0 (compatible; YandexAdditional/3.0)":                                                              "yandex",
		"Mozilla/5.0 (compatible; Baiduspider/2.0)":                                                                   "baidu",
		"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)":                                          "",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36": "",
	} {
		id, name, _ := crawlers.IdentifyBotName(ua)
		got, _, ok := crawlers.CrawlerPlatform(id, name)
		if got != want || ok != (want != "") {
			t.Errorf("%q (%q, %q): platform %q, %v; want %q", ua, id, name, got, ok, want)
		}
	}
}

func TestRefererHost(t *testing.T) {
	for ref, want := range map[string]string{
		"https://www.google.com/":                 "www.google.com",
		"HTTPS://WWW.Google.COM":                  "WWW.Google.COM",
		"http://user:pw@chatgpt.com:8443/c/1?q#f": "chatgpt.com",
		"https://evil.example/@www.google.com/":   "evil.example",
		"https://evil.example?x=@www.google.com":  "evil.example",
		"https://perplexity.ai#frag":              "perplexity.ai",
		"https://[2001:db8::1]/":                  "",
		"https://google.com:80x/":                 "",
		"android-app://com.google.android.gm/":    "",
		"/relative/path":                          "",
		"https://":                                "",
		"":                                        "",
		"www.google.com":                          "",
	} {
		got, ok := crawlers.RefererHost(ref)
		if got != want || ok != (want != "") {
			t.Errorf("RefererHost(%q) = %q, %v; want %q", ref, got, ok, want)
		}
	}
}

// refHostPlatform is HostPlatform written otherwise, from the exported table: the host's
// label suffixes, longest first; the whole host matches any rule, a shorter suffix only a
// rule with Subdomains.
func refHostPlatform(rules map[string]crawlers.PlatformHosts, owner map[string]string, host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	labels := strings.Split(host, ".")
	for i := range labels {
		suffix := strings.Join(labels[i:], ".")
		if g, ok := rules[suffix]; ok && (i == 0 || g.Subdomains) {
			return owner[suffix]
		}
	}
	return ""
}

// Property: over hosts made of the catalogue's names, look-alikes (a name glued to a word,
// followed by another domain, in another case) and random labels, HostPlatform and
// RefererPlatform agree with the reference; and the look-alikes of the issue are nobody's.
func TestHostPlatformProperty(t *testing.T) {
	rules, owner := map[string]crawlers.PlatformHosts{}, map[string]string{}
	var names []string
	for _, p := range crawlers.Platforms() {
		for _, g := range p.Hosts {
			for _, n := range g.Names {
				rules[n], owner[n] = g, p.ID
				names = append(names, n)
			}
		}
	}
	for _, host := range []string{"notgoogle.com", "google.com.evil.example", "google", "com", "co.uk", "xchatgpt.com", "chatgpt.com-evil.example", "mistral.ai", "www.chat.mistral.ai"} {
		if id, _, ok := crawlers.HostPlatform(host); ok {
			t.Errorf("HostPlatform(%q) = %q", host, id)
		}
	}
	r := rand.New(rand.NewPCG(37, 1))
	words := []string{"www", "not", "evil", "example", "m", "x-", "news", "com", "ai", "uk", "co"}
	n := 20000
	if raceEnabled {
		n = 1000
	}
	for i := 0; i < n; i++ {
		h := names[r.IntN(len(names))]
		switch r.IntN(6) {
		case 0:
			h = words[r.IntN(len(words))] + "." + h
		case 1:
			h = words[r.IntN(len(words))] + h // glued: another label
		case 2:
			h = h + "." + words[r.IntN(len(words))] + ".example"
		case 3:
			h = strings.ToUpper(h[:1]) + h[1:] + "."
		case 4:
			h = words[r.IntN(len(words))] + "." + words[r.IntN(len(words))]
		}
		want := refHostPlatform(rules, owner, h)
		got, idx, ok := crawlers.HostPlatform(h)
		if got != want || ok != (want != "") || ok && crawlers.PlatformID(idx) != got {
			t.Fatalf("HostPlatform(%q) = %q (%d), %v; want %q", h, got, idx, ok, want)
		}
		ref := "https://" + h + "/path?q=1"
		if got, _, _ := crawlers.RefererPlatform(ref); got != want {
			t.Fatalf("RefererPlatform(%q) = %q, want %q", ref, got, want)
		}
	}
}

package crawlers_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/crawlers/internal/gen"
)

func TestBotsAreGenerated(t *testing.T) {
	checkGenerated(t, gen.GenerateBots, "data/well-known-bots.json", "data/well-known-bots.LICENSE", "bots_gen.go")
}

// Why an example User-Agent of the data is identified otherwise than as its bot.
const (
	inAddress      = "the data's pattern finds the bot only inside a URL or an e-mail address (or an @handle), where the project never reads a client's name: a site's URL in a header is no claim to be its crawler"
	glued          = "the name is glued to a version or a host name (grub-client-1.0.4, binlar_2.6.3, yoozBot-2.2, Nutch-1.10, trendictionbot0.5.0, ia_archiver-web.archive.org), so it is no whole word; the data's pattern matches substrings"
	wrongExabot    = "the data's pattern for Amazon's Alexa crawler is \"exabot\", which finds Exalead's Exabot: not Amazon's (BotNames keeps only Alexabot)"
	wrongWget      = "WGETbot is another client whose name contains wget; the data's pattern matches substrings"
	adidx          = "adidxbot is Bing Ads' crawler (the data's bing-ads); bingbot and msnbot appear only in the URL"
	twiceCCBot     = "the data has Common Crawl's CCBot twice; ccbot-crawler owns the name (BotNameOwners)"
	heritrix       = "the header names Heritrix, the Internet Archive's open-source crawler; archive.org_bot appears only in the URL"
	twicePinterest = "the data has Pinterest's crawler twice, once misspelt (pintrest-crawler); pinterest-crawler owns the name"
	goClient       = "the header's product is Go's HTTP client; centurybot appears only in an e-mail address"
	appEngine      = "the header's product is Google App Engine's fetcher; VirusTotal appears only in an application id"
	semanticbot    = "Semanticbot is the data's semanticaudience-crawler; sempi.tech appears only in the URL"
	otherProduct   = "the example names another operator's product (RankSonicSiteAuditor of ranksonic.com, Whoiswebsitebot of whoiswebsite.net), which the data's substring pattern (Sonic, sitebot) matched by accident"
	headlessFirst  = "HeadlessChrome comes before YextBot in the header, and the first name found decides"
)

// botExceptions are the data's example User-Agent strings that the project identifies
// otherwise than the data says, each with the result and why; reviewed with the data.
var botExceptions = []struct {
	id, ua, want, why string
}{
	{"bing-crawler", "Mozilla/5.0 (Windows Phone 8.1; ARM; Trident/7.0; Touch; rv:11.0; IEMobile/11.0; NOKIA; Lumia 530) like Gecko (compatible; adidxbot/2.0; +http://www.bing.com/bingbot.htm)", "bing-ads", adidx},
	{"bing-crawler", "Mozilla/5.0 (compatible; adidxbot/2.0;  http://www.bing.com/bingbot.htm)", "bing-ads", adidx},
	{"bing-crawler", "Mozilla/5.0 (compatible; adidxbot/2.0; +http://www.bing.com/bingbot.htm)", "bing-ads", adidx},
	{"bing-crawler", "Mozilla/5.0 (iPhone; CPU iPhone OS 7_0 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Version/7.0 Mobile/11A465 Safari/9537.53 (compatible; adidxbot/2.0;  http://www.bing.com/bingbot.htm)", "bing-ads", adidx},
	{"bing-crawler", "Mozilla/5.0 (iPhone; CPU iPhone OS 7_0 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Version/7.0 Mobile/11A465 Safari/9537.53 (compatible; adidxbot/2.0; +http://www.bing.com/bingbot.htm)", "bing-ads", adidx},
	{"wget", "WGETbot/1.0 (+http://wget.alanreed.org)", "", wrongWget},
	{"nutch", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/605.1.16 (KHTML, like Gecko; compatible; Friendly_Crawler/2.0) Chrome/120.0.6099.217 Safari/605.1.15/Nutch-1.20-SNAPSHOT", "", glued},
	{"nutch", "istellabot-nutch/Nutch-1.10", "", glued},
	{"msn-crawler", "adidxbot/1.1 (+http://search.msn.com/msnbot.htm)", "bing-ads", adidx},
	{"msn-crawler", "adidxbot/2.0 (+http://search.msn.com/msnbot.htm)", "bing-ads", adidx},
	{"msn-crawler", "librabot/1.0 (+http://search.msn.com/msnbot.htm)", "", inAddress},
	{"msn-crawler", "librabot/2.0 (+http://search.msn.com/msnbot.htm)", "", inAddress},
	{"amazon-alexa-crawler", "Mozilla/5.0 (compatible; Exabot-Images/3.0; +http://www.exabot.com/go/robot)", "", wrongExabot},
	{"amazon-alexa-crawler", "Mozilla/5.0 (compatible; Exabot PyExalead/3.0; +http://www.exabot.com/go/robot)", "", wrongExabot},
	{"amazon-alexa-crawler", "Mozilla/5.0 (compatible; Exabot/3.0 (BiggerBetter); +http://www.exabot.com/go/robot)", "", wrongExabot},
	{"amazon-alexa-crawler", "Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)", "", wrongExabot},
	{"amazon-alexa-crawler", "Mozilla/5.0 (compatible; Exabot/3.0;  http://www.exabot.com/go/robot)", "", wrongExabot},
	{"sitebot-crawler", "Mozilla/5.0 (compatible; Whoiswebsitebot/0.1; +http://www.whoiswebsite.net)", "", otherProduct},
	{"yamanalab-crawler", "Mozilla/5.0 (compatible; RankSonicSiteAuditor/1.0; +https://ranksonic.com/ranksonic_sab.html)", "", otherProduct},
	{"ia-archiver", "ia_archiver-web.archive.org", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-0.3.0; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.0.4; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.0.5; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.0.6; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.0.7; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.1.1; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.2.1; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.3.1; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.3.7; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.4.3; Crawl your own stuff with http://grub.org)", "", glued},
	{"grub", "Mozilla/4.0 (compatible; grub-client-1.5.3; Crawl your own stuff with http://grub.org)", "", glued},
	{"europarchive-crawler", "Mozilla/5.0 (compatible; MSIE 7.0 +http://www.europarchive.org)", "", inAddress},
	{"mappydata-crawler", "Mozilla/5.0 (compatible; Mappy/1.0; +http://mappydata.net/bot/)", "", inAddress},
	{"domaincrawler-crawler", "CipaCrawler/3.0 (info@domaincrawler.com; http://www.domaincrawler.com/www.example.com)", "", inAddress},
	{"commoncrawl-crawler", "CCBot/2.0 (http://commoncrawl.org/faq/)", "ccbot-crawler", twiceCCBot},
	{"commoncrawl-crawler", "CCBot/2.0 (https://commoncrawl.org/faq/)", "ccbot-crawler", twiceCCBot},
	{"changedetection-crawler", "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1;  http://www.changedetection.com/bot.html )", "", inAddress},
	{"binlar", "binlar_2.6.3 binlar2.6.3@unspecified.mail", "", glued},
	{"binlar", "binlar_2.6.3 binlar_2.6.3@unspecified.mail", "", glued},
	{"binlar", "binlar_2.6.3 larbin2.6.3@unspecified.mail", "", glued},
	{"binlar", "binlar_2.6.3 phanendra_kalapala@McAfee.com", "", glued},
	{"binlar", "binlar_2.6.3 test@mgmt.mic", "", glued},
	{"archiveorg-archiver", "Mozilla/5.0 (compatible; heritrix/3.1.1-SNAPSHOT-20120116.200628 +http://www.archive.org/details/archive.org_bot)", "internetarchive-crawler-oss", heritrix},
	{"archiveorg-archiver", "Mozilla/5.0 (compatible; heritrix/3.3.0-SNAPSHOT-20140702-2247 +http://archive.org/details/archive.org_bot)", "internetarchive-crawler-oss", heritrix},
	{"archiveorg-archiver", "Mozilla/5.0 (compatible; special_archiver/3.1.1 +http://www.archive.org/details/archive.org_bot)", "", inAddress},
	{"yooz-crawler", "Mozilla/5.0 (compatible; yoozBot-2.2; http://yooz.ir; info@yooz.ir)", "", glued},
	{"infegy-crawler", "Mozilla/5.0 (compatible) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/47.0.2526.73 Safari/537.36 collection@infegy.com", "", inAddress},
	{"pintrest-crawler", "Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)", "pinterest-crawler", twicePinterest},
	{"pintrest-crawler", "Pinterest/0.2 (+http://www.pinterest.com/bot.html)", "pinterest-crawler", twicePinterest},
	{"trendiction-crawler", "Mozilla/5.0 (Windows; U; Windows NT 6.0; en-GB; rv:1.0; trendictionbot0.5.0; trendiction search; http://www.trendiction.de/bot; please let us know of any problems; web at trendiction.com) Gecko/20071127 Firefox/3.0.0.11", "", glued},
	{"trendiction-crawler", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; trendictionbot0.5.0; trendiction search; http://www.trendiction.de/bot; please let us know of any problems; web at trendiction.com) Gecko/20170101 Firefox/67.0", "", glued},
	{"linkarchiver", "@LinkArchiver twitter bot", "", inAddress},
	{"tweetedtimes-crawler", "Mozilla/5.0 (compatible; +http://tweetedtimes.com)", "", inAddress},
	{"seewithkids-crawler", "http://seewithkids.com/bot", "", inAddress},
	{"centurybot", "Mozilla/5.0 (compatible; Go-http-client/1.1; +centurybot9@gmail.com)", "go-http", goClient},
	{"virustotal-crawler", "Mozilla/5.0 (Windows; U; MSIE 9.0; Windows NT 9.0; en-US) AppEngine-Google; (+http://code.google.com/appengine; appid: s~virustotalcloud)", "google-appengine", appEngine},
	{"virustotal-crawler", "AppEngine-Google; (+http://code.google.com/appengine; appid: s~virustotalcloud)", "google-appengine", appEngine},
	{"seostar-crawler", "Mozilla/5.0 (compatible; Adsbot/3.1; +https://seostar.co/robot/)", "", inAddress},
	{"sempitech-crawler", "Mozilla/5.0 (compatible; Semanticbot/1.0; +http://sempi.tech/bot.html)", "semanticaudience-crawler", semanticbot},
	{"google-web-snippet", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/56.0.2924.87 Safari/537.36 Google (+https://developers.google.com/+/web/snippet/", "", inAddress},
	{"img2dataset", "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:72.0) Gecko/20100101 Firefox/72.0 (compatible; img2downloader; +https://github.com/rom1504/img2dataset)", "", inAddress},
	{"yext-bot", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/87.0.4280.88 YextBot/Java Safari/537.36", "headless-chrome", headlessFirst},
	{"cloudflare-security-center", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/92.0.4515.107 Safari/537.36 (compatible; +https://developers.cloudflare.com/security-center/)", "", inAddress},
	{"sitebulb", "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6439.0 Mobile Safari/537.36 +https://sitebulb.com", "", inAddress},
}

// TestBotExamples: every example User-Agent of the data is identified as its bot, or as
// botExceptions says; no rejected example is identified as the bot it is rejected for; every
// exception is still needed.
func TestBotExamples(t *testing.T) {
	data, err := os.ReadFile("data/well-known-bots.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		ID        string `json:"id"`
		Instances struct{ Accepted, Rejected []string }
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	type key struct{ id, ua string }
	exc := map[key]int{}
	for i, e := range botExceptions {
		exc[key{e.id, e.ua}] = i
	}
	used := make([]bool, len(botExceptions))
	asMeant, excepted, rejected := 0, 0, 0
	for _, b := range raw {
		if _, ok := crawlers.BotByID(b.ID); !ok {
			t.Errorf("bot %q of the data is not in the catalogue", b.ID)
		}
		for _, ua := range b.Instances.Accepted {
			want := b.ID
			if i, ok := exc[key{b.ID, ua}]; ok {
				want, used[i] = botExceptions[i].want, true
				excepted++
			} else {
				asMeant++
			}
			if got, _ := crawlers.IdentifyBot(ua); got != want {
				t.Errorf("IdentifyBot(%q) = %q, want %q (an example of %s)", ua, got, want, b.ID)
			}
		}
		for _, ua := range b.Instances.Rejected {
			rejected++
			if got, _ := crawlers.IdentifyBot(ua); got == b.ID {
				t.Errorf("IdentifyBot(%q) = %q, which the data rejects for it", ua, got)
			}
		}
	}
	for i, u := range used {
		if !u {
			t.Errorf("exception %q for %s is no example of the data any more: remove it", botExceptions[i].ua, botExceptions[i].id)
		}
	}
	t.Logf("%d examples identified as the data says, %d as the exceptions say, %d rejected examples", asMeant, excepted, rejected)
	if asMeant < 1100 || rejected < 3 {
		t.Errorf("only %d examples checked", asMeant)
	}
}

// moreBrowsers are browsers' headers beside browserUAs, from platforms and in-app browsers.
var moreBrowsers = []string{
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Slack/4.29.149 Chrome/108.0.5359.179 Electron/22.2.0 Safari/537.36 Sonic Slack_SSB/4.29.149",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36 [Pinterest/Android]",
	"Mozilla/5.0 (Windows) mirall/3.10.1 (build 20230825) (Nextcloud, windows-10.0.22621 ClientArchitecture: x86_64 OsArchitecture: x86_64)",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0",
	"Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 YaBrowser/24.10.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/130.0.6723.90 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Android 15; Mobile; rv:132.0) Gecko/132.0 Firefox/132.0",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/485.0.0.45.103;FBBV/650463843;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.6;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 353.0.0.21.92 (iPhone15,2; iOS 17_6; en_US; en; scale=3.00; 1179x2556; 655402917)",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Vivaldi/7.0.3495.18",
	"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edge/44.18363.8131",
}

// TestBrowsersAreNoBots: no browser's header identifies a bot of the catalogue; curl's does,
// as the programmatic client it is.
func TestBrowsersAreNoBots(t *testing.T) {
	for _, ua := range append(slices.Clone(browserUAs), moreBrowsers...) {
		got, ok := crawlers.IdentifyBot(ua)
		if strings.HasPrefix(ua, "curl/") {
			if got != "curl" {
				t.Errorf("IdentifyBot(%q) = %q, want curl", ua, got)
			}
			continue
		}
		if ok {
			t.Errorf("IdentifyBot(%q) = %q, a browser", ua, got)
		}
		// Nor a crawler only the AI catalogue knows.
		if id, name, ok := crawlers.IdentifyBotName(ua); ok {
			t.Errorf("IdentifyBotName(%q) = %q %q, a browser", ua, id, name)
		}
	}
}

func TestBotCatalogue(t *testing.T) {
	bots := crawlers.Bots()
	if len(bots) < 600 || !slices.IsSortedFunc(bots, func(a, b crawlers.Bot) int { return strings.Compare(a.ID, b.ID) }) {
		t.Fatalf("%d bots, sorted %v", len(bots), slices.IsSortedFunc(bots, func(a, b crawlers.Bot) int { return strings.Compare(a.ID, b.ID) }))
	}
	g, ok := crawlers.BotByID("google-crawler")
	if !ok || g.Operator != "Google" || !slices.Contains(g.Categories, "search-engine") || len(g.Verification.IPRanges) == 0 || len(g.Verification.HostMasks) == 0 {
		t.Errorf("google-crawler: %+v", g)
	}
	// Documented crawlers beyond the data's examples.
	for ua, want := range map[string]string{
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)": "google-crawler",
		"Baiduspider-image+(+http://www.baidu.com/search/spider.htm)":              "baidu-crawler",
		"Mozilla/5.0 (compatible; YandexAdditional/3.0; +http://yandex.com/bots)":  "yandex-crawler",
		"GoogleOther-Image/1.0": "google-crawler-other",
		"Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)": "",
	} {
		if id, _ := crawlers.IdentifyBot(ua); id != want {
			t.Errorf("IdentifyBot(%q) = %q, want %q", ua, id, want)
		}
	}
	gpt, _ := crawlers.LookupBotName("openai-crawler", "GPTBot")
	if !slices.Equal(gpt.Categories, []string{"ai", crawlers.AIAll, crawlers.AITraining}) || gpt.Operator != "OpenAI" {
		t.Errorf("GPTBot: %+v", gpt)
	}
	search := 0
	for _, b := range bots {
		for _, c := range b.Categories {
			if !slices.Contains(crawlers.BotCategories(), c) {
				t.Errorf("%s: category %q is not in BotCategories", b.ID, c)
			}
		}
		if slices.Contains(b.Categories, "search-engine") {
			search++
		}
	}
	if search < 30 {
		t.Errorf("only %d search engines", search)
	}
	// Results are copies.
	g.Names[0] = "changed"
	if again, _ := crawlers.BotByID("google-crawler"); again.Names[0] == "changed" {
		t.Error("BotByID shares the catalogue's slices")
	}
}

func BenchmarkIdentifyBotBrowser(b *testing.B) {
	crawlers.IdentifyBot(chromeUA)
	b.ReportAllocs()
	for b.Loop() {
		crawlers.IdentifyBot(chromeUA)
	}
}

func BenchmarkIdentifyBotGooglebot(b *testing.B) {
	const ua = "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	b.ReportAllocs()
	for b.Loop() {
		crawlers.IdentifyBot(ua)
	}
}

// TestIdentifyBotHeader: every value of the field is read; the first naming a bot decides.
func TestIdentifyBotHeader(t *testing.T) {
	const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	const googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	for _, c := range []struct {
		values []string
		want   string
	}{
		{nil, ""},
		{[]string{firefox}, ""},
		{[]string{firefox, googlebot}, "google-crawler"},
		{[]string{googlebot, "GPTBot/1.2"}, "google-crawler"},
		{[]string{"", "GPTBot/1.2"}, "openai-crawler"},
	} {
		got, ok := crawlers.IdentifyBotHeader(c.values)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("IdentifyBotHeader(%q) = %q, %v, want %q", c.values, got, ok, c.want)
		}
	}
}

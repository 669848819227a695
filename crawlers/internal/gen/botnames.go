package gen

// BotNames gives the names to look for in a User-Agent header for the bots whose pattern in
// the data is not a plain name: a regular expression with alternatives or character classes,
// or a URL or e-mail address, which the project's matcher never reads as a client's name
// (package crawlers, UAMatcher). Reviewed against each bot's example User-Agent strings; the
// names are matched case-insensitively as whole words, as every other name is.
var BotNames = map[string][]string{
	// The data's pattern "exabot" is Exalead's crawler, not Amazon's.
	"amazon-alexa-crawler": {"Alexabot"},
	// The data's pattern "NextCloud" is case-sensitive; folded, it would take Nextcloud's
	// desktop sync client ("mirall/3.10.1 (... Nextcloud ...)") for the news fetcher.
	"nextcloud-crawler": {"NextCloud-News"},
	// "Mediapartners \(Googlebot\)": the older form of AdSense's crawler, whose first word is
	// enough; "Mediapartners-Google" is google-adsense's.
	"google-adsense-googlebot":   {"Mediapartners"},
	"wget":                       {"Wget"},            // "[wW]get"
	"webmon":                     {"webmon"},          // "webmon "
	"sistrix-crawler":            {"SISTRIX Crawler"}, // "(sistrix|SISTRIX) [cC]rawler"
	"facebook-crawler":           {"FacebookBot", "Facebot"},
	"apple-feedfetcher":          {"iTMS"},
	"semrush-crawler":            {"SemrushBot", "SemrushBot-SA", "SemrushBot-SI"},
	"livelap-crawler":            {"LivelapBot"},
	"pingdom-crawler":            {"Pingdom", "PingdomPageSpeed", "PingdomTMS", "pingbot"},
	"exensa-crawler":             {"Barkrowler"},
	"leipzig-lcc":                {"LCC"}, // "^LCC ": an everyday abbreviation, matched only as the first product (UAMatcher)
	"curebot-crawler":            {"Curebot", "curebot-feed-fetcher"},
	"blogtraffic-feedfetcher":    {"BlogTraffic"},
	"anthropic-crawler":          {"ClaudeBot", "Claude-Web"},
	"meta-crawler":               {"meta-externalagent"},
	"datadog-monitor-synthetics": {"DatadogSynthetics", "Datadog/Synthetics"},
	"pinterest-crawler":          {"Pinterestbot", "Pinterest"},
	// Patterns that are a URL or an address: the bot's own product names instead, as its
	// example User-Agent strings spell them.
	"yandex-crawler":       {"YaDirectFetcher", "YandexAccessibilityBot", "YandexAdNet", "YandexBlogs", "YandexBot", "YandexCalendar", "YandexDirect", "YandexDirectDyn", "YandexFavicons", "YandexForDomain", "YandexImageResizer", "YandexImages", "YandexMarket", "YandexMedia", "YandexMetrika", "YandexMobileBot", "YandexMobileScreenShotBot", "YandexNews", "YandexOntoDB", "YandexOntoDBAPI", "YandexPagechecker", "YandexPartner", "YandexRCA", "YandexScreenshotBot", "YandexSearchShop", "YandexSpravBot", "YandexTracker", "YandexTurbo", "YandexVerticals", "YandexVertis", "YandexVideo", "YandexVideoParser", "YandexWebmaster", "YandexUserproxy", "YandexSitelinks", "YandexAdditional", "YandexAdditionalBot", "YandexComBot", "YandexDialogs"},
	"pintrest-crawler":     {"Pinterestbot"},
	"siteexplorer-crawler": {"SiteExplorer"},
	"uptime-monitor":       {"Uptimebot"},
	"hyscore-crawler":      {"HyScore"},
	"iss-crawler":          {"oBot"},
	"infegy-crawler":       {"infegy"},
	"got":                  {"got"},
	// The Google pattern names its documentation URL; the User-Agent's own name is
	// Google-PageRenderer.
	"google-web-snippet": {"Google-PageRenderer"},
	// Its only example names it in a URL alone: no name to look for.
	"cloudflare-security-center": nil,
}

// BotExtraNames are names a bot's example User-Agent strings use besides the one its pattern
// gives: the data's patterns match anywhere in the header, so "msnbot" finds
// "msnbot-media/1.0", where the project's matcher wants whole words ("-" is part of a
// word). Each is the whole word of an example that the bot's pattern matches, reviewed; not
// taken: words glued to a version ("Nutch-1.20", "binlar_2.6.3", "yoozBot-2.2",
// "trendictionbot0.5.0") and host names ("ia_archiver-web.archive.org"), which the
// instance exceptions list; Baidu's and Yandex's documented crawlers beyond the examples;
// words of another operator's product that the pattern matched by accident
// (RankSonicSiteAuditor for "Sonic", Whoiswebsitebot for "sitebot").
var BotExtraNames = map[string][]string{
	"amazon-alexa-crawler":        {"Alexabot"},
	"baidu-cloud-watch":           {"Baidu-YunGuanCe-Bot", "Baidu-YunGuanCe-SLABot", "Baidu-YunGuanCe-ScanBot", "Baidu-YunGuanCe-PerfBot", "Baidu-YunGuanCe-VSBot"},
	"baidu-crawler":               {"Baiduspider-render", "Baiduspider-image", "Baiduspider-video", "Baiduspider-news", "Baiduspider-favo", "Baiduspider-cpro", "Baiduspider-ads"},
	"google-crawler-other":        {"GoogleOther-Image", "GoogleOther-Video"},
	"convera-crawler":             {"ConveraCrawler"},
	"lipperhey-crawler":           {"Lipperhey-Kaus-Australis"},
	"coccoc-crawler":              {"coccocbot-image", "coccocbot-web", "imagecoccoc"},
	"duckduckgo-crawler":          {"DuckDuckBot-Https"},
	"experibot-crawler":           {"Experibot-v2", "Experibot-v3"},
	"feedly-feedfetcher":          {"FeedlyBot"},
	"feedspot-feedfetcher":        {"Feedspotbot"},
	"gigablast-crawler-oss":       {"GigablastOpenSource"},
	"google-adsbot-mobile":        {"AdsBot-Google-Mobile-Apps"},
	"hatena-crawler":              {"Hatena-Favicon"},
	"internetarchive-crawler-oss": {"sukibot_heritrix"},
	"leipzig-findlinks":           {"findlinks"},
	"linkdex-crawler":             {"linkdexbot"},
	"msn-crawler":                 {"msnbot-NewsBlogs", "msnbot-UDiscovery", "msnbot-media"},
	"picsearch-crawler":           {"psbot-image", "psbot-page"},
	"python-httpx":                {"python-httpx"},
	"python-opengraph":            {"python-opengraph-jaywink"},
	"schmorp-crawler":             {"AnyEvent-HTTP"},
	"seekport-crawler":            {"SeekportBot"},
	"semrush-crawler":             {"SemrushBot-BA"},
	"slack-crawler":               {"Slackbot-LinkExpanding"},
	"tineye-crawler":              {"TinEye-bot"},
	"turnitin-crawler":            {"TurnitinBot"},
	"w3c-validator-css":           {"W3C_CSS_Validator_JFouffa"},
	"yahoo-crawler-japan":         {"Y!J-ASR", "Y!J-BRJ", "Y!J-PSC", "Y!J-BRW", "Y!J-BRY"},
}

// BotNameOwners says which bot a name that several bots have identifies first (folded
// name -> id); the others are tried in id order when the owner's Excludes rule it out.
var BotNameOwners = map[string]string{
	// The data has Common Crawl's crawler twice (patterns "CCBot/" and "CCBot").
	"ccbot": "ccbot-crawler",
	// Apple's link previews (imessage-preview) send the names of Facebook's and Twitter's
	// fetchers together; each name is first its own operator's, whose Excludes (the data's
	// forbidden patterns) rule out a header with the others.
	"facebookexternalhit": "facebook-share-crawler",
	"facebot":             "facebook-crawler",
	"twitterbot":          "twitter-crawler",
	// The data has Pinterest's crawler twice, once misspelt (pintrest-crawler).
	"pinterestbot": "pinterest-crawler",
}

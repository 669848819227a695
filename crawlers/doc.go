// Package crawlers is a catalogue of AI-related crawlers, for configurations
// that block or allow them by category, and a User-Agent matcher to enforce
// such a choice on requests; and a catalogue of well-known bots of every kind
// (Bots, IdentifyBot), with how their operators let a site verify them. A request is the
// crawler of the name it carries (IdentifyBotName, LookupBotName), with that name's
// categories, not those of the other names of its entry.
//
// The catalogue is derived from robots.json of the ai.robots.txt project
// (https://github.com/ai-robots-txt/ai.robots.txt), MIT; data/ holds the
// copy used, its LICENSE and a SOURCE note, and catalog_gen.go repeats the
// licence. Only facts are kept: the user-agent name, the operator's name
// (where the source's operator field holds a sentence or a URL, a reviewed
// table, internal/gen/operators.go, gives the name), the categories,
// whether the crawler is documented to respect robots.txt, and the token
// class of the name. Descriptions and crawl frequencies are not.
//
// # Categories
//
// AITraining, AISearch, AIAssistants and AIAll (see Categories). The source
// describes each crawler's function in free text; a reviewed table
// (internal/gen/functions.go) maps every distinct string to categories, and
// the generator stops on a string the table does not have. Decisions worth
// knowing:
//   - the source's "Undocumented AI Agents", and "OpenAI", whose function is
//     "Unclear at this time.", are only in ai-all;
//   - facebookexternalhit (link previews, only suspected of AI use) is only
//     in ai-all, so that blocking ai-training keeps link previews working;
//   - "AI Data Providers" (Bright Data, Diffbot, Exa, Tavily...) are in
//     ai-training and ai-search: they sell content for both;
//   - ai-search holds Applebot and PetalBot, which also crawl for ordinary
//     search (Siri and Spotlight, Petal Search): blocking ai-search hides a
//     site there too.
//
// # Token classes
//
// Each name has a TokenClass (Crawler.Token, Classify):
//   - TokenProduct: an RFC 9309 product token, written to robots.txt;
//   - TokenDigits: one word with digits, written to robots.txt because its
//     operator documents it there, but flagged: Google's parser reads only
//     up to the first digit;
//   - TokenUAOnly: never written to robots.txt, matched in User-Agent
//     headers only.
//
// RobotsTxtNames splits a list of crawlers accordingly. In this snapshot:
//
// TokenDigits: AI2Bot, AI2Bot-DeepResearchEval, Ai2Bot-Dolma, Channel3Bot,
// Crawl4AI, img2dataset.
//
// TokenUAOnly: bigsur.ai, Brightbot 1.0, ChatGPT Agent, Datenbank Crawler,
// Echobot Bot, iaskspider/2.0, Kangaroo Bot, Linguee Bot, MistralAI-User/1.0,
// netEstate Imprint Crawler, panscient.com, Poseidon Research Crawler,
// quillbot.com, Sidetrade indexer bot, Terra Cotta.
//
// # Names in configurations
//
// The package answers every question caddy-robots asks about a crawler's name, once: whether
// a configuration may give a crawler that name (IsToken; NotToken says what is wrong and the
// name most likely meant, DigitTokenWarning warns of digits; LeadingToken is the name a
// parser reads from a user-agent value), which crawlers presets stand for less those an
// exclusion leaves out (PresetCrawlers; ExceptProblem checks the exclusion), and which
// crawler a User-Agent header names: IdentifyBotName for the catalogues, AgentToken for the
// robots.txt group it reads. The lexical rules under them (the RFC 9309 product token) are
// in internal/syntax.
//
// # Matching User-Agent headers
//
// UAMatcher finds names in a User-Agent header case-insensitively as whole
// words, '-' and '_' counting as part of a word (see UAMatcher). It takes
// about 120 ns of CPU and no allocation for a browser's header against the
// whole catalogue.
//
// # Platforms
//
// A Platform is an operator of crawlers seen as what it gives back: the hosts its products
// send readers from, for the crawl-to-refer ratio (PlatformMethod). The table is the
// project's own data/platforms.json, each host group with its source, generated into
// platforms_gen.go like the catalogues. CrawlerPlatform and BotPlatform say whose a crawler
// is (by operator, or by bot ID where the data names no operator); RefererPlatform and
// HostPlatform whose a Referer's host is, by whole DNS labels and never by substring, without
// allocating. A Referer is a claim, like User-Agent.
//
// # Updating the catalogue
//
// go generate ./crawlers/ regenerates catalog_gen.go from data/robots.json (and
// bots_gen.go, platforms_gen.go from theirs);
// data/SOURCE.md tells how to take a new upstream file in one step. A test
// fails when catalog_gen.go differs from what the generator makes of the
// committed data, and another when the lists above are out of date.
package crawlers

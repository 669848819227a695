package gen

import (
	"fmt"
	"regexp"
	"strings"
)

// Operators is the reviewed table from a free-text "operator" value of
// robots.json to the operator's name, for every value that is not a single
// markdown link. The source's field often holds a sentence about the crawler
// ("Kagi that fetches web content to answer user queries..."), a URL, or
// "Unclear at this time."; the catalogue keeps only the name, so a person
// reads each such value once and writes the name here ("" when the source
// does not name an operator).
//
// It is exact: a plain value missing here stops the generator, which names
// it, and a row the data no longer uses fails a test. The one rule applied
// without a row is that a value made of one markdown link, "[Name](url)",
// names Name; a row here overrides even that, where the link text is not the
// operator's name. Every result must also pass checkOperatorName, so a
// description cannot slip in through a link text either.
var Operators = map[string]string{
	// The source does not know.
	"Unclear at this time.": "",
	"Unknown":               "",
	// Lightpanda is an open-source headless browser: its user agent is
	// whoever runs it, so there is no operator to name.
	"Anyone who downloads the Lightpanda client. Possibly being used by a [Grok-adjacent](https://github.com/lightpanda-io/browser/issues/3156#issuecomment-5217843616) organization's botnet.": "",

	// Plain names, as the source spells them.
	"Amazon":     "Amazon",
	"Anthropic":  "Anthropic",
	"Awario":     "Awario",
	"ByteDance":  "ByteDance",
	"Datenbank":  "Datenbank",
	"DeepSeek":   "DeepSeek",
	"Devin AI":   "Devin AI",
	"Echobox":    "Echobox",
	"Google":     "Google",
	"iAsk":       "iAsk",
	"netEstate":  "netEstate",
	"WEBSPARK":   "WEBSPARK",
	"Mistral AI": "Mistral AI",
	// One company, two spellings in the source (MistralAI-User and
	// MistralAI-User/1.0); the catalogue uses one.
	"Mistral": "Mistral AI",
	// FacebookBot and facebookexternalhit; Meta's other crawlers are
	// "Meta" in the source.
	"Meta/Facebook": "Meta",

	// A URL instead of a name: the name is the site's owner.
	"https://brightdata.com/brightbot":                        "Bright Data", // Brightbot 1.0
	"https://safe.search.brave.com/help/brave-search-crawler": "Brave",       // Bravebot

	// A name followed by a description: the name alone.
	"Ai2, a non-profit AI research institute":                                                                                                   "Ai2",
	"Alibaba that fetches web content for the Tongyi Qianwen assistant and related Qwen-generated answers":                                      "Alibaba",
	"Amazon, used for fetching web content to answer user queries through Alexa and other Amazon AI services":                                   "Amazon",
	"Baidu that fetches web content for the yiyan":                                                                                              "Baidu",
	"Big Sur AI that fetches website content to enable AI-powered web agents, sales assistants, and content marketing solutions for busi\u2026": "Big Sur AI",
	"Butterfly Effect, a company based in China":                                                                                                "Butterfly Effect",
	"Cohere to download training data for its LLMs (Large Language Models) that power its enterprise AI products":                               "Cohere",
	"CragSoftware, a Brazil-based software company specializing in data engineering and AI web scraping services":                               "CragSoftware",
	"Firecrawl that extracts web content and converts it into structured data for use in LLM and AI applications":                               "Firecrawl",
	"GeistHaus, a company developing AI systems for therapy and psychological assessment":                                                       "GeistHaus",
	"Google that retrieves web content on behalf of Gemini API users":                                                                           "Google",
	"Kagi that fetches web content to answer user queries through Kagi AI, their suite of AI-powered tools including Assistant, Res\u2026":      "Kagi",
	"Lyrenth that builds an AI-readable index of web content for AI systems":                                                                    "Lyrenth",
	"Moonshot AI that fetches web content on behalf of users interacting with Kimi":                                                             "Moonshot AI",
	"Naget Inc (founded by Chris Samarinas, headquarter in Amherst, Massachusetts)":                                                             "Naget Inc",
	"Poggio, a company that provides AI sales enablement tools for creating tailored narratives, business cases, and account plan\u2026":        "Poggio",
	"Querit that indexes web content for their search API service, which is designed to provide real-time search results for larg\u2026":        "Querit",
	"Querit, a company providing a search API for large language model integration":                                                             "Querit",
	"the Chinese company Huawei": "Huawei",
	"Twin, a platform that creates automated workers to perform tasks by integrating with APIs and controlling web applications through browser automa\u2026": "Twin",

	// Links whose text is not the operator's name.
	"[Velen Crawler](https://velen.io)": "Velen", // the crawler's name; the operator is Velen
}

// oneLink is a value made of a single markdown link.
var oneLink = regexp.MustCompile(`^\[([^\]]+)\]\([^)\s]*\)$`)

// OperatorName returns the operator's name for a raw "operator" value: the
// row of Operators, else the text of a value that is one markdown link. A
// value neither covers, or a name that does not look like one
// (checkOperatorName), is an error naming the value.
func OperatorName(raw string) (string, error) {
	name, ok := Operators[raw]
	if !ok {
		m := oneLink.FindStringSubmatch(strings.TrimSpace(raw))
		if m == nil {
			return "", fmt.Errorf("operator %q has no row: review it and add its name to Operators in crawlers/internal/gen/operators.go", raw)
		}
		name = strings.TrimSpace(m[1])
	}
	if err := checkOperatorName(name); err != nil {
		return "", fmt.Errorf("operator %q: %w", raw, err)
	}
	return name, nil
}

// checkOperatorName is a guard against a description or a URL passing for a
// name: at most 60 bytes and 6 words, letters, digits, spaces and . - & '
// only, and none of the words with which the source starts a description.
func checkOperatorName(name string) error {
	if name == "" {
		return nil
	}
	if len(name) > 60 || len(strings.Fields(name)) > 6 {
		return fmt.Errorf("%q is too long for a name: write the name alone in Operators", name)
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(" .-&'", r)) {
			return fmt.Errorf("%q has %q, which a name here does not: write the name alone in Operators", name, r)
		}
	}
	for _, w := range strings.Fields(strings.ToLower(name)) {
		switch w {
		case "that", "which", "who", "used", "fetches", "company":
			return fmt.Errorf("%q reads as a description, not a name: write the name alone in Operators", name)
		}
	}
	return nil
}

package gen

// The category names; they must equal the constants AITraining, AISearch and
// AIAssistants of package crawlers (a test there checks). AIAll is not listed:
// every entry is in it.
const (
	training   = "ai-training"
	search     = "ai-search"
	assistants = "ai-assistants"
)

// Functions is the reviewed table from every distinct free-text "function"
// string of robots.json to the categories its crawlers belong to, besides
// ai-all. It is exact: a string that is not a key here stops the generator,
// which names it, so a new upstream wording is read by a person before any
// crawler is put into a category. An empty list is a decision too: the
// crawler is only in ai-all.
//
// The categories mean:
//   - ai-training: the crawler collects content for data sets or for training
//     models (LLM training, data scrapers, data sold to AI companies);
//   - ai-search: it indexes content so that an AI search engine or answer
//     engine can cite or ground answers in it;
//   - ai-assistants: it fetches pages on a user's behalf: assistants, agents,
//     coding agents, tools that fetch a URL a user gave them.
//
// A crawler may be in several. When a string is vague, the comment says what
// was decided and why. The aim is that blocking a category blocks what its
// name promises and breaks nothing else silently: link previews stay (see
// facebookexternalhit below); where the source's own category also holds an
// ordinary search crawler (Applebot, PetalBot in ai-search), the comment and
// the package documentation say so.
var Functions = map[string][]string{
	// Known Agents categories (most entries use these).
	"AI Agents":          {assistants},
	"AI Assistants":      {assistants},
	"AI Coding Agents":   {assistants}, // act in a user's session, on a user's prompt
	"AI Data Scrapers":   {training},
	"AI Search Crawlers": {search}, // includes Applebot, also Apple's ordinary search crawler
	// Data providers (Bright Data, Diffbot, Exa, Tavily, Brave, Firecrawl,
	// Querit...) sell crawled content to AI companies both as training data
	// and as search/grounding APIs for LLM answers.
	"AI Data Providers": {training, search},
	// The source knows these agents exist but not what they do (Claude-Web,
	// Crawl4AI, iaskspider, ...). Putting them in a named category would be a
	// guess; they are blocked by ai-all, or by name.
	"Undocumented AI Agents": {},

	// Training and data collection.
	"A massive, artificial intelligence/machine learning, automated system.": {training}, // aiHitBot: company data set built by ML
	"AI LLM Scraper.":     {training},
	"AI data scraper":     {training},
	"AI model training.":  {training},
	"AI research crawler": {training}, // research data collection
	"AI tools and models for machine learning research.": {training}, // LAION data sets
	// Linguee collects bilingual texts, the corpus behind its translation
	// models.
	"AI powered translation service": {training},
	// Meltwater (YaK) collects a live feed of web data for AI analysis; the
	// nearest category is data collection.
	"According to the [Meltwater Consumer Intelligence page](https://www.meltwater.com/en/suite/consumer-intelligence) 'By applying AI, data science, and market research expertise to a live feed of global data sources, we transform unstructured data into actionable insights allowing better decision-making'.": {training},
	"Content is used to train open language models.":              {training},
	"Data Scraper from RSS Feeds.":                                {training},
	"Data collection and analysis using machine learning and AI.": {training},
	"Data collection to support AI-powered products.":             {training},
	"Data is sold.": {training}, // Webz.io sells the data, AI training included
	"Extracts data for a variety of uses including training AI.":                                                                                {training},
	"ImageSiftBot is a web crawler that scrapes the internet for publicly available images to support their suite of web intelligence products": {training},
	// Thinkbot: vague; the crawler gathers content for an AI consultancy, so
	// it is treated as data collection.
	"Insights on AI integration and automation.": {training},
	"LLM training.":    {training},
	"LLM/AI training.": {training},
	"Provides open crawl dataset, used for many purposes, including Machine Learning/AI.": {training}, // CCBot
	"Scrapes data for a variety of uses including training AI.":                           {training},
	"Scrapes data for business data sets and machine learning models.":                    {training},
	"Scrapes data for use in training LLMs.":                                              {training},
	"Scrapes data to train Anthropic's AI products.":                                      {training},
	"Scrapes data to train OpenAI's products.":                                            {training},
	"Scrapes data to train and support AI technologies.":                                  {training},
	"Scrapes data to train machine learning models.":                                      {training},
	"Scrapes data.":                                                  {training}, // GoogleOther*: research and development crawls
	"Scrapes images for use in LLMs.":                                {training},
	"Scrapes/analyzes data for the YandexGPT LLM.":                   {training},
	"Training language models":                                       {training},
	"Training language models and improving AI products":             {training},
	"Used to train models and improve products.":                     {training},
	"Uses data gathered in AI development and information analysis.": {training},
	"We are using the data from the crawler to build datasets for machine learning experiments.": {training},
	// Applebot-Extended is the robots.txt token with which a site opts out of
	// Apple using its content to train Apple's models; it fetches nothing
	// itself (Applebot does), so despite the wording it is training only.
	"Powers features in Siri, Spotlight, Safari, Apple Intelligence, and others.": {training},
	// Google-CloudVertexBot: the wording says model building; the crawls
	// feed Vertex AI agents and their search, so both.
	"Build and manage AI models for businesses employing Vertex AI": {training, search},

	// Search.
	"Claude-SearchBot navigates the web to improve search result quality for users. It analyzes online content specifically to enhance the relevance and accuracy of search responses.": {search},
	"Collects data for AI natural language search":     {search}, // amazon-kendra
	"Collects data for AI search":                      {search},
	"Crawls sites to provide answers to user queries.": {search}, // iaskspider/2.0: iAsk is an AI answer engine
	// Andi is a search engine; "assistant" names its answer style.
	"Search engine using generative AI, AI Search Assistant": {search},
	"Search result generation.":                              {search},
	// bedrockbot: Amazon Bedrock's web crawler connector, which fills a
	// Knowledge Base that an AWS customer's application retrieves answers
	// from (retrieval, not model training).
	"Data scraping for custom AI applications.": {search},
	"Scrapes data for search engine and LLMs.":  {training, search}, // YouBot
	// Amazonbot: answers for Alexa (search) and "service improvement"
	// (Amazon documents use for training its models).
	"Service improvement and enabling answers for Alexa users.": {training, search},
	// PetalBot is also Petal Search's ordinary crawler: blocking ai-search
	// takes a site out of Petal Search too.
	"Used to provide recommendations in Hauwei assistant and AI search services.": {search, assistants},
	"AI search, assistants and agents":                                            {search, assistants}, // atlassian-bot (Rovo)

	// Fetches on a user's behalf.
	"AI Learning Companion":                               {assistants}, // BuddyBot, a children's AI companion
	"Checks URLs on your site for SEO Writing Assistant.": {assistants},
	"Crawls your site for ContentShake AI tool.":          {assistants},
	// QuillBot's writing and AI-detection tools fetch the pages users give
	// them; nothing says the content is kept for training.
	"Company offers AI detection, writing tools and other services.":               {assistants},
	"Live chat support and lead generation.":                                       {assistants}, // wpbot, a site chat bot
	"Retrieves data to provide responses to user-initiated prompts.":               {assistants},
	"Takes action based on user prompts.":                                          {assistants},
	"Used as part of AI apps developed by users of Google's Firebase AI products.": {assistants},

	// Only in ai-all.
	//
	// facebookexternalhit fetches link previews for Facebook, Instagram and
	// WhatsApp; the source only suspects AI use. Blocking it under
	// ai-training would break link previews for a site that just wanted to
	// opt out of training, so it is reachable only by ai-all or by name.
	"Ostensibly only for sharing, but likely used as an AI crawler as well": {},
	// "OpenAI": the source does not know what this agent does.
	"Unclear at this time.": {},
}

package logreport

import "strings"

// INTERIM: the catalogue's platforms come from h-platforms (crawlers package); until they
// are merged, this small table stands in for them so that the section can be built and
// tested. It is replaced by calls to the catalogue at the merge.

var interimPlatforms = []struct {
	name      string
	operators []string
	hosts     []string
}{
	{"Google", []string{"Google"}, []string{"google.com", "google.co.uk", "google.de"}},
	{"Microsoft", []string{"Microsoft"}, []string{"bing.com", "copilot.microsoft.com"}},
	{"OpenAI", []string{"OpenAI"}, []string{"chatgpt.com", "chat.openai.com"}},
	{"Anthropic", []string{"Anthropic"}, []string{"claude.ai"}},
	{"Perplexity", []string{"Perplexity"}, []string{"perplexity.ai"}},
	{"Common Crawl", []string{"Common Crawl"}, nil},
}

// crawlerPlatform is the platform of the crawler (bot ID and name); "" for none.
func crawlerPlatform(operator string) string {
	for _, p := range interimPlatforms {
		for _, o := range p.operators {
			if o == operator {
				return p.name
			}
		}
	}
	return ""
}

// referrerPlatform is the platform one of whose hosts the Referer's host is, exactly or as a
// subdomain; "" for none.
func referrerPlatform(ref []byte) string {
	h := refererHost(ref)
	if h == nil {
		return ""
	}
	host := strings.ToLower(string(h))
	for _, p := range interimPlatforms {
		for _, ph := range p.hosts {
			if host == ph || strings.HasSuffix(host, "."+ph) {
				return p.name
			}
		}
	}
	return ""
}

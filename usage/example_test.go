package usage_test

import (
	"fmt"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/usage"
)

// A server builds its preferences once, at configuration time, and uses the precomputed
// values on every response and in robots.txt.
func Example() {
	// Configuration: Caddyfile arguments, or the JSON object {"train-ai": "n", "search": "y"}.
	site, err := usage.ContentUsage.FromArgs([]string{"train-ai=n", "search=y"})
	if err != nil {
		panic(err)
	}
	_, err = usage.ContentUsage.FromConfig(map[string]string{"train-ia": "y"})
	fmt.Println(configerr.Prefix("preferences", err))

	// HTTP: the route's preferences merged with the backend's Content-Usage field.
	v, err := usage.MergeHeader(site, []string{"train-ai=y, search=n"})
	fmt.Println("Content-Usage:", v, err)
	v, err = usage.MergeHeader(site, []string{"train-ai=y, ai-input=n;src=cms"})
	fmt.Println("Content-Usage:", v, err)
	v, err = usage.MergeHeader(site, []string{"Train-AI=y, Search=n"})
	fmt.Println("Content-Usage:", v, "/", err)

	// robots.txt: format a rule, read one back, combine rules with identical paths.
	open, _ := usage.ContentUsage.FromArgs([]string{"train-ai=y"})
	fmt.Println("Content-Usage:", usage.FormatLine("/open-data/", open))
	path, p, _ := usage.ContentUsage.ParseLine("/open-data/ train-ai=y, search=n # comment")
	fmt.Println(path, p.Get("train-ai"), p.Get("search"), usage.Combine(p, open))

	// Content-Signal, Cloudflare's vocabulary.
	_, cs, _ := usage.ContentSignal.ParseLine("search=yes, ai-input=yes, ai-train=no")
	fmt.Println(cs.Get("ai-train"), cs)

	// Output:
	// preferences["train-ia"] "train-ia": not a Content-Usage key: the keys are train-ai, ai-use, search, and an extension is written +name (did you mean "train-ai"?)
	// Content-Usage: train-ai=n, search=n <nil>
	// Content-Usage: train-ai=n, search=y, ai-input=n;src=cms <nil>
	// Content-Usage: train-ai=n, search=n / Content-Usage value "Train-AI=y, Search=n" is not a Structured Field Dictionary (invalid key format: character 0), so to a reader every preference in it is unknown; its members with the value n are kept, left out "Train-AI=y"
	// Content-Usage: /open-data/ train-ai=y
	// /open-data/ allow disallow train-ai=y, search=n
	// disallow search=yes, ai-input=yes, ai-train=no
}

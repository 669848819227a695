package crawlers_test

import (
	"fmt"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// A robots.txt writer takes the names of a category it may write, and
// leaves the others to User-Agent enforcement.
func ExampleCategory() {
	cs, err := crawlers.Category("ai-training")
	if err != nil {
		panic(err)
	}
	writable, uaOnly := crawlers.RobotsTxtNames(cs)
	fmt.Println(len(cs), "crawlers:", len(writable), "for robots.txt,", len(uaOnly), "for User-Agent matching only")
	for _, c := range cs[:3] {
		fmt.Printf("%s (%s): respects robots.txt: %s, token: %s\n", c.Name, c.Operator, c.Respects, c.Token)
	}
	_, err = crawlers.Category("ai-scrapers")
	fmt.Println(err)
	// Output:
	// 85 crawlers: 73 for robots.txt, 10 for User-Agent matching only
	// AgentTimes (The Agent Times): respects robots.txt: unknown, token: product
	// AI2Bot (Ai2): respects robots.txt: yes, token: digits
	// Ai2Bot-Dolma (Ai2): respects robots.txt: yes, token: digits
	// crawlers: unknown category "ai-scrapers" (known: ai-all, ai-assistants, ai-search, ai-training)
}

func ExampleUAMatcher() {
	cs, _ := crawlers.Category(crawlers.AIAll)
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	m, err := crawlers.NewUAMatcher(names)
	if err != nil {
		panic(err)
	}
	for _, ua := range []string{
		"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 ChatGPT Agent",
		"Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0; SLCC1)",
	} {
		token, ok := m.Match(ua)
		fmt.Printf("%q %v\n", token, ok)
	}
	// Output:
	// "GPTBot" true
	// "ChatGPT Agent" true
	// "" false
}

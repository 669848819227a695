// Command reportlog writes a Combined Log Format access log of synthetic traffic (crawlers of
// the catalogue, browsers, tools; many paths; a few malformed lines) to standard output, for
// bench/report.sh, which reads it with "robots report" and with GoAccess.
//
//	go run ./bench/reportlog -n 2000000 > access.log
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

var agents = []string{
	"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
	"CCBot/2.0 (https://commoncrawl.org/faq/)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
	"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
	"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
	"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
	"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
	"Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
	"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1",
	"curl/8.5.0",
	"python-requests/2.31.0",
}

func main() {
	n := flag.Int("n", 2000000, "lines")
	flag.Parse()
	rnd := rand.New(rand.NewPCG(1, 2))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	t := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	sections := []string{"articles", "news", "search", "private", "tags", "static"}
	for i := range *n {
		t = t.Add(time.Duration(rnd.IntN(2000)) * time.Millisecond)
		if i%50000 == 49999 {
			fmt.Fprintln(w, "\x16\x03\x01 garbage")
			continue
		}
		path := fmt.Sprintf("/%s/%d", sections[rnd.IntN(len(sections))], rnd.IntN(5000))
		if rnd.IntN(50) == 0 {
			path = "/robots.txt"
		}
		// Clients from a pool of 20,000 addresses, as a site's visitors repeat.
		c := rnd.IntN(20000)
		fmt.Fprintf(w, "%d.%d.%d.%d - - [%s] \"GET %s HTTP/1.1\" %d %d \"https://example.com/\" \"%s\"\n",
			10+c%200, c/200, c%7, 1+c%250, t.Format("02/Jan/2006:15:04:05 -0700"),
			path, []int{200, 200, 200, 304, 404}[rnd.IntN(5)], rnd.IntN(60000), agents[rnd.IntN(len(agents))])
	}
}

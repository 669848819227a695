package logreport

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// htmlByText says what an HTML page is and how the section told it: by the logged
// Content-Type, by the path, or both, with how many responses each way.
func (c CrawlToRefer) htmlByText() string {
	by, path := c.HTMLBy.ContentType, c.HTMLBy.Path
	const (
		byType = "by the logged Content-Type (text/html, application/xhtml+xml)"
		byPath = "by path (no extension, .html, .htm; the log has no Content-Type)"
	)
	s := "a GET answered 2xx, told "
	switch {
	case by > 0 && path > 0:
		return s + fmt.Sprintf("%s for %d responses, %s for %d", byType, by, byPath, path)
	case path > 0:
		return s + byPath
	}
	return s + byType
}

// writeCrawlToRefer writes the crawl-to-refer section: a row per platform.
func writeCrawlToRefer(b *strings.Builder, c CrawlToRefer) error {
	if len(c.Platforms) == 0 {
		return nil
	}
	fmt.Fprintf(b, "\nCrawl-to-refer (HTML pages a platform's crawlers fetched per HTML visit its products referred; impostors not counted; an HTML page is %s):\n", c.htmlByText())
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PLATFORM\tCRAWLED\tVERIFIED\tUNVERIFIED\tREFERRED\tRATIO\tCRAWLERS")
	for _, p := range c.Platforms {
		ratio := fmtRatio(p.Ratio)
		if p.Ratio == nil {
			ratio += " (no referrals)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\n", text(p.Name), p.Crawled(), p.Verified, p.Unverified, p.Referrals, ratio, dash(text(strings.Join(p.Crawlers, ", "))))
	}
	return tw.Flush()
}

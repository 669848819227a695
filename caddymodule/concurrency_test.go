package caddymodule

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentRequests sends many requests at once through two overlapping robots_tag
// handlers (pooled response wrappers), encode and file_server, and per-host robots.txt
// renderings, so that the race detector sees the shared core under Caddy's concurrency and
// every response is checked.
func TestConcurrentRequests(t *testing.T) {
	root := exampleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "drafts", "post.html"))
	if err != nil {
		t.Fatal(err)
	}
	startCaddyfile(t, strings.ReplaceAll(`
http://:@PORT@ {
	root * "@ROOT@"
	encode gzip
	robots_txt {
		sitemap /sitemap.xml
		group * {
			disallow /drafts/
		}
	}
	robots_tag nosnippet {
		agent GPTBot noindex
	}
	robots_tag /drafts/* noindex {
		meta
	}
	file_server
}
`, "@ROOT@", root))
	drafts := tagPolicy(t, map[string][]string{"*": {"nosnippet", "noindex"}, "GPTBot": {"noindex"}})
	site := tagPolicy(t, map[string][]string{"*": {"nosnippet"}, "GPTBot": {"noindex"}})

	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan string, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				check := func(ok bool, format string, args ...any) {
					if !ok {
						errs <- fmt.Sprintf(format, args...)
					}
				}
				var req *http.Request
				switch i % 4 {
				case 0:
					req, _ = http.NewRequest("GET", siteURL("/drafts/post.html"), nil)
				case 1:
					req, _ = http.NewRequest("GET", siteURL("/drafts/post.html"), nil)
					req.Header.Set("Accept-Encoding", "gzip")
				case 2:
					req, _ = http.NewRequest("GET", siteURL("/reports/annual-report.pdf"), nil)
				case 3:
					req, _ = http.NewRequest("GET", siteURL("/robots.txt"), nil)
					req.Host = fmt.Sprintf("h%d.example", (w*each+i)%300) // more hosts than the core caches
				}
				resp, err := client.Do(req)
				if err != nil {
					errs <- err.Error()
					continue
				}
				var buf bytes.Buffer
				_, _ = buf.ReadFrom(resp.Body)
				resp.Body.Close()
				body := buf.Bytes()
				check(resp.StatusCode == 200, "%s: status %d", req.URL.Path, resp.StatusCode)
				switch i % 4 {
				case 0, 1:
					if resp.Header.Get("Content-Encoding") == "gzip" {
						body = gunzipBytes(body)
					} else {
						check(resp.Header.Get("Content-Length") == strconv.Itoa(len(body)), "Content-Length %s for %d bytes", resp.Header.Get("Content-Length"), len(body))
					}
					check(resp.Header.Get("Robots-Tag") == drafts.RobotsTag(), "drafts Robots-Tag %q", resp.Header.Get("Robots-Tag"))
					check(bytes.Contains(body, drafts.MetaElements()), "drafts page lacks the meta elements")
					check(len(body) == len(page)+len(drafts.MetaElements()), "drafts page has %d bytes, want %d", len(body), len(page)+len(drafts.MetaElements()))
				case 2:
					check(resp.Header.Get("Robots-Tag") == site.RobotsTag(), "pdf Robots-Tag %q", resp.Header.Get("Robots-Tag"))
					check(!bytes.Contains(body, []byte("<meta")), "pdf was rewritten")
				case 3:
					check(strings.Contains(string(body), "Sitemap: http://"+req.Host+"/sitemap.xml\n"), "robots.txt for %s: %q", req.Host, body)
					check(resp.Header.Get("Robots-Tag") == "", "robots.txt is tagged")
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for e := range errs {
		if n < 10 {
			t.Error(e)
		}
		n++
	}
	if n > 0 {
		t.Errorf("%d failures", n)
	}
}

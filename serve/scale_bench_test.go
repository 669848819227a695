package serve_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
)

// How the cost of a request grows with the config: docs/BENCHMARKS.md "How cost grows".

// discardWriter keeps nothing but headers, so the benchmarks measure the core.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

var nopNext = serve.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error { return nil })

// scaleRoutes is n robots_tag routes of one shape: "dir" (/secN/*) or "ext" (*.extN).
func scaleRoutes(n int, shape string) []policy.Route {
	routes := make([]policy.Route, n)
	for i := range routes {
		p := fmt.Sprintf("/sec%d/*", i)
		if shape == "ext" {
			p = fmt.Sprintf("*.ext%d", i)
		}
		routes[i] = policy.Route{Paths: []string{p}, Tags: policy.Tags{Rules: map[string][]string{"*": {"noindex"}}}}
	}
	return routes
}

func scalePath(shape string, i int) string {
	if shape == "ext" {
		return fmt.Sprintf("/files/report.ext%d", i)
	}
	return fmt.Sprintf("/sec%d/page", i)
}

// BenchmarkRoutesScale: one request matching the first route, the last, or none, of n routes.
func BenchmarkRoutesScale(b *testing.B) {
	for _, shape := range []string{"dir", "ext"} {
		for _, n := range []int{1, 10, 100, 1000, 10000} {
			core, err := serve.New(policy.Config{RobotsTag: scaleRoutes(n, shape)}, serve.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range []struct{ name, path string }{
				{"first", scalePath(shape, 0)}, {"last", scalePath(shape, n-1)}, {"none", "/other/page.html"},
			} {
				b.Run(fmt.Sprintf("%s/n=%d/%s", shape, n, c.name), func(b *testing.B) {
					r := httptest.NewRequest("GET", c.path, nil)
					w := &discardWriter{h: http.Header{}}
					b.ReportAllocs()
					for b.Loop() {
						clear(w.h)
						_ = core.Tag(w, r, nopNext)
					}
				})
			}
		}
	}
}

// BenchmarkNewRoutes10000 is the load-time cost of 10,000 routes (B/op is the memory the
// config takes to build, most of which it keeps).
func BenchmarkNewRoutes10000(b *testing.B) {
	for _, shape := range []string{"dir", "ext"} {
		routes := scaleRoutes(10000, shape)
		b.Run(shape, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := serve.New(policy.Config{RobotsTag: routes}, serve.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGroupsScale: robots.txt with n groups, each for a crawler of its own: serving the
// file, and enforcement deciding a request from the last group's crawler and from a browser.
func BenchmarkGroupsScale(b *testing.B) {
	for _, n := range []int{1, 10, 100, 1000, 10000} {
		groups := make([]robotsgen.Group, n)
		for i := range groups {
			groups[i] = robotsgen.Group{UserAgents: []string{fmt.Sprintf("ScaleBot%d", i)}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: fmt.Sprintf("/sec%d/", i)}}}
		}
		core, err := serve.New(policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: groups, Enforce: &policy.Enforce{}}}, serve.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct{ name, ua, path string }{
			{"robots.txt", "Mozilla/5.0", "/robots.txt"},
			{"enforce-crawler", fmt.Sprintf("Mozilla/5.0 (compatible; ScaleBot%d/1.0)", n-1), fmt.Sprintf("/sec%d/x", n-1)},
			{"enforce-browser", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36", "/sec0/x"},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				r := httptest.NewRequest("GET", c.path, nil)
				r.Header.Set("User-Agent", c.ua)
				w := &discardWriter{h: http.Header{}}
				if c.name == "enforce-crawler" {
					if _, blocked := core.Enforce(r); !blocked {
						b.Fatal("the last group's crawler is not refused")
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if c.name == "robots.txt" {
						clear(w.h)
						_ = core.ServeRobotsTxt(w, r, nil)
					} else {
						core.Enforce(r)
					}
				}
			})
		}
	}
}

package nethttp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// A Go web app serving robots.txt, a Robots-Tag header on drafts, and meta elements in draft
// pages, from one config.
func ExampleNew() {
	mw, err := nethttp.New(nethttp.Config{
		RobotsTxt: &nethttp.RobotsTxtConfig{
			Groups: []robotsgen.Group{
				{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
				{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}},
			},
		},
		RobotsTag: []nethttp.Route{{
			Paths: []string{"/drafts/*"},
			Tags:  nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex", "nosnippet"}}, Meta: true},
		}},
	}, nethttp.Options{})
	if err != nil {
		panic(err)
	}
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html><head><title>Draft</title></head><body>…</body></html>")
	})
	srv := httptest.NewServer(mw.Handler(app))
	defer srv.Close()

	resp, _ := http.Get(srv.URL + "/robots.txt")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(string(body))

	resp, _ = http.Get(srv.URL + "/drafts/post")
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("Robots-Tag:", resp.Header.Get("Robots-Tag"))
	fmt.Println(strings.Contains(string(body), `<head><meta name="robots" content="noindex, nosnippet">`))
	// Output:
	// User-agent: GPTBot
	// Disallow: /
	//
	// User-agent: *
	// Disallow: /admin/
	// Robots-Tag: *;noindex;nosnippet
	// true
}

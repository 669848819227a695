package serve_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
)

// A front end builds one Core and runs its pipeline from its handler: robots.txt first, then
// enforcement, then the tags of the routes that apply.
func ExampleNew() {
	core, err := serve.New(policy.Config{
		RobotsTxt: &policy.RobotsTxt{
			Groups: []robotsgen.Group{
				{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
				{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}},
			},
			Enforce: &policy.Enforce{},
		},
		RobotsTag: []policy.Route{
			{Paths: []string{"/drafts/*"}, Tags: policy.Tags{Rules: map[string][]string{"*": {"noindex"}}}},
		},
	}, serve.Options{})
	if err != nil {
		log.Fatal(err) // every problem, each a *configerr.Error with its field path
	}
	defer core.Close()

	backend := serve.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, err := fmt.Fprintln(w, "page")
		return err
	})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = core.ServeHTTP(w, r, backend) // errors are written (Options.Error: serve.WriteError)
	})

	for _, c := range []struct{ path, ua string }{
		{"/robots.txt", ""},
		{"/drafts/post", "Mozilla/5.0"},
		{"/article", "Mozilla/5.0 (compatible; GPTBot/1.2)"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "http://example.com"+c.path, nil)
		req.Header.Set("User-Agent", c.ua)
		handler.ServeHTTP(rec, req)
		fmt.Printf("%s: %d Robots-Tag=%q\n%s", c.path, rec.Code, rec.Header().Get("Robots-Tag"), rec.Body)
	}
	// Output:
	// /robots.txt: 200 Robots-Tag=""
	// User-agent: GPTBot
	// Disallow: /
	//
	// User-agent: *
	// Disallow: /admin/
	// /drafts/post: 200 Robots-Tag="*;noindex"
	// page
	// /article: 403 Robots-Tag=""
	// 403 Forbidden: robots.txt disallows this path for GPTBot (Disallow: /)
}

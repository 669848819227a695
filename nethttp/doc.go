// Package nethttp is the net/http front end of caddy-robots: a middleware that serves
// /robots.txt and sets the Robots-Tag header (and, per route, robots meta elements and the
// legacy X-Robots-Tag header) on the responses of the handler it wraps. It runs the same core
// as the Caddy module, and its JSON is the Caddy handlers' JSON, so a config moves between the
// two unchanged. It depends only on the standard library, httpsfv and x/net.
//
// The whole API in one program:
//
//	mw, err := nethttp.New(nethttp.Config{
//		RobotsTxt: &nethttp.RobotsTxtConfig{
//			Groups: []robotsgen.Group{
//				{UserAgents: []string{"GPTBot", "CCBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
//				{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}},
//			},
//			Sitemaps: []string{"/sitemap.xml"}, // resolved against each request's scheme and host
//			MaxAge:   nethttp.Duration(2 * time.Hour),
//		},
//		RobotsTag: []nethttp.Route{
//			{Paths: []string{"*.pdf"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}}},
//			{Paths: []string{"/drafts/*"}, Tags: nethttp.TagConfig{
//				Rules:      map[string][]string{"*": {"noindex", "nosnippet"}, "GPTBot": {"noarchive"}},
//				Meta:       true, // <meta name="robots"> in HTML pages too
//				XRobotsTag: true, // and the legacy X-Robots-Tag header
//			}},
//		},
//	}, nethttp.Options{Logger: slog.Default()})
//	if err != nil {
//		log.Fatal(err) // every problem, named by its field path
//	}
//	http.ListenAndServe(":8080", mw.Handler(http.FileServer(http.Dir("site"))))
//
// NewFromJSON reads the same Config from JSON. Errors are *configerr.Error values (joined),
// each naming the field, e.g. robots_tag[1].rules["*"][0].
package nethttp

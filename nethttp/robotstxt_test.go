package nethttp_test

import (
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// siteRobots is the robots.txt config of the tests that serve one through the middleware (how
// robots.txt itself is served is tested in package serve, against its Core).
var siteRobots = &nethttp.RobotsTxtConfig{
	Groups: []robotsgen.Group{
		{UserAgents: []string{"GPTBot", "CCBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/drafts/"}}},
	},
	Sitemaps: []string{"/sitemap.xml"},
}

// siteFile is the file siteRobots describes, for comparing what is served.
var siteFile = robotsgen.File{Groups: siteRobots.Groups, Sitemaps: siteRobots.Sitemaps}

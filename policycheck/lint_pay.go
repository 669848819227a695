package policycheck

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// The lints of pay per crawl (robots_txt's pay, policy.Pay): a price nobody will ever be
// asked, and a price that another statement of the site contradicts.
const (
	// LintPriceDisallowed: a price for a crawler at paths robots.txt disallows it: a crawler
	// that obeys robots.txt never fetches them, so it is never asked to pay (and with
	// enforce it is refused before the price is asked).
	LintPriceDisallowed = "price-disallowed"
	// LintPriceUnverifiable: a price for a crawler that nothing can verify (the catalogue
	// publishes no address list, host name or address for it, and the site trusts no Web
	// Bot Auth agent for it): only a verified crawler is asked to pay, so it never is.
	LintPriceUnverifiable = "price-unverifiable"
	// LintPriceLicense: a price for content whose RSL license prohibits the use the crawler
	// fetches for (ai-train for an AI training crawler, ai-input for an assistant's). A
	// license whose payment disagrees with a price (another type than crawl for priced
	// content, or crawl for content no price covers) is a config error: serve.New refuses
	// it, and lint reports that error.
	LintPriceLicense = "price-license"
)

// pricedCrawler is a crawler a price names, directly or through a preset.
type pricedCrawler struct {
	name string
	// bot is its entry of the bot catalogue, "" for a crawler only the AI catalogue knows.
	bot string
}

// pricedCrawlers are the crawlers price pr charges, named as the catalogues spell them, in
// order, each once.
func pricedCrawlers(pr *policy.Price) []pricedCrawler {
	var out []pricedCrawler
	seen := map[string]bool{}
	add := func(name string) {
		if seen[strings.ToLower(name)] {
			return
		}
		seen[strings.ToLower(name)] = true
		out = append(out, pricedCrawler{name: name, bot: botOfName(name)})
	}
	var presets []string
	for _, c := range pr.Crawlers {
		if cat, ok := strings.CutPrefix(c, "preset:"); ok {
			presets = append(presets, cat)
		} else if n, ok := policy.PricedName(c); ok {
			add(n)
		}
	}
	if len(presets) > 0 {
		for _, c := range crawlers.PresetCrawlers(presets, pr.Except) {
			add(c.Name)
		}
	}
	return out
}

// botOfName is the bot catalogue's entry of a crawler name (crawlers.BotNames), "" for none.
func botOfName(name string) string { return botIDs()[strings.ToLower(name)] }

// botIDs maps the names of the bot catalogue, lower case, to their entries (the first of
// several): made once, since crawlers.BotNames builds the whole list at each call.
var botIDs = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, bn := range crawlers.BotNames() {
		if k := strings.ToLower(bn.Name); m[k] == "" {
			m[k] = bn.ID
		}
	}
	return m
})

// pricePaths are sample paths of the content a price charges for (samplePath of each
// pattern): its paths, else its license's content, else "/".
func (l *linter) pricePaths(pr *policy.Price) []string {
	patterns := pr.Paths
	if len(patterns) == 0 && pr.License != "" {
		for _, d := range l.site.RobotsTxt.Config.LicenseDocuments {
			if d.Path != pr.License {
				continue
			}
			for _, c := range d.Content {
				p := c.URL
				if u, err := url.Parse(p); err == nil && u.Scheme != "" {
					p = u.EscapedPath()
				}
				patterns = append(patterns, p)
			}
		}
	}
	var out []string
	for _, p := range patterns {
		if s, ok := samplePath(p); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(patterns) == 0 {
		out = append(out, "/")
	}
	return out
}

// prices runs the pay lints on each price of the config.
func (l *linter) prices() {
	pay := l.site.RobotsTxt.Config.Pay
	if pay == nil {
		return
	}
	for i := range pay.Prices {
		pr := &pay.Prices[i]
		at := configerr.Index("pay.prices", i)
		cs := pricedCrawlers(pr)
		paths := l.pricePaths(pr)
		l.priceDisallowed(at, pr, cs, paths)
		l.priceUnverifiable(at, pr, cs)
		l.priceLicense(at, pr, cs, paths)
	}
}

// priceDisallowed reports the crawlers of a price that robots.txt disallows at one of the
// paths it charges for, once per path.
func (l *linter) priceDisallowed(at string, pr *policy.Price, cs []pricedCrawler, paths []string) {
	for _, p := range paths {
		var names []string
		var rule string
		for _, c := range cs {
			if !crawlers.IsToken(c.name) {
				// Never written to robots.txt: no group decides it.
				continue
			}
			if d := l.m.Decide(c.name, "", p); !d.Allowed {
				names = append(names, c.name)
				if rule == "" && d.Rule != nil {
					rule = fmt.Sprintf(" (%s: %s)", d.Rule.Type, d.Rule.Path)
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		then := "a crawler that obeys robots.txt never fetches it, so it is never asked to pay"
		if l.site.RobotsTxt.Config.Enforce != nil {
			then += ", and enforce refuses one that does before the price is asked"
		}
		l.add(LintPriceDisallowed, SeverityWarning, l.robotsAt(at),
			"allow these crawlers the priced paths in robots.txt (the price is what lets them in), or take them out of the price",
			"the price %s charges %s for %s, which robots.txt disallows them%s: %s", pr.Amount, crawlerList(names), p, rule, then)
	}
}

// priceUnverifiable reports the crawlers of a price that nothing can verify.
func (l *linter) priceUnverifiable(at string, pr *policy.Price, cs []pricedCrawler) {
	var names []string
	for _, c := range cs {
		if !l.verifiable(c) {
			names = append(names, c.name)
		}
	}
	if len(names) == 0 {
		return
	}
	l.add(LintPriceUnverifiable, SeverityWarning, l.robotsAt(at+".crawlers"),
		"take them out of the price, or trust their operator's Web Bot Auth agent (signature_agent) if they sign their requests",
		"the price %s charges %s, which nothing can verify (the catalogue publishes no address list or host names for them, and the site trusts no signature agent for them): only a verified crawler is asked to pay, so they never are, and fetch as the rest of the policy says", pr.Amount, crawlerList(names))
}

// verifiable reports whether a crawler's claim can be proven: by its catalogue entry's
// published addresses or host names, or by a Web Bot Auth agent the site trusts for it.
func (l *linter) verifiable(c pricedCrawler) bool {
	if c.bot == "" {
		return false
	}
	if b, ok := crawlers.BotByID(c.bot); ok {
		v := b.Verification
		if len(v.IPRanges)+len(v.HostMasks)+len(v.IPs) > 0 {
			return true
		}
	}
	return l.site.Signatures != nil && l.site.Signatures.TrustsBot(c.bot)
}

// categoryUses are the uses a crawler of a category of the AI catalogue fetches for.
var categoryUses = []struct {
	category string
	use      use
}{{crawlers.AITraining, useTrain}, {crawlers.AIAssistants, useAIInput}}

// priceLicense reports, at each path a price charges for, an RSL license content element
// (the longest pattern matching the path, as crawlers read it) which prohibits the use a
// crawler of the price fetches for.
func (l *linter) priceLicense(at string, pr *policy.Price, cs []pricedCrawler, paths []string) {
	for _, p := range paths {
		for di, d := range l.site.RobotsTxt.Config.LicenseDocuments {
			ci := licenseContentAt(d.Content, p)
			if ci < 0 {
				continue
			}
			c := d.Content[ci]
			cat := configerr.Index(configerr.Index("license_documents", di)+".content", ci)
			var names []string
			var prohibited string
			for _, pc := range cs {
				cr, ok := crawlers.Lookup(pc.name)
				if !ok {
					continue
				}
				for _, cu := range categoryUses {
					if !cr.In(cu.category) {
						continue
					}
					for _, v := range c.Prohibits {
						if slices.Contains(rslUses[v], cu.use) && !slices.Contains(names, pc.name) {
							names = append(names, pc.name)
							prohibited = v
						}
					}
				}
			}
			if len(names) > 0 {
				l.add(LintPriceLicense, SeverityWarning, l.robotsAt(cat+".prohibits"),
					"take them out of the price, or permit the use in the license: selling a crawl for a use the license prohibits says two things",
					"the price %s sells crawls of %s to %s, while the RSL license %s prohibits %s there, the use they fetch for", pr.Amount, p, crawlerList(names), d.Path, prohibited)
			}
		}
	}
}

// licenseContentAt is the index of the content element of a license document whose URL (a
// path pattern, or an absolute URL read as its path) is the longest to match path; -1 for
// none.
func licenseContentAt(content []rsl.Content, path string) int {
	best, size := -1, -1
	for ci, c := range content {
		p := c.URL
		if u, err := url.Parse(p); err == nil && u.Scheme != "" {
			p = u.EscapedPath()
			if p == "" {
				p = "/"
			}
		}
		if g, ok := robotsGlob(p); ok && covers(g, path) && len(p) > size {
			best, size = ci, len(p)
		}
	}
	return best
}

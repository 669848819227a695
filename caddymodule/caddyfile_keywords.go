package caddymodule

import (
	"fmt"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

// The sub-directives of each block of the two directives. The switches of the parsers accept
// exactly these (TestSubdirectiveLists reads the switches), README.md's syntax summary lists
// them (TestREADMESyntaxSummary), and an unknown one is refused with the list.
var (
	robotsTxtSubdirectives = []string{"comment", "sitemap", "group", "preset", "record", "max_age", "enforce", "merge_file", "merge_upstream", "license", "license_document", "pay", "metrics", "log_violations"}
	groupSubdirectives     = []string{"user_agent", "preset", "except", "purpose", "allow", "disallow", "crawl_delay", "record", "content_usage", "content_signal"}
	robotsTagSubdirectives = []string{"agent", "preset", "except", "meta", "x_robots_tag", "content_usage", "license", "tdm"}
	enforceSubdirectives   = []string{"impostors", "accept_signature", "crawl_delay"}
	// The blocks of license_document and of its content elements (RSL documents).
	licenseDocumentSubdirectives = []string{"content"}
	licenseContentSubdirectives  = []string{"permits", "prohibits", "payment", "standard", "custom"}
	crawlersSubdirectives        = []string{"lists", "list_file", "lists_dir", "refresh", "max_age", "fetch_timeout", "reverse_dns", "dns_timeout", "dns_wait", "dns_max_in_flight", "dns_resolver", "signature_agent", "signatures_fetch_untrusted", "signatures_replay_protection", "signatures_skew", "signatures_max_validity", "store"}
)

// A block of the Caddyfile syntax, for unknownSubdirective.
const (
	inRobotsTxt = iota
	inGroup
	inRobotsTag
)

// unknownSubdirective is the error for the sub-directive on the current line, which block
// does not accept; what prefixes the message ("robots_txt", "robots_txt: group"). It lists
// the block's sub-directives and suggests the closest name. A name (or the closest name)
// that belongs to another block says where it goes, with the line as written: people put
// disallow at the top of robots_txt, sitemap inside a group, and robots.txt rules in
// robots_tag.
func unknownSubdirective(d *caddyfile.Dispenser, block int, what string) error {
	sub := d.Val()
	line := strings.Join(append([]string{sub}, d.RemainingArgs()...), " ")
	own := [...][]string{robotsTxtSubdirectives, groupSubdirectives, robotsTagSubdirectives}[block]
	var others []string
	for b, list := range [...][]string{robotsTxtSubdirectives, groupSubdirectives, robotsTagSubdirectives} {
		if b != block {
			for _, k := range list {
				if !slices.Contains(own, k) && !slices.Contains(others, k) {
					others = append(others, k)
				}
			}
		}
	}
	if slices.Contains(others, sub) {
		return parseErrorf(d, sub, "", "%s: %s", what, elsewhere(block, sub, line))
	}
	want := strings.Join(own[:len(own)-1], ", ") + " or " + own[len(own)-1]
	msg := fmt.Sprintf("%s: unknown sub-directive %q (want %s)", what, sub, want)
	if block == inRobotsTag && isRule(sub) {
		return parseErrorf(d, sub, "", "%s; %s is a rule: rules for every accessor go on the directive's line (robots_tag [<matcher>] %s ...), and rules for one crawler in the block as agent <token> %s", msg, sub, sub, sub)
	}
	// Names are lower case with "_"; "max-age", "Disallow" and "contentusage" are near misses.
	c := configerr.Closest(strings.ToLower(sub), append(slices.Clone(own), others...))
	switch {
	case c == "":
		return parseErrorf(d, sub, "", "%s", msg)
	case slices.Contains(own, c):
		return parseErrorf(d, sub, c, "%s (did you mean %q?)", msg, c)
	}
	return parseErrorf(d, sub, c, "%s (did you mean %q? %s)", msg, c, elsewhere(block, c, c+strings.TrimPrefix(line, sub)))
}

// elsewhere says where sub, a sub-directive of another block than block, goes; line is the
// line as it would be written there.
func elsewhere(block int, sub, line string) string {
	inTxt, inGrp := slices.Contains(robotsTxtSubdirectives, sub), slices.Contains(groupSubdirectives, sub)
	switch {
	case block == inRobotsTxt && sub == "except":
		return exceptElsewhere(line)
	case block == inRobotsTxt && inGrp:
		return fmt.Sprintf("%s goes inside a group, which names the crawlers it applies to: e.g. for every crawler, a line %q, then %q, then %q", sub, "group * {", line, "}")
	case block == inGroup && sub == "group":
		return `groups do not nest: close this group with "}" first, then start the next one in robots_txt's block`
	case block == inGroup && inTxt:
		return fmt.Sprintf("%s applies to the whole robots.txt, not to one group: put %q in robots_txt's block, after this group's closing \"}\"", sub, line)
	case block == inRobotsTag && (inTxt || inGrp):
		where := "a group of robots_txt (group * { ... } for every crawler)"
		if inTxt {
			where = "robots_txt's block"
		}
		return fmt.Sprintf("%s is a robots.txt sub-directive, and robots_tag sets response headers: put %q in %s", sub, line, where)
	}
	// A robots_tag sub-directive in robots_txt or a group.
	return fmt.Sprintf("%s is a robots_tag sub-directive, which sets response headers: put %q in a robots_tag block", sub, line)
}

// notInBlock is the error for the sub-directive on the current line in a block that takes
// only list (what names the block), with the closest name of list when one is close.
func notInBlock(d *caddyfile.Dispenser, what string, list []string) error {
	sub := d.Val()
	msg := fmt.Sprintf("%s takes %s (got %q)", what, strings.Join(list, ", "), sub)
	if c := configerr.Closest(strings.ToLower(sub), list); c != "" {
		return parseErrorf(d, sub, c, "%s (did you mean %q?)", msg, c)
	}
	return parseErrorf(d, sub, "", "%s", msg)
}

// exceptElsewhere says where an except line written at the top of robots_txt goes: in a
// preset block, whose crawlers it leaves out (a group without a preset refuses it). The
// example block is ai-all, which holds every crawler of the catalogue, so it loads with any
// names the line holds that are the catalogue's.
func exceptElsewhere(line string) string {
	const does = "except goes inside a preset block, and leaves crawlers out of the block's categories"
	names := strings.Fields(strings.TrimPrefix(line, "except"))
	for _, n := range names {
		if _, ok := crawlers.Lookup(n); !ok {
			return fmt.Sprintf("%s; %q is not a crawler of the AI catalogue, which presets are made of, so there is nothing to leave it out of: to give it rules of its own, name it in a group", does, n)
		}
	}
	if len(names) == 0 {
		return does
	}
	return fmt.Sprintf("%s: put it in the preset block it belongs to (before or after the block's rules), e.g. for every AI crawler of the catalogue, a line %q, then %q, then %q", does, "preset "+crawlers.AIAll+" {", line, "}")
}

// isRule reports whether s is a Robots-Tag rule (noindex, max-snippet=5).
func isRule(s string) bool {
	_, err := tagemit.NewPolicy(map[string][]string{tagemit.GlobalToken: {s}})
	return err == nil
}

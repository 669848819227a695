package caddymodule

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

// init registers the Caddyfile directives and their place in Caddy's directive order, so that a
// Caddyfile needs no "order" global option:
//
//   - robots_txt runs right after redir (and so before method, rewrite, uri, try_files,
//     basic_auth, forward_auth, encode and every handler that writes a response). A redir
//     the site configures (a canonical host, http to https) still applies to /robots.txt,
//     and so do the response headers set by header, which runs earlier. But nothing that
//     runs later can divert the request: rewrite, uri and try_files cannot send /robots.txt
//     to another file or to the application, method cannot turn a GET into something else,
//     and authentication cannot hide the file from crawlers, which never log in. Because it
//     runs before encode, robots.txt is sent uncompressed; it is small, and crawlers
//     support that best.
//   - robots_tag runs right after encode (and so before push, intercept, templates, the
//     handle/route blocks and every responder). encode then wraps it: the meta elements
//     are inserted into the uncompressed HTML and encode compresses the result. Everything
//     that produces a response, including templates, error pages from intercept,
//     reverse_proxy, php_fastcgi, respond and file_server, runs inside it, so its
//     responses carry the header.
func init() {
	httpcaddyfile.RegisterHandlerDirective("robots_txt", parseRobotsTxt)
	httpcaddyfile.RegisterDirectiveOrder("robots_txt", httpcaddyfile.After, "redir")
	httpcaddyfile.RegisterHandlerDirective("robots_tag", parseRobotsTag)
	httpcaddyfile.RegisterDirectiveOrder("robots_tag", httpcaddyfile.After, "encode")
}

func parseRobotsTxt(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(RobotsTxt)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

func parseRobotsTag(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(RobotsTag)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	robots_txt [<matcher>] {
//		comment <text>...             # a "# text" line at the top; repeatable
//		sitemap <url>                 # repeatable; an absolute http(s) URL, or a path such as
//		                              # /sitemap.xml resolved against the request's scheme and host
//		group [<user-agent>...] {     # one group; the arguments are product tokens (* = all)
//			user_agent <token>...     # more User-agent lines (same as the arguments)
//			purpose    <token>...     # User-Agent-Purpose lines
//			allow      <pattern>...   # Allow lines, in order
//			disallow   <pattern>...   # Disallow lines, in order
//			crawl_delay <seconds>     # Crawl-delay (a number >= 0)
//			record <key> <value>      # any other record inside this group
//		}
//		record <key> <value>          # a file-level other record, e.g. Host
//		max_age <duration>            # Cache-Control max-age of robots.txt (default 1h)
//	}
//
// Without a block the file is empty, which allows everything. Each value is checked as it is
// read, so an error names its line; values with {placeholders} are checked when the config is
// provisioned, after the global placeholders ({env.*}, ...) are replaced.
func (h *RobotsTxt) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	file, line := d.File(), d.Line()
	if d.NextArg() {
		return d.Errf("robots_txt: unexpected argument %q: the directive takes only a matcher; configure the file in a block", d.Val())
	}
	var haveMaxAge bool
	for d.NextBlock(0) {
		sub := d.Val()
		switch sub {
		case "comment":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.Errf("robots_txt: comment needs the text of the comment line")
			}
			c := strings.Join(args, " ")
			if err := checkFile(d, "comment", robotsgen.File{Comments: []string{c}}, c); err != nil {
				return err
			}
			h.Comments = append(h.Comments, c)
		case "sitemap":
			s, err := oneArg(d, "robots_txt: sitemap takes one absolute URL or one path such as /sitemap.xml")
			if err != nil {
				return err
			}
			if err := checkFile(d, "sitemap", robotsgen.File{Sitemaps: []string{s}}, s); err != nil {
				return err
			}
			h.Sitemaps = append(h.Sitemaps, s)
		case "record":
			r, err := parseRecord(d, "robots_txt: record")
			if err != nil {
				return err
			}
			if err := checkFile(d, "record", robotsgen.File{Records: []robotsgen.Record{r}}, r.Key, r.Value); err != nil {
				return err
			}
			h.Records = append(h.Records, r)
		case "max_age":
			if haveMaxAge {
				return d.Errf("robots_txt: max_age given twice")
			}
			haveMaxAge = true
			s, err := oneArg(d, "robots_txt: max_age takes one duration, e.g. 1h or 1d")
			if err != nil {
				return err
			}
			v, err := nethttp.ParseDuration(s)
			if err != nil {
				return d.Errf("robots_txt: max_age: %v", err)
			}
			if v < time.Second {
				return d.Errf("robots_txt: max_age %q: must be at least 1s (robots.txt is served with Cache-Control max-age in whole seconds; leave max_age out for the default of %s)", s, nethttp.DefaultRobotsTxtMaxAge)
			}
			if v > nethttp.MaxRobotsTxtMaxAge {
				return d.Errf("robots_txt: max_age %q: at most 24h: crawlers should not use a robots.txt cached longer (RFC 9309 §2.4)", s)
			}
			h.MaxAge = nethttp.Duration(v)
		case "group":
			g, err := parseGroup(d)
			if err != nil {
				return err
			}
			h.Groups = append(h.Groups, g)
		default:
			return d.Errf("robots_txt: unknown sub-directive %q (want comment, sitemap, group, record or max_age)", sub)
		}
	}
	// Each value was checked on its own; the file as a whole (its size) is checked here, at
	// the directive's line. With placeholders the check waits for Provision.
	if !fileHasPlaceholder(&h.File) {
		if err := h.File.Validate(); err != nil {
			return fmt.Errorf("robots_txt: %s, at %s:%d", describe(err), file, line)
		}
	}
	return nil
}

// parseGroup reads "group [<user-agent>...] { ... }"; the cursor is on "group".
func parseGroup(d *caddyfile.Dispenser) (robotsgen.Group, error) {
	var g robotsgen.Group
	file, line := d.File(), d.Line()
	addAgents := func(what string, tokens []string) error {
		for _, ua := range tokens {
			if err := checkFile(d, what, robotsgen.File{Groups: []robotsgen.Group{{UserAgents: []string{ua}}}}, ua); err != nil {
				return err
			}
			g.UserAgents = append(g.UserAgents, ua)
		}
		return nil
	}
	if err := addAgents("group: user agent", d.RemainingArgs()); err != nil {
		return g, err
	}
	var haveDelay bool
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		switch sub {
		case "user_agent":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return g, d.Errf("robots_txt: group: user_agent needs at least one product token, e.g. GPTBot or *")
			}
			if err := addAgents("user_agent", args); err != nil {
				return g, err
			}
		case "purpose":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return g, d.Errf("robots_txt: group: purpose needs at least one purpose token")
			}
			for _, p := range args {
				if err := checkFile(d, "purpose", robotsgen.File{Groups: []robotsgen.Group{{Purposes: []string{p}}}}, p); err != nil {
					return g, err
				}
				g.Purposes = append(g.Purposes, p)
			}
		case "allow", "disallow":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return g, d.Errf("robots_txt: group: %s needs at least one path pattern, e.g. /private/", sub)
			}
			typ := robotsgen.Allow
			if sub == "disallow" {
				typ = robotsgen.Disallow
			}
			for _, p := range args {
				r := robotsgen.Rule{Type: typ, Path: p}
				if err := checkFile(d, sub, robotsgen.File{Groups: []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{r}}}}, p); err != nil {
					return g, err
				}
				g.Rules = append(g.Rules, r)
			}
		case "crawl_delay":
			if haveDelay {
				return g, d.Errf("robots_txt: group: crawl_delay given twice")
			}
			haveDelay = true
			s, err := oneArg(d, "robots_txt: group: crawl_delay takes one number of seconds")
			if err != nil {
				return g, err
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return g, d.Errf("robots_txt: group: crawl_delay %q: want a number of seconds >= 0, e.g. 10 or 0.5", s)
			}
			g.CrawlDelay = v
		case "record":
			r, err := parseRecord(d, "robots_txt: group: record")
			if err != nil {
				return g, err
			}
			if strings.EqualFold(r.Key, "host") {
				return g, d.Errf("robots_txt: group: record %s: Host is a file-level record; write it in the robots_txt block, outside any group", r.Key)
			}
			if err := checkFile(d, "record", robotsgen.File{Groups: []robotsgen.Group{{UserAgents: []string{"*"}, Records: []robotsgen.Record{r}}}}, r.Key, r.Value); err != nil {
				return g, err
			}
			g.Records = append(g.Records, r)
		default:
			return g, d.Errf("robots_txt: group: unknown sub-directive %q (want user_agent, purpose, allow, disallow, crawl_delay or record)", sub)
		}
	}
	if len(g.UserAgents) == 0 && len(g.Purposes) == 0 {
		return g, fmt.Errorf("robots_txt: group names no crawler: give product tokens as arguments (group GPTBot CCBot) or user_agent/purpose lines in its block, at %s:%d", file, line)
	}
	return g, nil
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	robots_tag [<matcher>] [<rule>...] {   # inline rules apply to every accessor (*)
//		agent <token> <rule>...            # rules for one product token, or *; repeatable
//		meta                               # also add <meta> elements to HTML responses
//		x_robots_tag                       # also send the legacy X-Robots-Tag header
//	}
//
// A rule is a name such as noindex, nosnippet, nofollow, none, noarchive, noimageindex, or
// name=value: max-snippet=50, max-image-preview=large, unavailable_after=2027-01-01T00:00:00Z.
// The block is optional ("robots_tag /drafts/* noindex" is complete), but at least one rule is
// required. Each token and rule is checked as it is read, so an error names its line; values
// with {placeholders} are checked when the config is provisioned.
func (h *RobotsTag) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	file, line := d.File(), d.Line()
	add := func(tok string, rules []string) error {
		checkTok := tok
		if strings.Contains(tok, "{") {
			checkTok = tagemit.GlobalToken // the token waits for Provision; the rules need not
		} else if _, err := tagemit.NewPolicy(map[string][]string{tok: nil}); err != nil {
			return d.Errf("robots_tag: %s", describe(err))
		}
		for _, rule := range rules {
			if strings.HasPrefix(rule, "*") || strings.HasPrefix(rule, "/") {
				return d.Errf("robots_tag: %q is not a rule but looks like a path pattern: Caddy reads only *, /path or @name as the matcher of a directive; for other patterns define a named matcher, e.g. @pdf path *.pdf, then robots_tag @pdf noindex", rule)
			}
			if !strings.Contains(rule, "{") {
				if _, err := tagemit.NewPolicy(map[string][]string{checkTok: {rule}}); err != nil {
					return d.Errf("robots_tag: rule %q: %s", rule, describe(err))
				}
			}
			if h.Rules == nil {
				h.Rules = make(map[string][]string)
			}
			h.Rules[tok] = append(h.Rules[tok], rule)
		}
		return nil
	}
	if err := add(tagemit.GlobalToken, d.RemainingArgs()); err != nil {
		return err
	}
	var haveMeta, haveXRT bool
	for d.NextBlock(0) {
		sub := d.Val()
		switch sub {
		case "agent":
			args := d.RemainingArgs()
			if len(args) < 2 {
				return d.Errf("robots_tag: agent takes a product token (or *) and at least one rule, e.g. agent GPTBot noindex")
			}
			if err := add(args[0], args[1:]); err != nil {
				return err
			}
		case "meta", "x_robots_tag":
			if d.NextArg() {
				return d.Errf("robots_tag: %s takes no arguments, got %q", sub, d.Val())
			}
			if d.NextBlock(d.Nesting()) {
				return d.Errf("robots_tag: %s takes no block", sub)
			}
			if sub == "meta" {
				if haveMeta {
					return d.Errf("robots_tag: meta given twice")
				}
				haveMeta, h.Meta = true, true
			} else {
				if haveXRT {
					return d.Errf("robots_tag: x_robots_tag given twice")
				}
				haveXRT, h.XRobotsTag = true, true
			}
		default:
			return d.Errf("robots_tag: unknown sub-directive %q (want agent, meta or x_robots_tag); rules for every accessor go on the directive's line", sub)
		}
	}
	if len(h.Rules) == 0 {
		return fmt.Errorf("robots_tag: no rules: give rules on the directive's line (robots_tag noindex) or in agent lines, at %s:%d", file, line)
	}
	// Each rule was checked on its own; the whole policy (its serialised size) is checked
	// here, at the directive's line. With placeholders the check waits for Provision.
	if !rulesHavePlaceholder(h.Rules) {
		if _, err := tagemit.NewPolicy(h.Rules); err != nil {
			return fmt.Errorf("robots_tag: %s, at %s:%d", describe(err), file, line)
		}
	}
	return nil
}

// oneArg reads exactly one argument on the current line and no block.
func oneArg(d *caddyfile.Dispenser, usage string) (string, error) {
	args := d.RemainingArgs()
	if len(args) != 1 {
		return "", d.Errf("%s (got %d arguments)", usage, len(args))
	}
	if d.NextBlock(d.Nesting()) {
		return "", d.Errf("%s; it takes no block", usage)
	}
	return args[0], nil
}

// parseRecord reads "record <key> <value>".
func parseRecord(d *caddyfile.Dispenser, what string) (robotsgen.Record, error) {
	args := d.RemainingArgs()
	if len(args) != 2 {
		return robotsgen.Record{}, d.Errf("%s takes a key and a value, e.g. record Host example.com (quote a value with spaces); got %d arguments", what, len(args))
	}
	if d.NextBlock(d.Nesting()) {
		return robotsgen.Record{}, d.Errf("%s takes no block", what)
	}
	return robotsgen.Record{Key: args[0], Value: args[1]}, nil
}

// checkFile validates a minimal file built around one configured value, so that a bad value is
// reported at its own line. Values with placeholders are skipped: Provision checks them after
// replacing the placeholders.
func checkFile(d *caddyfile.Dispenser, what string, f robotsgen.File, values ...string) error {
	for _, v := range values {
		if strings.Contains(v, "{") {
			return nil
		}
	}
	if err := f.Validate(); err != nil {
		return d.Errf("robots_txt: %s %s", what, describe(err))
	}
	return nil
}

// placeRE matches the location prefix of a robotsgen validation error, such as
// "groups[0].rules[0].path", which names a place in the minimal file built for the check and
// not in the user's config.
var placeRE = regexp.MustCompile(`^(file:|[a-z_]+\[\d+\](\.[a-z_]+(\[\d+\])?)*:?) `)

// describe turns a validation error into one line without the library's prefixes.
func describe(err error) string {
	var parts []string
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimPrefix(line, "tagemit: ")
		line = placeRE.ReplaceAllString(line, "")
		if line != "" {
			parts = append(parts, line)
		}
	}
	if len(parts) == 0 {
		return err.Error()
	}
	return strings.Join(parts, "; ")
}

func fileHasPlaceholder(f *robotsgen.File) bool {
	has := func(ss ...string) bool {
		for _, s := range ss {
			if strings.Contains(s, "{") {
				return true
			}
		}
		return false
	}
	if has(f.Comments...) || has(f.Sitemaps...) {
		return true
	}
	for _, r := range f.Records {
		if has(r.Key, r.Value) {
			return true
		}
	}
	for _, g := range f.Groups {
		if has(g.UserAgents...) || has(g.Purposes...) {
			return true
		}
		for _, r := range g.Rules {
			if has(r.Path) {
				return true
			}
		}
		for _, r := range g.Records {
			if has(r.Key, r.Value) {
				return true
			}
		}
	}
	return false
}

func rulesHavePlaceholder(rules map[string][]string) bool {
	for tok, list := range rules {
		if strings.Contains(tok, "{") {
			return true
		}
		for _, r := range list {
			if strings.Contains(r, "{") {
				return true
			}
		}
	}
	return false
}

package caddymodule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/rsl"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/tagemit"
)

// init registers the Caddyfile directives and their place in Caddy's directive order
// (robots_txt after redir, robots_tag after encode); docs/caddy.md, "Directive order", says
// why.
func init() {
	httpcaddyfile.RegisterHandlerDirective("robots_txt", parseRobotsTxt)
	httpcaddyfile.RegisterDirectiveOrder("robots_txt", httpcaddyfile.After, "redir")
	httpcaddyfile.RegisterHandlerDirective("robots_tag", parseRobotsTag)
	httpcaddyfile.RegisterDirectiveOrder("robots_tag", httpcaddyfile.After, "encode")
}

func parseRobotsTxt(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(RobotsTxt)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	noteHandler(h, m, err)
	return m, err
}

func parseRobotsTag(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(RobotsTag)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	noteHandler(h, m, err)
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
//			preset <category>...      # the catalogue's crawlers of these categories too
//			except <crawler>...       # but not these crawlers of the presets (see below)
//			purpose    <token>...     # User-Agent-Purpose lines
//			allow      <pattern>...   # Allow lines, in order
//			disallow   <pattern>...   # Disallow lines, in order
//			crawl_delay <seconds>     # Crawl-delay (a number >= 0)
//			record <key> <value>      # any other record inside this group
//			content_usage  [<path>] <key>=<value>...  # Content-Usage: [path ]train-ai=n, search=y
//			content_signal [<path>] <key>=<value>...  # Content-Signal: [path ]search=yes, ai-train=no
//		}
//		preset <category>... { ... }  # a group for the catalogue's crawlers of these categories
//		                              # (ai-training, ai-search, ai-assistants, ai-all); the block
//		                              # is a group's, except <crawler>... included
//		record <key> <value>          # a file-level other record, e.g. Host
//		license <url>                 # RSL License line; repeatable; an absolute http(s) URL, or
//		                              # a path resolved as sitemaps are
//		license_document <path> {     # serve an RSL license document at <path>, and list it as a
//			content <url> {           # License line; one content element per asset (a URL, or
//				permits <usage>...    # a robots.txt path pattern); usages: all, ai-all,
//				prohibits <usage>...  # ai-train, ai-input, ai-index, search
//				payment <type>        # free, attribution, purchase, subscription, training,
//				standard <url>        # crawl, use, contribution; a standard license's URL, and
//				custom <url>          # where to ask for a custom one (http(s) or mailto:)
//			}
//		}
//		max_age <duration>            # Cache-Control max-age of robots.txt (default 1h)
//		enforce [<status>] {          # answer crawlers the file disallows with 403 (or <status>)
//			impostors [<status>]      # and, first, requests whose crawler fails verification
//			                          # (the crawlers app), with 403 (or <status>)
//			crawl_delay               # 429 to a named crawler asking sooner than its group's
//		}                             # crawl_delay
//		merge_file <file>             # merge a robots.txt file, read at load (merge.go)
//		merge_upstream [<timeout>]    # merge the next handler's /robots.txt at serve time
//		metrics                       # count crawlers' requests at Caddy's /metrics
//		log_violations                # log crawlers served a path the file disallows for them
//	}
//
// "except GoogleOther Applebot" leaves those crawlers out of the group's presets (JSON
// "except", robotsgen.Group.Except), so they obey whatever other group addresses them, or "*".
// It is a sub-directive of the block rather than words on the preset line ("preset
// ai-training except GoogleOther {"): like the field it fills, it applies to all of the
// group's presets, those of the line and of preset sub-directives alike; each sub-directive
// fills one field, as user_agent and purpose do; and the preset line keeps taking categories
// only, so a misspelt category is never read as a crawler's name, nor "except" as a category.
// A name that no preset of the group holds is refused at its line, with the closest crawler of
// those presets.
//
// Without a block the file is empty, which allows everything. The adapter only maps tokens to
// the handler's fields; the core checks the values, and each problem is reported at the line
// of the token that produced the field. Values with {placeholders} are checked when the config
// is provisioned, after the global placeholders ({env.*}, ...) are replaced.
func (h *RobotsTxt) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	at := newPositions(d, "robots_txt")
	if d.NextArg() {
		return errf(d, "robots_txt: unexpected argument %q: the directive takes only a matcher; configure the file in a block", d.Val())
	}
	var haveMaxAge bool
	for d.NextBlock(0) {
		sub := d.Val()
		switch sub {
		case "enforce":
			if h.Enforce != nil {
				return errf(d, "robots_txt: enforce given twice")
			}
			h.Enforce = &policy.Enforce{}
			at.mark("enforce")
			if err := parseStatusArg(d, at, sub, "enforce.status", "451", &h.Enforce.Status); err != nil {
				return err
			}
			if err := parseEnforce(d, at, h.Enforce); err != nil {
				return err
			}
		case "comment":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return errf(d, "robots_txt: comment needs the text of the comment line")
			}
			at.mark(configerr.Index("comments", len(h.Comments)))
			h.Comments = append(h.Comments, strings.Join(args, " "))
		case "sitemap":
			s, err := oneArg(d, "robots_txt: sitemap takes one absolute URL or one path such as /sitemap.xml")
			if err != nil {
				return err
			}
			at.mark(configerr.Index("sitemaps", len(h.Sitemaps)))
			h.Sitemaps = append(h.Sitemaps, s)
		case "license_document":
			if err := parseLicenseDocument(d, at, configerr.Index("license_documents", len(h.LicenseDocuments)), &h.RobotsTxt); err != nil {
				return err
			}
		case "license":
			s, err := oneArg(d, "robots_txt: license takes one absolute URL or one path such as /license.xml (an RSL license document)")
			if err != nil {
				return err
			}
			at.mark(configerr.Index("licenses", len(h.Licenses)))
			h.Licenses = append(h.Licenses, s)
		case "record":
			r, err := parseRecord(d, "robots_txt: record")
			if err != nil {
				return err
			}
			at.mark(configerr.Index("records", len(h.Records)))
			h.Records = append(h.Records, r)
		case "max_age":
			if haveMaxAge {
				return errf(d, "robots_txt: max_age given twice")
			}
			haveMaxAge = true
			s, err := oneArg(d, "robots_txt: max_age takes one duration, e.g. 1h or 1d")
			if err != nil {
				return err
			}
			v, err := caddy.ParseDuration(s)
			if err != nil {
				return parseErrorf(d, s, "", "robots_txt: max_age: %v", durationError(s, err))
			}
			if v == 0 {
				// The config cannot tell 0 from "not set", which means the default.
				return parseErrorf(d, s, "", "robots_txt: max_age %q: would mean the default (%s); leave max_age out, or give at least 1s", s, policy.DefaultRobotsTxtMaxAge)
			}
			at.markWritten("max_age", sub, s)
			h.MaxAge = policy.Duration(v)
		case "group", "preset":
			if sub == "preset" && d.CountRemainingArgs() == 0 {
				return errf(d, "robots_txt: preset needs at least one category of the crawler catalogue: %s", strings.Join(crawlers.Categories(), ", "))
			}
			g, err := parseGroup(d, at, configerr.Index("groups", len(h.Groups)), sub == "preset")
			if err != nil {
				return err
			}
			h.Groups = append(h.Groups, g)
		case "merge_file", "merge_upstream":
			if err := h.unmarshalMerge(d, at, sub); err != nil {
				return err
			}
		case "metrics", "log_violations":
			if d.NextArg() {
				// "log_violations on" is the usual guess: the sub-directive alone turns it on.
				return errf(d, "robots_txt: %s takes no argument: write %q alone to turn it on, and leave it out for off", sub, sub)
			}
			if d.NextBlock(d.Nesting()) {
				return errf(d, "robots_txt: %s takes no block", sub)
			}
			flag := &h.Metrics
			if sub == "log_violations" {
				flag = &h.LogViolations
			}
			if *flag {
				return errf(d, "robots_txt: %s given twice", sub)
			}
			*flag = true
		default:
			return unknownSubdirective(d, inRobotsTxt, "robots_txt")
		}
	}
	return at.report(validate(policy.Config{RobotsTxt: &h.RobotsTxt}, "robots_txt"), hasPlaceholder(h.RobotsTxt))
}

// parseLicenseDocument reads "license_document <path> { content <url> { ... } ... }" into a
// new document of rt; the cursor is on "license_document", and path is its field path.
func parseLicenseDocument(d *caddyfile.Dispenser, at *positions, path string, rt *policy.RobotsTxt) error {
	p, err := oneArgWithBlock(d, "robots_txt: license_document takes the path it is served at, e.g. license_document /license.xml { content / { prohibits ai-train } }")
	if err != nil {
		return err
	}
	at.mark(path)
	at.mark(path + ".path")
	doc := rsl.Document{Path: p}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch sub := d.Val(); sub {
		case "content":
			c, err := parseLicenseContent(d, at, configerr.Index(path+".content", len(doc.Content)))
			if err != nil {
				return err
			}
			doc.Content = append(doc.Content, c)
		default:
			return notInBlock(d, "robots_txt: license_document's block", licenseDocumentSubdirectives)
		}
	}
	rt.LicenseDocuments = append(rt.LicenseDocuments, doc)
	return nil
}

// parseLicenseContent reads "content <url> { ... }"; the cursor is on "content", and path is
// its field path.
func parseLicenseContent(d *caddyfile.Dispenser, at *positions, path string) (rsl.Content, error) {
	u, err := oneArgWithBlock(d, "robots_txt: license_document: content takes the licensed asset's URL or path pattern, e.g. content /articles/* { permits search }")
	if err != nil {
		return rsl.Content{}, err
	}
	at.mark(path)
	at.mark(path + ".url")
	c := rsl.Content{URL: u}
	payment := func() *rsl.Payment {
		if c.Payment == nil {
			c.Payment = &rsl.Payment{}
			at.mark(path + ".payment")
		}
		return c.Payment
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch sub := d.Val(); sub {
		case "permits", "prohibits":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return c, errf(d, "robots_txt: license_document: %s needs at least one usage: %s", sub, strings.Join(rsl.Usages, ", "))
			}
			list := &c.Permits
			if sub == "prohibits" {
				list = &c.Prohibits
			}
			for _, a := range args {
				at.mark(configerr.Index(path+"."+sub, len(*list)))
				*list = append(*list, a)
			}
		case "payment":
			t, err := oneArg(d, "robots_txt: license_document: payment takes one type: "+strings.Join(rsl.PaymentTypes, ", "))
			if err != nil {
				return c, err
			}
			p := payment()
			if p.Type != "" {
				return c, errf(d, "robots_txt: license_document: payment given twice")
			}
			at.mark(path + ".payment.type")
			p.Type = t
		case "standard", "custom":
			v, err := oneArg(d, "robots_txt: license_document: "+sub+" takes one URL")
			if err != nil {
				return c, err
			}
			p := payment()
			field := &p.Standard
			if sub == "custom" {
				field = &p.Custom
			}
			if *field != "" {
				return c, errf(d, "robots_txt: license_document: %s given twice", sub)
			}
			at.mark(path + ".payment." + sub)
			*field = v
		default:
			return c, notInBlock(d, "robots_txt: license_document: content's block", licenseContentSubdirectives)
		}
	}
	return c, nil
}

// oneArgWithBlock reads exactly one argument on the current line, which opens a block.
func oneArgWithBlock(d *caddyfile.Dispenser, usage string) (string, error) {
	args := d.RemainingArgs()
	if len(args) != 1 {
		return "", errf(d, "%s (got %d arguments)", usage, len(args))
	}
	return args[0], nil
}

// parseStatusArg reads the optional status code of sub (enforce, impostors) into status,
// marking path; example is a status to suggest in the error.
func parseStatusArg(d *caddyfile.Dispenser, at *positions, sub, path, example string, status *int) error {
	args := d.RemainingArgs()
	if len(args) > 1 {
		return errf(d, "robots_txt: %s takes at most one status code (default 403)", sub)
	}
	if len(args) == 1 {
		v, err := strconv.Atoi(args[0])
		if err != nil {
			return parseErrorf(d, args[0], "", "robots_txt: %s %q: the status is a number, e.g. 403 or %s", sub, args[0], example)
		}
		at.markWritten(path, sub, args[0])
		*status = v
	}
	return nil
}

// parseEnforce reads the block of enforce; the cursor is on its last argument.
func parseEnforce(d *caddyfile.Dispenser, at *positions, e *policy.Enforce) error {
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch sub := d.Val(); sub {
		case "impostors":
			if e.Impostors != nil {
				return errf(d, "robots_txt: impostors given twice")
			}
			e.Impostors = &policy.Impostors{}
			at.mark("enforce.impostors")
			if err := parseStatusArg(d, at, sub, "enforce.impostors.status", "410", &e.Impostors.Status); err != nil {
				return err
			}
		case "accept_signature":
			if d.NextArg() {
				return errf(d, "robots_txt: accept_signature takes no argument")
			}
			e.AcceptSignature = true
			at.mark("enforce.accept_signature")
		case "crawl_delay":
			if d.NextArg() {
				return errf(d, "robots_txt: crawl_delay takes no argument: the delay is each group's crawl_delay")
			}
			if e.CrawlDelay {
				return errf(d, "robots_txt: crawl_delay given twice")
			}
			e.CrawlDelay = true
			at.mark("enforce.crawl_delay")
		default:
			return notInBlock(d, "robots_txt: enforce's block", enforceSubdirectives)
		}
	}
	return nil
}

// parseGroup reads "group [<user-agent>...] { ... }", or with presets "preset
// [<category>...] { ... }"; the cursor is on "group" or "preset", and path is the group's
// field path.
func parseGroup(d *caddyfile.Dispenser, at *positions, path string, presets bool) (robotsgen.Group, error) {
	var g robotsgen.Group
	// Errors name the block as written: a preset block takes a group's sub-directives.
	block := d.Val()
	at.mark(path)
	addAgents := func(tokens []string) {
		for _, ua := range tokens {
			at.mark(configerr.Index(path+".user_agents", len(g.UserAgents)))
			g.UserAgents = append(g.UserAgents, ua)
		}
	}
	addPresets := func(names []string) {
		for _, p := range names {
			at.mark(configerr.Index(path+".presets", len(g.Presets)))
			g.Presets = append(g.Presets, p)
		}
	}
	if presets {
		addPresets(d.RemainingArgs())
	} else {
		addAgents(d.RemainingArgs())
	}
	var haveDelay bool
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		switch sub {
		case "user_agent":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return g, errf(d, "robots_txt: %s: user_agent needs at least one product token, e.g. GPTBot or *", block)
			}
			addAgents(args)
		case "preset":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return g, errf(d, "robots_txt: %s: preset needs at least one category of the crawler catalogue: %s", block, strings.Join(crawlers.Categories(), ", "))
			}
			addPresets(args)
		case "except":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return g, errf(d, "robots_txt: %s: except needs at least one crawler of the group's presets to leave out, e.g. except GoogleOther", block)
			}
			for _, n := range args {
				at.mark(configerr.Index(path+".except", len(g.Except)))
				g.Except = append(g.Except, n)
			}
		case "purpose":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return g, errf(d, "robots_txt: %s: purpose needs at least one purpose token", block)
			}
			for _, p := range args {
				at.mark(configerr.Index(path+".purposes", len(g.Purposes)))
				g.Purposes = append(g.Purposes, p)
			}
		case "allow", "disallow":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return g, errf(d, "robots_txt: %s: %s needs at least one path pattern, e.g. /private/", block, sub)
			}
			typ := robotsgen.Allow
			if sub == "disallow" {
				typ = robotsgen.Disallow
			}
			for _, p := range args {
				at.mark(configerr.Index(path+".rules", len(g.Rules)))
				g.Rules = append(g.Rules, robotsgen.Rule{Type: typ, Path: p})
			}
		case "crawl_delay":
			if haveDelay {
				return g, errf(d, "robots_txt: %s: crawl_delay given twice", block)
			}
			haveDelay = true
			s, err := oneArg(d, "robots_txt: "+block+": crawl_delay takes one number of seconds")
			if err != nil {
				return g, err
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return g, parseErrorf(d, s, "", "robots_txt: %s: crawl_delay %q: %s", block, s, robotsgen.CrawlDelayProblem)
			}
			at.markWritten(path+".crawl_delay", sub, s)
			g.CrawlDelay = v
		case "record":
			r, err := parseRecord(d, "robots_txt: "+block+": record")
			if err != nil {
				return g, err
			}
			at.mark(configerr.Index(path+".records", len(g.Records)))
			g.Records = append(g.Records, r)
		case "content_usage", "content_signal":
			if err := parseGroupUsage(d, at, "robots_txt: "+block, path, &g); err != nil {
				return g, err
			}
		default:
			return g, unknownSubdirective(d, inGroup, "robots_txt: "+block)
		}
	}
	return g, nil
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	robots_tag [<matcher>] [<rule>...] {   # inline rules apply to every accessor (*)
//		agent <token> <rule>...            # rules for one product token, or *; repeatable
//		preset <category> <rule>...        # rules for each crawler of a catalogue category
//		except <crawler>...                # but none of the presets' rules for these crawlers
//		meta                               # also add <meta> elements to HTML responses
//		x_robots_tag                       # also send the legacy X-Robots-Tag header
//		content_usage <key>=<value>...     # Content-Usage response header, e.g. train-ai=n
//		license <url>                      # RSL license: a Link field, and with meta a
//		                                   # <link rel="license">; repeatable; an absolute
//		                                   # http(s) URL or a path such as /license.xml
//		tdm <1|0|derive> [<policy-url>]    # TDMRep: tdm-reservation (and tdm-policy) fields
//	}
//
// A rule is a name such as noindex, nosnippet, nofollow, none, noarchive, noimageindex, or
// name=value: max-snippet=50, max-image-preview=large, unavailable_after=2027-01-01T00:00:00Z.
// The block is optional ("robots_tag /drafts/* noindex" is complete), but at least one rule,
// content_usage, license or tdm is required. except leaves crawlers out of the block's presets as it does in robots_txt's
// groups (policy.Tags.Except): they keep the rules of their own agent line and of *. tdm is
// the route's TDMRep declaration (tdm.go; with meta its <meta> elements too). Each token and rule is checked as it is read, so an error names its line; values
// with {placeholders} are checked when the config is provisioned.
func (h *RobotsTag) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	at := newPositions(d, "robots_tag")
	at.mark("rules")
	add := func(tok string, rules []string) error {
		for _, rule := range rules {
			if strings.HasPrefix(rule, "*") || strings.HasPrefix(rule, "/") {
				return errf(d, "robots_tag: %q is not a rule but looks like a path pattern: Caddy reads only *, /path or @name as the matcher of a directive; for other patterns define a named matcher, e.g. @pdf path *.pdf, then robots_tag @pdf noindex", rule)
			}
			if h.Rules == nil {
				h.Rules = make(map[string][]string)
			}
			key := configerr.Key("rules", tok)
			at.mark(key)
			at.mark(configerr.Index(key, len(h.Rules[tok])))
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
				return errf(d, "robots_tag: agent takes a product token (or *) and at least one rule, e.g. agent GPTBot noindex")
			}
			if err := add(args[0], args[1:]); err != nil {
				return err
			}
		case "preset":
			args := d.RemainingArgs()
			if len(args) < 2 {
				return errf(d, "robots_tag: preset takes a category of the crawler catalogue (%s) and at least one rule, e.g. preset ai-training noindex", strings.Join(crawlers.Categories(), ", "))
			}
			if err := add(tagemit.PresetPrefix+args[0], args[1:]); err != nil {
				return err
			}
		case "except":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return errf(d, "robots_tag: except needs at least one crawler of the presets to leave out, e.g. except Applebot")
			}
			for _, n := range args {
				at.mark(configerr.Index("except", len(h.Except)))
				h.Except = append(h.Except, n)
			}
		case "content_usage":
			if err := parseTagUsage(d, at, h); err != nil {
				return err
			}
		case "license":
			l, err := oneArg(d, "robots_tag: license takes one absolute URL or one path such as /license.xml (an RSL license document)")
			if err != nil {
				return err
			}
			at.mark(configerr.Index("licenses", len(h.Licenses)))
			h.Licenses = append(h.Licenses, l)
		case "meta", "x_robots_tag":
			if d.NextArg() {
				return errf(d, "robots_tag: %s takes no arguments, got %q", sub, d.Val())
			}
			if d.NextBlock(d.Nesting()) {
				return errf(d, "robots_tag: %s takes no block", sub)
			}
			if sub == "meta" {
				if haveMeta {
					return errf(d, "robots_tag: meta given twice")
				}
				haveMeta, h.Meta = true, true
			} else {
				if haveXRT {
					return errf(d, "robots_tag: x_robots_tag given twice")
				}
				haveXRT, h.XRobotsTag = true, true
			}
		case "tdm":
			if err := parseTagTDM(d, at, h); err != nil {
				return err
			}
		default:
			return unknownSubdirective(d, inRobotsTag, "robots_tag")
		}
	}
	err := validate(policy.Config{RobotsTag: []policy.Route{{Tags: h.Tags}}}, "robots_tag[0]")
	return at.report(err, hasPlaceholder(h.Tags))
}

// oneArg reads exactly one argument on the current line and no block.
func oneArg(d *caddyfile.Dispenser, usage string) (string, error) {
	args := d.RemainingArgs()
	if len(args) != 1 {
		return "", errf(d, "%s (got %d arguments)", usage, len(args))
	}
	if d.NextBlock(d.Nesting()) {
		return "", errf(d, "%s; it takes no block", usage)
	}
	return args[0], nil
}

// parseRecord reads "record <key> <value>".
func parseRecord(d *caddyfile.Dispenser, what string) (robotsgen.Record, error) {
	args := d.RemainingArgs()
	if len(args) != 2 {
		return robotsgen.Record{}, errf(d, "%s takes a key and a value, e.g. record Host example.com (quote a value with spaces); got %d arguments", what, len(args))
	}
	if d.NextBlock(d.Nesting()) {
		return robotsgen.Record{}, errf(d, "%s takes no block", what)
	}
	return robotsgen.Record{Key: args[0], Value: args[1]}, nil
}

// positions remembers where in the Caddyfile each field of a handler came from, so that the
// core's errors, which name fields, can name lines.
type positions struct {
	directive string
	file      string
	line      int
	byPath    map[string]position
	// written are the values as the Caddyfile wrote them, and their sub-directives, for the
	// fields the adapter converts (a duration, a number): the core's errors show the
	// converted value ("48h0m0s" for 2d), and a message must show what the user wrote.
	written map[string][2]string
	d       *caddyfile.Dispenser
}

type position struct {
	file string
	line int
}

func newPositions(d *caddyfile.Dispenser, directive string) *positions {
	p := &positions{directive: directive, file: d.File(), line: d.Line(), byPath: map[string]position{}, written: map[string][2]string{}, d: d}
	notePositions(d, p)
	return p
}

// mark records that the field at path comes from the current token.
func (p *positions) mark(path string) {
	p.byPath[path] = position{p.d.File(), p.d.Line()}
}

// markWritten is mark for a field whose value the adapter converted from text, the argument
// of sub.
func (p *positions) markWritten(path, sub, text string) {
	p.mark(path)
	p.written[path] = [2]string{sub, text}
}

// report maps each of the core's errors to the line of the field it names (the nearest
// marked parent field, else the directive). Errors about a value with a placeholder, and
// whole-config errors while a placeholder is pending, wait for Provision, which checks the
// replaced values.
func (p *positions) report(err error, pending bool) error {
	var errs []error
	for _, e := range configerr.All(err) {
		if strings.Contains(e.Value, "{") || strings.Contains(e.Path, "{") || (pending && !p.marked(e.Path)) {
			continue
		}
		pos := position{p.file, p.line}
		for path := e.Path; path != ""; path = configerr.ParentPath(path) {
			if q, ok := p.byPath[path]; ok {
				pos = q
				break
			}
		}
		c, msg := *e, p.directive+": "
		if w, ok := p.written[c.Path]; ok && c.Value != "" {
			msg += w[0] + " "
			c.Value = w[1]
		}
		errs = append(errs, &parseError{msg: msg + c.Message(), at: fmt.Sprintf("%s:%d", pos.file, pos.line), file: pos.file, line: pos.line, problem: c})
	}
	return errors.Join(errs...)
}

// marked reports whether path or a parent of it names a field the Caddyfile set.
func (p *positions) marked(path string) bool {
	for ; path != ""; path = configerr.ParentPath(path) {
		if _, ok := p.byPath[path]; ok {
			return true
		}
	}
	return false
}

// validate checks cfg as Provision will, so that the adapter names the line of a problem;
// root is where the handler's config sits in cfg.
func validate(cfg policy.Config, root string) error {
	core, err := serve.New(cfg, serve.Options{})
	if core != nil {
		core.Close()
	}
	return configerr.Reroot(err, root, "")
}

// durationError says that s is not a duration as Caddy reads one, in the words the JSON config
// uses for the same mistake.
func durationError(s string, err error) error {
	if len(s) > 1024 {
		return err // caddy.ParseDuration's own "duration is too long"
	}
	return fmt.Errorf("invalid duration %q (use e.g. 30m, 1h, 1d)", s)
}

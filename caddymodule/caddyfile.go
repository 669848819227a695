package caddymodule

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
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
//		pay { ... }                   # charge verified crawlers per request, x402 (caddyfile_pay.go)
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
	at := newPositions(d, "robots_txt", &h.RobotsTxt)
	if d.NextArg() {
		return errf(d, "robots_txt: unexpected argument %q: the directive takes only a matcher; configure the file in a block", d.Val())
	}
	var haveMaxAge bool
	for d.NextBlock(0) {
		if err := h.unmarshalSub(d, at, &haveMaxAge); err != nil {
			return err
		}
	}
	return at.report(validate(policy.Config{RobotsTxt: &h.RobotsTxt}, "robots_txt"), hasPlaceholder(h.RobotsTxt))
}

// unmarshalSub reads the sub-directive on the current line of robots_txt's block.
func (h *RobotsTxt) unmarshalSub(d *caddyfile.Dispenser, at *positions, haveMaxAge *bool) error {
	switch sub := d.Val(); sub {
	case "enforce":
		return h.unmarshalEnforce(d, at)
	case "comment":
		args := d.RemainingArgs()
		if len(args) == 0 {
			return errf(d, "robots_txt: comment needs the text of the comment line")
		}
		h.Comments = append(h.Comments, strings.Join(args, " "))
		at.mark(last(h.Comments))
	case "sitemap":
		s, err := oneArg(d, "robots_txt: sitemap takes one absolute URL or one path such as /sitemap.xml")
		if err != nil {
			return err
		}
		h.Sitemaps = append(h.Sitemaps, s)
		at.mark(last(h.Sitemaps))
	case "license_document":
		return parseLicenseDocument(d, at, &h.RobotsTxt)
	case "license":
		s, err := oneArg(d, "robots_txt: license takes one absolute URL or one path such as /license.xml (an RSL license document)")
		if err != nil {
			return err
		}
		h.Licenses = append(h.Licenses, s)
		at.mark(last(h.Licenses))
	case "record":
		r, err := parseRecord(d, "robots_txt: record")
		if err != nil {
			return err
		}
		h.Records = append(h.Records, r)
		at.mark(last(h.Records))
	case "max_age":
		return h.unmarshalMaxAge(d, at, haveMaxAge)
	case "group", "preset":
		if sub == "preset" && d.CountRemainingArgs() == 0 {
			return errf(d, "robots_txt: preset needs at least one category of the crawler catalogue: %s", strings.Join(crawlers.Categories(), ", "))
		}
		h.Groups = append(h.Groups, robotsgen.Group{})
		return parseGroup(d, at, last(h.Groups), sub == "preset")
	case "merge_file", "merge_upstream":
		return h.unmarshalMerge(d, at, sub)
	case "pay":
		return h.unmarshalPay(d, at)
	case "metrics", "log_violations":
		return h.unmarshalSwitch(d, sub)
	default:
		return unknownSubdirective(d, inRobotsTxt, "robots_txt")
	}
	return nil
}

// last is a pointer to the last element of s, for positions.mark.
func last[T any](s []T) *T { return &s[len(s)-1] }

// unmarshalEnforce reads "enforce [<status>] { ... }".
func (h *RobotsTxt) unmarshalEnforce(d *caddyfile.Dispenser, at *positions) error {
	if h.Enforce != nil {
		return errf(d, "robots_txt: enforce given twice")
	}
	h.Enforce = &policy.Enforce{}
	at.mark(&h.Enforce)
	if err := parseStatusArg(d, at, "enforce", "451", &h.Enforce.Status); err != nil {
		return err
	}
	return parseEnforce(d, at, h.Enforce)
}

// unmarshalMaxAge reads "max_age <duration>"; haveMaxAge says whether one was read before.
func (h *RobotsTxt) unmarshalMaxAge(d *caddyfile.Dispenser, at *positions, haveMaxAge *bool) error {
	if *haveMaxAge {
		return errf(d, "robots_txt: max_age given twice")
	}
	*haveMaxAge = true
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
	h.MaxAge = policy.Duration(v)
	at.markWritten(&h.MaxAge, "max_age", s)
	return nil
}

// unmarshalSwitch reads "metrics" or "log_violations", which turn a feature on.
func (h *RobotsTxt) unmarshalSwitch(d *caddyfile.Dispenser, sub string) error {
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
	return nil
}

// parseLicenseDocument reads "license_document <path> { content <url> { ... } ... }" into a
// new document of rt; the cursor is on "license_document".
func parseLicenseDocument(d *caddyfile.Dispenser, at *positions, rt *policy.RobotsTxt) error {
	p, err := oneArgWithBlock(d, "robots_txt: license_document takes the path it is served at, e.g. license_document /license.xml { content / { prohibits ai-train } }")
	if err != nil {
		return err
	}
	rt.LicenseDocuments = append(rt.LicenseDocuments, rsl.Document{Path: p})
	doc := last(rt.LicenseDocuments)
	at.mark(doc)
	at.mark(&doc.Path)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch sub := d.Val(); sub {
		case "content":
			if err := parseLicenseContent(d, at, doc); err != nil {
				return err
			}
		default:
			return notInBlock(d, "robots_txt: license_document's block", licenseDocumentSubdirectives)
		}
	}
	return nil
}

// parseLicenseContent reads "content <url> { ... }" into a new content element of doc; the
// cursor is on "content".
func parseLicenseContent(d *caddyfile.Dispenser, at *positions, doc *rsl.Document) error {
	u, err := oneArgWithBlock(d, "robots_txt: license_document: content takes the licensed asset's URL or path pattern, e.g. content /articles/* { permits search }")
	if err != nil {
		return err
	}
	doc.Content = append(doc.Content, rsl.Content{URL: u})
	c := last(doc.Content)
	at.mark(c)
	at.mark(&c.URL)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch sub := d.Val(); sub {
		case "permits", "prohibits":
			err = parseUsages(d, at, c, sub)
		case "payment", "standard", "custom":
			err = parsePayment(d, at, c, sub)
		default:
			err = notInBlock(d, "robots_txt: license_document: content's block", licenseContentSubdirectives)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parseUsages reads "permits <usage>..." or "prohibits <usage>..." into c.
func parseUsages(d *caddyfile.Dispenser, at *positions, c *rsl.Content, sub string) error {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return errf(d, "robots_txt: license_document: %s needs at least one usage: %s", sub, strings.Join(rsl.Usages, ", "))
	}
	list := &c.Permits
	if sub == "prohibits" {
		list = &c.Prohibits
	}
	for _, a := range args {
		*list = append(*list, a)
		at.mark(last(*list))
	}
	return nil
}

// parsePayment reads "payment <type>", "standard <url>" or "custom <url>" into c's payment.
func parsePayment(d *caddyfile.Dispenser, at *positions, c *rsl.Content, sub string) error {
	usage := "robots_txt: license_document: " + sub + " takes one URL"
	if sub == "payment" {
		usage = "robots_txt: license_document: payment takes one type: " + strings.Join(rsl.PaymentTypes, ", ")
	}
	v, err := oneArg(d, usage)
	if err != nil {
		return err
	}
	if c.Payment == nil {
		c.Payment = &rsl.Payment{}
		at.mark(&c.Payment)
	}
	field := map[string]*string{"payment": &c.Payment.Type, "standard": &c.Payment.Standard, "custom": &c.Payment.Custom}[sub]
	if *field != "" {
		return errf(d, "robots_txt: license_document: %s given twice", sub)
	}
	*field = v
	at.mark(field)
	return nil
}

// oneArgWithBlock reads exactly one argument on the current line, which opens a block.
func oneArgWithBlock(d *caddyfile.Dispenser, usage string) (string, error) {
	args := d.RemainingArgs()
	if len(args) != 1 {
		return "", errf(d, "%s (got %d arguments)", usage, len(args))
	}
	return args[0], nil
}

// parseStatusArg reads the optional status code of sub (enforce, impostors) into status;
// example is a status to suggest in the error.
func parseStatusArg(d *caddyfile.Dispenser, at *positions, sub, example string, status *int) error {
	args := d.RemainingArgs()
	if len(args) > 1 {
		return errf(d, "robots_txt: %s takes at most one status code (default 403)", sub)
	}
	if len(args) == 1 {
		v, err := strconv.Atoi(args[0])
		if err != nil {
			return parseErrorf(d, args[0], "", "robots_txt: %s %q: the status is a number, e.g. 403 or %s", sub, args[0], example)
		}
		*status = v
		at.markWritten(status, sub, args[0])
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
			at.mark(&e.Impostors)
			if err := parseStatusArg(d, at, sub, "410", &e.Impostors.Status); err != nil {
				return err
			}
		case "accept_signature":
			if d.NextArg() {
				return errf(d, "robots_txt: accept_signature takes no argument")
			}
			e.AcceptSignature = true
			at.mark(&e.AcceptSignature)
		case "crawl_delay":
			if d.NextArg() {
				return errf(d, "robots_txt: crawl_delay takes no argument: the delay is each group's crawl_delay")
			}
			if e.CrawlDelay {
				return errf(d, "robots_txt: crawl_delay given twice")
			}
			e.CrawlDelay = true
			at.mark(&e.CrawlDelay)
		default:
			return notInBlock(d, "robots_txt: enforce's block", enforceSubdirectives)
		}
	}
	return nil
}

// parseGroup reads "group [<user-agent>...] { ... }", or with presets "preset
// [<category>...] { ... }", into g; the cursor is on "group" or "preset".
func parseGroup(d *caddyfile.Dispenser, at *positions, g *robotsgen.Group, presets bool) error {
	// Errors name the block as written: a preset block takes a group's sub-directives.
	block := d.Val()
	at.mark(g)
	if presets {
		appendMarked(at, &g.Presets, d.RemainingArgs())
	} else {
		appendMarked(at, &g.UserAgents, d.RemainingArgs())
	}
	var haveDelay bool
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		if err := parseGroupSub(d, at, g, block, &haveDelay); err != nil {
			return err
		}
	}
	return nil
}

// appendMarked appends values to *list, each at the current token.
func appendMarked(at *positions, list *[]string, values []string) {
	for _, v := range values {
		*list = append(*list, v)
		at.mark(last(*list))
	}
}

// groupLists are the group's sub-directives that add their arguments to a list, and what
// each needs at least one of.
var groupLists = map[string]string{
	"user_agent": "user_agent needs at least one product token, e.g. GPTBot or *",
	"preset":     "preset needs at least one category of the crawler catalogue: " + strings.Join(crawlers.Categories(), ", "),
	"except":     "except needs at least one crawler of the group's presets to leave out, e.g. except GoogleOther",
	"purpose":    "purpose needs at least one purpose token",
}

// parseGroupSub reads the sub-directive on the current line of a group's block (block names
// it as written) into g; haveDelay says whether a crawl_delay was read before.
func parseGroupSub(d *caddyfile.Dispenser, at *positions, g *robotsgen.Group, block string, haveDelay *bool) error {
	switch sub := d.Val(); sub {
	case "user_agent", "preset", "except", "purpose":
		args := d.RemainingArgs()
		if len(args) == 0 {
			return errf(d, "robots_txt: %s: %s", block, groupLists[sub])
		}
		list := map[string]*[]string{"user_agent": &g.UserAgents, "preset": &g.Presets, "except": &g.Except, "purpose": &g.Purposes}[sub]
		appendMarked(at, list, args)
	case "allow", "disallow":
		args := d.RemainingArgs()
		if len(args) == 0 {
			return errf(d, "robots_txt: %s: %s needs at least one path pattern, e.g. /private/", block, sub)
		}
		typ := robotsgen.Allow
		if sub == "disallow" {
			typ = robotsgen.Disallow
		}
		for _, p := range args {
			g.Rules = append(g.Rules, robotsgen.Rule{Type: typ, Path: p})
			at.mark(last(g.Rules))
		}
	case "crawl_delay":
		return parseCrawlDelay(d, at, g, block, haveDelay)
	case "record":
		r, err := parseRecord(d, "robots_txt: "+block+": record")
		if err != nil {
			return err
		}
		g.Records = append(g.Records, r)
		at.mark(last(g.Records))
	case "content_usage", "content_signal":
		return parseGroupUsage(d, at, "robots_txt: "+block, g)
	default:
		return unknownSubdirective(d, inGroup, "robots_txt: "+block)
	}
	return nil
}

// parseCrawlDelay reads "crawl_delay <seconds>" into g; haveDelay says whether one was read
// before.
func parseCrawlDelay(d *caddyfile.Dispenser, at *positions, g *robotsgen.Group, block string, haveDelay *bool) error {
	if *haveDelay {
		return errf(d, "robots_txt: %s: crawl_delay given twice", block)
	}
	*haveDelay = true
	s, err := oneArg(d, "robots_txt: "+block+": crawl_delay takes one number of seconds")
	if err != nil {
		return err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return parseErrorf(d, s, "", "robots_txt: %s: crawl_delay %q: %s", block, s, robotsgen.CrawlDelayProblem)
	}
	g.CrawlDelay = v
	at.markWritten(&g.CrawlDelay, "crawl_delay", s)
	return nil
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
// the route's TDMRep declaration (caddyfile_tdm.go; with meta its <meta> elements too). Each token and rule is checked as it is read, so an error names its line; values
// with {placeholders} are checked when the config is provisioned.
func (h *RobotsTag) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	at := newPositions(d, "robots_tag", &h.Tags)
	at.mark(&h.Rules)
	if err := h.addRules(d, at, tagemit.GlobalToken, d.RemainingArgs()); err != nil {
		return err
	}
	var seen tagSwitches
	for d.NextBlock(0) {
		if err := h.unmarshalSub(d, at, &seen); err != nil {
			return err
		}
	}
	err := validate(policy.Config{RobotsTag: []policy.Route{{Tags: h.Tags}}}, "robots_tag[0]")
	return at.report(err, hasPlaceholder(h.Tags))
}

// tagSwitches are the switches of a robots_tag block read so far.
type tagSwitches struct{ meta, xRobotsTag bool }

// addRules adds rules for tok (a product token, "*" or a preset) on the current line.
func (h *RobotsTag) addRules(d *caddyfile.Dispenser, at *positions, tok string, rules []string) error {
	for _, rule := range rules {
		if strings.HasPrefix(rule, "*") || strings.HasPrefix(rule, "/") {
			return errf(d, "robots_tag: %q is not a rule but looks like a path pattern: Caddy reads only *, /path or @name as the matcher of a directive; for other patterns define a named matcher, e.g. @pdf path *.pdf, then robots_tag @pdf noindex", rule)
		}
		if h.Rules == nil {
			h.Rules = make(map[string][]string)
		}
		h.Rules[tok] = append(h.Rules[tok], rule)
		at.mark(entry{&h.Rules, tok})
		at.mark(last(h.Rules[tok]))
	}
	return nil
}

// unmarshalSub reads the sub-directive on the current line of robots_tag's block.
func (h *RobotsTag) unmarshalSub(d *caddyfile.Dispenser, at *positions, seen *tagSwitches) error {
	switch sub := d.Val(); sub {
	case "agent":
		args := d.RemainingArgs()
		if len(args) < 2 {
			return errf(d, "robots_tag: agent takes a product token (or *) and at least one rule, e.g. agent GPTBot noindex")
		}
		return h.addRules(d, at, args[0], args[1:])
	case "preset":
		args := d.RemainingArgs()
		if len(args) < 2 {
			return errf(d, "robots_tag: preset takes a category of the crawler catalogue (%s) and at least one rule, e.g. preset ai-training noindex", strings.Join(crawlers.Categories(), ", "))
		}
		return h.addRules(d, at, tagemit.PresetPrefix+args[0], args[1:])
	case "except":
		args := d.RemainingArgs()
		if len(args) == 0 {
			return errf(d, "robots_tag: except needs at least one crawler of the presets to leave out, e.g. except Applebot")
		}
		appendMarked(at, &h.Except, args)
	case "content_usage":
		return parseTagUsage(d, at, h)
	case "license":
		l, err := oneArg(d, "robots_tag: license takes one absolute URL or one path such as /license.xml (an RSL license document)")
		if err != nil {
			return err
		}
		appendMarked(at, &h.Licenses, []string{l})
	case "meta", "x_robots_tag":
		return h.unmarshalSwitch(d, sub, seen)
	case "tdm":
		return parseTagTDM(d, at, h)
	default:
		return unknownSubdirective(d, inRobotsTag, "robots_tag")
	}
	return nil
}

// unmarshalSwitch reads "meta" or "x_robots_tag", which turn an output on.
func (h *RobotsTag) unmarshalSwitch(d *caddyfile.Dispenser, sub string, seen *tagSwitches) error {
	if d.NextArg() {
		return errf(d, "robots_tag: %s takes no arguments, got %q", sub, d.Val())
	}
	if d.NextBlock(d.Nesting()) {
		return errf(d, "robots_tag: %s takes no block", sub)
	}
	have, field := &seen.meta, &h.Meta
	if sub == "x_robots_tag" {
		have, field = &seen.xRobotsTag, &h.XRobotsTag
	}
	if *have {
		return errf(d, "robots_tag: %s given twice", sub)
	}
	*have, *field = true, true
	return nil
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

// validate checks cfg as Provision will, so that the adapter names the line of a problem;
// root is where the handler's config sits in cfg.
func validate(cfg policy.Config, root string) error {
	var opts serve.Options
	if cfg.RobotsTxt != nil && cfg.RobotsTxt.Pay != nil {
		// The handler verifies crawlers with the crawlers app when it is provisioned (pay
		// loads it): the check of the values here stands in for it.
		opts.Identify = func(*http.Request) identity.Identity { return identity.Identity{} }
	}
	core, err := serve.New(cfg, opts)
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

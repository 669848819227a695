package caddymodule

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("crawlers", parseCrawlersOption)
	// Written in a site block, it would be an unknown directive; say where it goes.
	httpcaddyfile.RegisterDirective("crawlers", func(h httpcaddyfile.Helper) ([]httpcaddyfile.ConfigValue, error) {
		h.Next() // the directive's name: the error names its line
		return nil, h.Errf("crawlers is a global option, not a directive of a site: put it in the global options block, the { } block at the top of the Caddyfile")
	})
}

// parseCrawlersOption reads the "crawlers" global option, which configures the crawlers app
// (crawler verification):
//
//	{
//		crawlers {
//			lists on|off|offline          # published lists fetched (default); none; or only the local files below
//			list_file <url> <file>        # read the list the catalogue names at <url> from <file>
//			lists_dir <dir>               # where the last good lists are kept (default: Caddy's data dir)
//			refresh <duration>            # how often a list is fetched again (default 24h)
//			max_age <duration>            # a list older than this is not trusted (default 7d)
//			fetch_timeout <duration>      # bound on one fetch (default 30s)
//			reverse_dns on|off            # reverse-DNS verification (default on)
//			dns_timeout <duration>        # bound on one lookup (default 5s)
//			dns_wait <duration>           # a first request waits this long for its lookup (default: not at all)
//			dns_max_in_flight <n>         # lookups in progress at once (default 32)
//			dns_resolver <ip[:port]>      # the DNS server asked instead of the system's resolver
//			signature_agent <url> <bot> [<key-file>]  # trust a Web Bot Auth agent (repeatable)
//			signatures_fetch_untrusted    # fetch other agents' key directories too
//			signatures_replay_protection  # refuse a nonce seen before
//			signatures_skew <duration>    # clock difference tolerated (default 60s)
//			signatures_max_validity <duration>  # longest validity accepted (default 24h)
//			store redis { ... }           # the store a fleet shares (parseStore)
//		}
//	}
func parseCrawlersOption(d *caddyfile.Dispenser, existing any) (any, error) {
	if existing != nil {
		// A second block would silently replace the first (say, its lists offline).
		return nil, d.Err("crawlers: given twice; put every sub-directive in one block")
	}
	app := &Crawlers{}
	d.Next() // the option's name
	at := newPositions(d, "crawlers", app)
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	for d.NextBlock(0) {
		o := crawlersOption{d: d, at: at, app: app, sub: d.Val(), args: d.RemainingArgs()}
		if err := o.parse(); err != nil {
			return nil, err
		}
	}
	// Checked as the app's Provision checks it, so that a problem names its line.
	if err := at.report(app.validate(), false); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "crawlers", Value: caddyconfig.JSON(app, nil)}, nil
}

// crawlersOption is a sub-directive of the crawlers option, on the current line: sub and its
// arguments, read into app.
type crawlersOption struct {
	d    *caddyfile.Dispenser
	at   *positions
	app  *Crawlers
	sub  string
	args []string
}

func (o crawlersOption) lists() *CrawlerLists {
	if o.app.Lists == nil {
		o.app.Lists = &CrawlerLists{}
	}
	return o.app.Lists
}

func (o crawlersOption) dns() *CrawlerDNS {
	if o.app.ReverseDNS == nil {
		o.app.ReverseDNS = &CrawlerDNS{}
	}
	return o.app.ReverseDNS
}

func (o crawlersOption) sigs() *CrawlerSignatures {
	if o.app.Signatures == nil {
		o.app.Signatures = &CrawlerSignatures{}
	}
	return o.app.Signatures
}

// set records that the sub-directive, as written, fills field (positions.markWritten).
func (o crawlersOption) set(field any) {
	o.at.markWritten(field, o.sub, strings.Join(o.args, " "))
}

// one is the one argument of the sub-directive.
func (o crawlersOption) one() (string, error) {
	if len(o.args) != 1 {
		return "", o.d.Errf("crawlers: %s takes one argument", o.sub)
	}
	return o.args[0], nil
}

// duration reads the one argument, a positive duration, into field.
func (o crawlersOption) duration(field *caddy.Duration) error {
	o.set(field)
	v, err := o.one()
	if err != nil {
		return err
	}
	t, err := caddy.ParseDuration(v)
	if err != nil || t <= 0 {
		return o.d.Errf("crawlers: %s %q: a duration such as 12h or 7d", o.sub, v)
	}
	*field = caddy.Duration(t)
	return nil
}

// noArgs is the error of a sub-directive that takes no argument, given some.
func (o crawlersOption) noArgs() error {
	if len(o.args) != 0 {
		return o.d.Errf("crawlers: %s takes no argument", o.sub)
	}
	return nil
}

// parse reads the sub-directive into the app.
func (o crawlersOption) parse() error {
	switch sub := o.sub; sub {
	case "lists":
		return o.parseLists()
	case "list_file":
		return o.parseListFile()
	case "lists_dir":
		o.set(&o.lists().Dir)
		v, err := o.one()
		o.lists().Dir = v
		return err
	case "refresh":
		return o.duration(&o.lists().Refresh)
	case "max_age":
		return o.duration(&o.lists().MaxAge)
	case "fetch_timeout":
		return o.duration(&o.lists().Timeout)
	case "reverse_dns", "dns_max_in_flight", "dns_resolver":
		return o.parseDNS()
	case "dns_timeout":
		return o.duration(&o.dns().Timeout)
	case "dns_wait":
		return o.duration(&o.dns().Wait)
	case "signature_agent":
		return o.parseSignatureAgent()
	case "signatures_replay_protection":
		o.set(&o.sigs().ReplayProtection)
		o.sigs().ReplayProtection = true
		return o.noArgs()
	case "signatures_skew":
		return o.duration(&o.sigs().Skew)
	case "signatures_max_validity":
		return o.duration(&o.sigs().MaxValidity)
	case "store":
		return o.parseStore()
	case "signatures_fetch_untrusted":
		o.set(&o.sigs().FetchUntrusted)
		o.sigs().FetchUntrusted = true
		return o.noArgs()
	}
	msg := fmt.Sprintf("crawlers: unknown sub-directive %q (want %s)", o.sub, strings.Join(crawlersSubdirectives, ", "))
	if c := configerr.Closest(o.sub, crawlersSubdirectives); c != "" {
		msg += fmt.Sprintf("; did you mean %q?", c)
	}
	return o.d.Err(msg)
}

// parseLists reads "lists on|off|offline". "on" is the default, written out so that a
// Caddyfile can take the choice from the environment: lists {$CRAWLER_LISTS:on}.
func (o crawlersOption) parseLists() error {
	o.set(&o.app.Lists)
	v, err := o.one()
	switch {
	case err != nil:
		return err
	case v == "on":
		o.lists()
	case v == "off":
		o.lists().Off = true
	case v == "offline":
		o.lists().Offline = true
	default:
		return o.d.Errf("crawlers: lists %q: on, off or offline", v)
	}
	return nil
}

// parseListFile reads "list_file <url> <file>".
func (o crawlersOption) parseListFile() error {
	if len(o.args) != 2 {
		return o.d.Errf("crawlers: list_file takes the list's URL (as the bot catalogue names it) and a file")
	}
	l := o.lists()
	if l.Local == nil {
		l.Local = map[string]string{}
	}
	l.Local[o.args[0]] = o.args[1]
	o.at.markWritten(entry{&l.Local, o.args[0]}, o.sub, o.args[1])
	return nil
}

// parseDNS reads "reverse_dns on|off" (on, the default, written out for a value from the
// environment), "dns_max_in_flight <n>" or "dns_resolver <ip[:port]>".
func (o crawlersOption) parseDNS() error {
	dns := o.dns()
	v, err := o.one()
	switch o.sub {
	case "reverse_dns":
		o.set(&dns.Off)
		if err == nil && v != "on" && v != "off" {
			err = o.d.Errf("crawlers: reverse_dns %q: on or off", v)
		}
		dns.Off = v == "off"
	case "dns_max_in_flight":
		o.set(&dns.MaxInFlight)
		n, convErr := strconv.Atoi(v)
		if err == nil && (convErr != nil || n <= 0) {
			err = o.d.Errf("crawlers: dns_max_in_flight %q: a positive number", v)
		}
		dns.MaxInFlight = n
	case "dns_resolver":
		o.set(&dns.Resolver)
		if err == nil {
			if _, rerr := identity.ResolverAt(v); rerr != nil {
				err = o.d.Errf("crawlers: dns_resolver %v", rerr)
			}
		}
		dns.Resolver = v
	}
	return err
}

// parseSignatureAgent reads "signature_agent <url> <bot> [<key-file>]".
func (o crawlersOption) parseSignatureAgent() error {
	args := o.args
	if len(args) < 2 || len(args) > 3 {
		return o.d.Errf("crawlers: signature_agent takes the agent's https URL, the bot of the catalogue it is, and optionally a JWK (Set) file of its keys")
	}
	ag := SignatureAgent{URL: args[0], Bot: args[1]}
	if len(args) == 3 {
		ag.KeyFile = args[2]
	}
	sigs := o.sigs()
	sigs.Agents = append(sigs.Agents, ag)
	a := last(sigs.Agents)
	o.at.mark(a)
	for i, f := range []*string{&a.URL, &a.Bot, &a.KeyFile}[:len(args)] {
		o.at.markWritten(f, o.sub, args[i])
	}
	return nil
}

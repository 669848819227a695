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

// crawlersFields are the fields of the app (JSON paths) each sub-directive of the crawlers
// option sets, so that a problem the app finds in a field is reported at its line
// (list_file and signature_agent set an entry of their own: marked where they are read).
var crawlersFields = map[string]string{
	"lists": "lists", "lists_dir": "lists.dir", "refresh": "lists.refresh", "max_age": "lists.max_age", "fetch_timeout": "lists.timeout",
	"reverse_dns": "reverse_dns.off", "dns_resolver": "reverse_dns.resolver", "dns_timeout": "reverse_dns.timeout", "dns_wait": "reverse_dns.wait", "dns_max_in_flight": "reverse_dns.max_in_flight",
	"signatures_fetch_untrusted": "signatures.fetch_untrusted", "signatures_replay_protection": "signatures.replay_protection",
	"signatures_skew": "signatures.skew", "signatures_max_validity": "signatures.max_validity",
}

// parseCrawlersOption reads the "crawlers" global option, which configures the crawlers app
// (crawler verification):
//
//	{
//		crawlers {
//			lists off|offline             # no published lists; or only the local files below
//			list_file <url> <file>        # read the list the catalogue names at <url> from <file>
//			lists_dir <dir>               # where the last good lists are kept (default: Caddy's data dir)
//			refresh <duration>            # how often a list is fetched again (default 24h)
//			max_age <duration>            # a list older than this is not trusted (default 7d)
//			fetch_timeout <duration>      # bound on one fetch (default 30s)
//			reverse_dns off               # no reverse-DNS verification
//			dns_timeout <duration>        # bound on one lookup (default 5s)
//			dns_wait <duration>           # a first request waits this long for its lookup (default: not at all)
//			dns_max_in_flight <n>         # lookups in progress at once (default 32)
//			dns_resolver <ip[:port]>      # the DNS server asked instead of the system's resolver
//			signature_agent <url> <bot> [<key-file>]  # trust a Web Bot Auth agent (repeatable)
//			signatures_fetch_untrusted    # fetch other agents' key directories too
//			signatures_replay_protection  # refuse a nonce seen before
//			signatures_skew <duration>    # clock difference tolerated (default 60s)
//			signatures_max_validity <duration>  # longest validity accepted (default 24h)
//		}
//	}
func parseCrawlersOption(d *caddyfile.Dispenser, existing any) (any, error) {
	if existing != nil {
		// A second block would silently replace the first (say, its lists offline).
		return nil, d.Err("crawlers: given twice; put every sub-directive in one block")
	}
	app := &Crawlers{}
	lists := func() *CrawlerLists {
		if app.Lists == nil {
			app.Lists = &CrawlerLists{}
		}
		return app.Lists
	}
	dns := func() *CrawlerDNS {
		if app.ReverseDNS == nil {
			app.ReverseDNS = &CrawlerDNS{}
		}
		return app.ReverseDNS
	}
	sigs := func() *CrawlerSignatures {
		if app.Signatures == nil {
			app.Signatures = &CrawlerSignatures{}
		}
		return app.Signatures
	}
	d.Next() // the option's name
	at := newPositions(d, "crawlers")
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	for d.NextBlock(0) {
		sub := d.Val()
		args := d.RemainingArgs()
		if path, ok := crawlersFields[sub]; ok {
			at.markWritten(path, sub, strings.Join(args, " "))
		}
		one := func() (string, error) {
			if len(args) != 1 {
				return "", d.Errf("crawlers: %s takes one argument", sub)
			}
			return args[0], nil
		}
		duration := func(set func(caddy.Duration)) error {
			v, err := one()
			if err != nil {
				return err
			}
			t, err := caddy.ParseDuration(v)
			if err != nil || t <= 0 {
				return d.Errf("crawlers: %s %q: a duration such as 12h or 7d", sub, v)
			}
			set(caddy.Duration(t))
			return nil
		}
		var err error
		switch sub {
		case "lists":
			v, e := one()
			switch {
			case e != nil:
				err = e
			case v == "off":
				lists().Off = true
			case v == "offline":
				lists().Offline = true
			default:
				err = d.Errf("crawlers: lists %q: off or offline", v)
			}
		case "list_file":
			if len(args) != 2 {
				return nil, d.Errf("crawlers: list_file takes the list's URL (as the bot catalogue names it) and a file")
			}
			l := lists()
			if l.Local == nil {
				l.Local = map[string]string{}
			}
			l.Local[args[0]] = args[1]
			at.markWritten(configerr.Key("lists.local", args[0]), sub, args[1])
		case "lists_dir":
			v, e := one()
			lists().Dir, err = v, e
		case "refresh":
			err = duration(func(t caddy.Duration) { lists().Refresh = t })
		case "max_age":
			err = duration(func(t caddy.Duration) { lists().MaxAge = t })
		case "fetch_timeout":
			err = duration(func(t caddy.Duration) { lists().Timeout = t })
		case "reverse_dns":
			v, e := one()
			if e == nil && v != "off" {
				e = d.Errf("crawlers: reverse_dns %q: the only value is off", v)
			}
			dns().Off, err = true, e
		case "dns_timeout":
			err = duration(func(t caddy.Duration) { dns().Timeout = t })
		case "dns_wait":
			err = duration(func(t caddy.Duration) { dns().Wait = t })
		case "dns_max_in_flight":
			v, e := one()
			n, convErr := strconv.Atoi(v)
			if e == nil && (convErr != nil || n <= 0) {
				e = d.Errf("crawlers: dns_max_in_flight %q: a positive number", v)
			}
			dns().MaxInFlight, err = n, e
		case "dns_resolver":
			v, e := one()
			if e == nil {
				if _, rerr := identity.ResolverAt(v); rerr != nil {
					e = d.Errf("crawlers: dns_resolver %v", rerr)
				}
			}
			dns().Resolver, err = v, e
		case "signature_agent":
			if len(args) < 2 || len(args) > 3 {
				return nil, d.Errf("crawlers: signature_agent takes the agent's https URL, the bot of the catalogue it is, and optionally a JWK (Set) file of its keys")
			}
			ag := SignatureAgent{URL: args[0], Bot: args[1]}
			if len(args) == 3 {
				ag.KeyFile = args[2]
			}
			path := configerr.Index("signatures.agents", len(sigs().Agents))
			at.mark(path)
			for i, f := range []string{".url", ".bot", ".key_file"}[:len(args)] {
				at.markWritten(path+f, sub, args[i])
			}
			sigs().Agents = append(sigs().Agents, ag)
		case "signatures_replay_protection":
			if len(args) != 0 {
				return nil, d.Errf("crawlers: signatures_replay_protection takes no argument")
			}
			sigs().ReplayProtection = true
		case "signatures_skew":
			err = duration(func(t caddy.Duration) { sigs().Skew = t })
		case "signatures_max_validity":
			err = duration(func(t caddy.Duration) { sigs().MaxValidity = t })
		case "signatures_fetch_untrusted":
			if len(args) != 0 {
				return nil, d.Errf("crawlers: signatures_fetch_untrusted takes no argument")
			}
			sigs().FetchUntrusted = true
		default:
			msg := fmt.Sprintf("crawlers: unknown sub-directive %q (want %s)", sub, strings.Join(crawlersSubdirectives, ", "))
			if c := configerr.Closest(sub, crawlersSubdirectives); c != "" {
				msg += fmt.Sprintf("; did you mean %q?", c)
			}
			err = d.Err(msg)
		}
		if err != nil {
			return nil, err
		}
	}
	// Checked as the app's Provision checks it, so that a problem names its line.
	if err := at.report(app.validate(), false); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "crawlers", Value: caddyconfig.JSON(app, nil)}, nil
}

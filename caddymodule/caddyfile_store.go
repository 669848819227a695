package caddymodule

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/redisstore"
)

// The sub-directives of the crawlers option's "store redis" block, and of its tls block.
var (
	storeSubdirectives    = []string{"address", "username", "password", "db", "tls", "key_prefix", "dial_timeout", "timeout", "backoff"}
	storeTLSSubdirectives = []string{"ca_file", "cert_file", "key_file", "server_name"}
)

// parseStore reads the crawlers option's store (docs/fleet.md), a block:
//
//	store redis {
//		address <host:port|/unix/socket>   # default localhost:6379
//		username <name>
//		password <password>                # {env.REDIS_PASSWORD}: replaced at load
//		db <n>
//		tls                                # TLS with the system's roots; or a block:
//		tls {
//			ca_file <file>
//			cert_file <file>
//			key_file <file>
//			server_name <name>
//		}
//		key_prefix <prefix>                # default caddy-robots:
//		dial_timeout <duration>            # default 1s
//		timeout <duration>                 # one decision's bound, default 100ms
//		backoff <duration>                 # not asked for this long after a failure, default 1s
//	}
func (o crawlersOption) parseStore() error {
	d := o.d
	if len(o.args) != 1 || o.args[0] != "redis" {
		return d.Errf("crawlers: store takes the kind of store, redis (a Redis or Valkey server), and a block of its options")
	}
	if o.app.Store != nil {
		return d.Errf("crawlers: store given twice; give one")
	}
	r := &redisstore.Options{}
	o.app.Store = &CrawlerStore{Redis: r}
	o.at.mark(&o.app.Store.Redis)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		args := d.RemainingArgs()
		one := func(field *string) error {
			o.at.markWritten(field, sub, strings.Join(args, " "))
			if len(args) != 1 {
				return d.Errf("crawlers: store redis: %s takes one argument", sub)
			}
			*field = args[0]
			return nil
		}
		duration := func(field *policy.Duration) error {
			o.at.markWritten(field, sub, strings.Join(args, " "))
			if len(args) != 1 {
				return d.Errf("crawlers: store redis: %s takes one argument", sub)
			}
			t, err := caddy.ParseDuration(args[0])
			if err != nil || t <= 0 {
				return d.Errf("crawlers: store redis: %s %q: a duration such as 100ms or 2s", sub, args[0])
			}
			*field = policy.Duration(t)
			return nil
		}
		var err error
		switch sub {
		case "address":
			err = one(&r.Address)
		case "username":
			err = one(&r.Username)
		case "password":
			err = one(&r.Password)
		case "key_prefix":
			err = one(&r.KeyPrefix)
		case "db":
			o.at.markWritten(&r.DB, sub, strings.Join(args, " "))
			var s string
			if err = one(&s); err == nil {
				n, convErr := strconv.Atoi(s)
				if convErr != nil || n < 0 {
					err = d.Errf("crawlers: store redis: db %q: a database number, 0 or more", s)
				}
				r.DB = n
			}
		case "dial_timeout":
			err = duration(&r.DialTimeout)
		case "timeout":
			err = duration(&r.Timeout)
		case "backoff":
			err = duration(&r.Backoff)
		case "tls":
			err = o.parseStoreTLS(r, args)
		default:
			err = unknownIn(d, "crawlers: store redis", sub, storeSubdirectives)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parseStoreTLS reads "tls", alone or with a block of its options.
func (o crawlersOption) parseStoreTLS(r *redisstore.Options, args []string) error {
	d := o.d
	if len(args) != 0 {
		return d.Errf("crawlers: store redis: tls takes no argument, only a block")
	}
	if r.TLS != nil {
		return d.Errf("crawlers: store redis: tls given twice; give one")
	}
	r.TLS = &redisstore.TLS{Enabled: true}
	o.at.mark(&r.TLS)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		var field *string
		switch sub {
		case "ca_file":
			field = &r.TLS.CAFile
		case "cert_file":
			field = &r.TLS.CertFile
		case "key_file":
			field = &r.TLS.KeyFile
		case "server_name":
			field = &r.TLS.ServerName
		default:
			return unknownIn(d, "crawlers: store redis: tls", sub, storeTLSSubdirectives)
		}
		o.at.mark(field)
		if !d.NextArg() {
			return d.Errf("crawlers: store redis: tls: %s takes one argument", sub)
		}
		*field = d.Val()
		if d.NextArg() {
			return d.Errf("crawlers: store redis: tls: %s takes one argument", sub)
		}
	}
	return nil
}

// unknownIn is the error of an unknown sub-directive sub of block, naming those it takes
// and the closest one.
func unknownIn(d interface{ Err(string) error }, block, sub string, known []string) error {
	msg := fmt.Sprintf("%s: unknown sub-directive %q (want %s)", block, sub, strings.Join(known, ", "))
	if c := configerr.Closest(sub, known); c != "" {
		msg += fmt.Sprintf("; did you mean %q?", c)
	}
	return d.Err(msg)
}

package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/sitepolicy/caddy-robots/policy"
)

// Pay per crawl (x402 version 2) in robots_txt's block: policy.Pay, docs/payment.md.
//
//	robots_txt {
//		pay {                               # charge verified crawlers per request (x402)
//			facilitator <url>               # the facilitator's base URL (/verify, /settle, /supported)
//			network <network>               # CAIP-2, e.g. eip155:8453 (Base)
//			asset <address>                 # what is paid: the token's contract address
//			decimals <n>                    # the asset's decimal places (6 for USDC)
//			pay_to <address>                # the recipient's address
//			extra <key> <value>             # the scheme's extra data, e.g. extra name USDC; repeatable
//			max_timeout <duration>          # the time allowed to pay, whole seconds (default 60s)
//			facilitator_timeout <duration>  # bound on one facilitator call (default 10s)
//			max_in_flight <n>               # facilitator calls in flight at once (default 32)
//			remember_payments <n>           # payments remembered so none serves twice (default 65536)
//			price <amount> [<crawler>...] { # a price, e.g. 0.001; the first that applies decides
//				crawlers <crawler>...       # who pays (same as the arguments): a name of the
//				                            # catalogue (GPTBot) or preset:<category>
//				except <crawler>...         # but not these crawlers of the presets
//				paths <pattern>...          # the paths priced (robots_tag's patterns, /articles/*);
//				                            # default every path, or the license's content
//				license <path>              # the license document whose crawl payment this is
//			}
//		}
//	}
//
// The block fills policy.Pay field for field; the core checks the values (an amount with more
// decimal places than the asset has, a crawler no catalogue knows, a license whose payment
// is not crawl), and each problem names the line of the token that produced the field. Every
// value but the numbers may be a global placeholder, replaced when the config is provisioned:
// pay_to {env.PAY_TO}.

// paySubdirectives and priceSubdirectives are the sub-directives of pay's block and of a
// price's.
var (
	paySubdirectives   = []string{"facilitator", "network", "asset", "decimals", "pay_to", "extra", "max_timeout", "facilitator_timeout", "max_in_flight", "remember_payments", "price"}
	priceSubdirectives = []string{"crawlers", "except", "paths", "license"}
)

// unmarshalPay reads "pay { ... }" into h.Pay; the cursor is on "pay".
func (h *RobotsTxt) unmarshalPay(d *caddyfile.Dispenser, at *positions) error {
	if h.Pay != nil {
		return errf(d, "robots_txt: pay given twice")
	}
	if d.NextArg() {
		return errf(d, "robots_txt: pay takes no argument: configure it in a block, e.g. pay { facilitator https://facilitator.example ... price 0.001 GPTBot }")
	}
	h.Pay = &policy.Pay{}
	at.mark(&h.Pay)
	return parsePay(d, at, h.Pay)
}

// parsePay reads pay's block into p.
func parsePay(d *caddyfile.Dispenser, at *positions, p *policy.Pay) error {
	strs := map[string]*string{"facilitator": &p.Facilitator, "network": &p.Network, "asset": &p.Asset, "pay_to": &p.PayTo}
	durations := map[string]*policy.Duration{"max_timeout": &p.MaxTimeout, "facilitator_timeout": &p.FacilitatorTimeout}
	ints := map[string]*int{"max_in_flight": &p.MaxInFlight, "remember_payments": &p.RememberPayments}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		if sub != "extra" && sub != "price" {
			if seen[sub] {
				return errf(d, "robots_txt: pay: %s given twice", sub)
			}
			seen[sub] = true
		}
		var err error
		switch sub {
		case "facilitator", "network", "asset", "pay_to":
			err = parsePayString(d, at, sub, strs[sub])
		case "decimals":
			var n int
			if n, err = payNumber(d, "decimals takes the asset's number of decimal places, e.g. decimals 6 (USDC)"); err == nil {
				p.Decimals = &n
				at.markWritten(&p.Decimals, sub, strconv.Itoa(n))
			}
		case "max_in_flight", "remember_payments":
			var n int
			if n, err = payNumber(d, sub+" takes one number"); err == nil {
				*ints[sub] = n
				at.markWritten(ints[sub], sub, strconv.Itoa(n))
			}
		case "max_timeout", "facilitator_timeout":
			err = parsePayDuration(d, at, sub, durations[sub])
		case "extra":
			err = parsePayExtra(d, at, p)
		case "price":
			err = parsePrice(d, at, p)
		default:
			err = notInBlock(d, "robots_txt: pay's block", paySubdirectives)
		}
		if err != nil {
			return err
		}
	}
	// A field left out (prices, decimals) is named by the core at pay's line: the nearest
	// marked parent.
	return nil
}

// parsePayString reads "<sub> <value>" into field.
func parsePayString(d *caddyfile.Dispenser, at *positions, sub string, field *string) error {
	usage := map[string]string{
		"facilitator": "facilitator takes the facilitator's base URL, e.g. facilitator https://facilitator.example/x402",
		"network":     "network takes one CAIP-2 network, e.g. network eip155:8453 (Base)",
		"asset":       "asset takes the address of the token paid with",
		"pay_to":      "pay_to takes the recipient's address, e.g. pay_to {env.PAY_TO}",
	}[sub]
	v, err := oneArg(d, "robots_txt: pay: "+usage)
	if err != nil {
		return err
	}
	*field = v
	at.mark(field)
	return nil
}

// payNumber reads the one argument of the current line as a whole number, written as JSON
// writes it ("06" and "+6" are refused: they are no number the config would show).
func payNumber(d *caddyfile.Dispenser, usage string) (int, error) {
	s, err := oneArg(d, "robots_txt: pay: "+usage)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(n) != s {
		return 0, parseErrorf(d, s, "", "robots_txt: pay: %s; got %q", usage, s)
	}
	return n, nil
}

// parsePayDuration reads "<sub> <duration>" into field.
func parsePayDuration(d *caddyfile.Dispenser, at *positions, sub string, field *policy.Duration) error {
	s, err := oneArg(d, "robots_txt: pay: "+sub+" takes one duration, e.g. 60s")
	if err != nil {
		return err
	}
	v, err := caddy.ParseDuration(s)
	if err != nil {
		return parseErrorf(d, s, "", "robots_txt: pay: %s: %v", sub, durationError(s, err))
	}
	if v == 0 {
		// The config cannot tell 0 from "not set", which means the default.
		return parseErrorf(d, s, "", "robots_txt: pay: %s %q: would mean the default; leave %s out, or give more than 0", sub, s, sub)
	}
	*field = policy.Duration(v)
	at.markWritten(field, sub, s)
	return nil
}

// parsePayExtra reads "extra <key> <value>" into p.Extra.
func parsePayExtra(d *caddyfile.Dispenser, at *positions, p *policy.Pay) error {
	args := d.RemainingArgs()
	if len(args) != 2 {
		return errf(d, "robots_txt: pay: extra takes a key and a value, e.g. extra name USDC (got %d arguments)", len(args))
	}
	if _, dup := p.Extra[args[0]]; dup {
		return parseErrorf(d, args[0], "", "robots_txt: pay: extra %s given twice", args[0])
	}
	if p.Extra == nil {
		p.Extra = map[string]string{}
		at.mark(&p.Extra)
	}
	p.Extra[args[0]] = args[1]
	at.mark(entry{&p.Extra, args[0]})
	return nil
}

// parsePrice reads "price <amount> [<crawler>...] { ... }" into a new price of p; the cursor
// is on "price".
func parsePrice(d *caddyfile.Dispenser, at *positions, p *policy.Pay) error {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return errf(d, "robots_txt: pay: price takes the amount, an exact decimal of the asset, and the crawlers who pay, e.g. price 0.001 GPTBot { paths /articles/* }")
	}
	p.Prices = append(p.Prices, policy.Price{Amount: args[0]})
	pr := last(p.Prices)
	at.mark(pr)
	at.mark(&pr.Amount)
	appendMarked(at, &pr.Crawlers, args[1:])
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch sub := d.Val(); sub {
		case "crawlers", "except", "paths":
			vals := d.RemainingArgs()
			if len(vals) == 0 {
				return errf(d, "robots_txt: pay: price: %s needs at least one %s", sub, map[string]string{"crawlers": "crawler, e.g. GPTBot or preset:ai-training", "except": "crawler of the presets to leave out", "paths": "path pattern, e.g. /articles/*"}[sub])
			}
			list := map[string]*[]string{"crawlers": &pr.Crawlers, "except": &pr.Except, "paths": &pr.Paths}[sub]
			appendMarked(at, list, vals)
		case "license":
			if pr.License != "" {
				return errf(d, "robots_txt: pay: price: license given twice")
			}
			v, err := oneArg(d, "robots_txt: pay: price: license takes the path of a license_document, e.g. license /license.xml")
			if err != nil {
				return err
			}
			pr.License = v
			at.mark(&pr.License)
		default:
			return notInBlock(d, "robots_txt: pay: price's block", priceSubdirectives)
		}
	}
	return nil
}

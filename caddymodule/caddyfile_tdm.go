package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/sitepolicy/caddy-robots/policy"
)

// The TDMRep declaration of a robots_tag route in the Caddyfile:
//
//	robots_tag ... {
//		tdm <1|0|derive> [<policy-url>]   # tdm-reservation (and tdm-policy) response fields
//	}
//
// 1 reserves TDM rights, 0 says they are not reserved, derive reserves them because the
// route's content_usage says train-ai=n (policy.TDM). The adapter only places the words in
// the JSON; the core checks them, and its errors name this line.

// parseTagTDM reads "tdm <reservation> [<policy-url>]" into h.TDM.
func parseTagTDM(d *caddyfile.Dispenser, at *positions, h *RobotsTag) error {
	const usage = "robots_tag: tdm takes a reservation, 1 (TDM rights reserved), 0 (not reserved) or derive (1 where content_usage says train-ai=n), and optionally the URL of a TDM policy, e.g. tdm 1 https://example.com/policies/tdm.json"
	if h.TDM != nil {
		return errf(d, "robots_tag: tdm given twice")
	}
	args := d.RemainingArgs()
	if len(args) < 1 || len(args) > 2 {
		return errf(d, "%s (got %d arguments)", usage, len(args))
	}
	if d.NextBlock(d.Nesting()) {
		return errf(d, "%s; it takes no block", usage)
	}
	t := &policy.TDM{}
	if args[0] == "derive" {
		t.Derive = true
	} else {
		// A number written as JSON writes it, for the core to check as it checks JSON's (2 is
		// refused there, with the same words); "01", "-0" or "+1" are not the report's 1 or 0,
		// though Atoi reads them so.
		n, err := strconv.Atoi(args[0])
		if err != nil || strconv.Itoa(n) != args[0] {
			return errf(d, "%s; got %q", usage, args[0])
		}
		t.Reservation = &n
	}
	if len(args) == 2 {
		t.Policy = args[1]
	}
	h.TDM = t
	at.mark(&h.TDM)
	if t.Derive {
		at.mark(&t.Derive)
	} else {
		at.mark(&t.Reservation)
	}
	if t.Policy != "" {
		at.mark(&t.Policy)
	}
	return nil
}

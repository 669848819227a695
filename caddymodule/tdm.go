package caddymodule

import (
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
	// Exactly the words the report writes: "01" or "-0" would be a 1 or a 0 only to Atoi.
	switch args[0] {
	case "derive":
		at.mark("tdm.derive")
		t.Derive = true
	case "0", "1":
		n := int(args[0][0] - '0')
		at.mark("tdm.reservation")
		t.Reservation = &n
	default:
		return errf(d, "%s; got %q", usage, args[0])
	}
	if len(args) == 2 {
		at.mark("tdm.policy")
		t.Policy = args[1]
	}
	at.mark("tdm")
	h.TDM = t
	return nil
}

package policycheck

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// Payment is what robots_txt's pay (x402 pay per crawl, docs/payment.md) asks of the request:
// the price a verified crawler of its User-Agent is asked for the URL, and whether this
// request, with its identity as the check verified it, is asked it.
type Payment struct {
	// Location is the pay block's place in the config.
	Location Location `json:"location"`
	// Price is what a verified crawler of the User-Agent is asked for the URL, as the server
	// asks it; null when no price applies (a browser, a crawler no price names, a path not
	// priced, robots.txt, a license document, tdmrep.json).
	Price *Price `json:"price"`
	// Asked is true when this request, as checked (its identity verified, and enforcement
	// letting it through), is answered 402 Payment Required with Price until it pays.
	Asked bool `json:"asked"`
	// Reason says why the request is asked, or why not.
	Reason string `json:"reason"`
}

// Price is one price as the 402's PAYMENT-REQUIRED states it (x402 PaymentRequirements,
// scheme "exact"), with the amount also in decimal.
type Price struct {
	// Amount is the price in the asset's units, an exact decimal ("0.001").
	Amount string `json:"amount"`
	// Atomic is the price in the asset's atomic units, as sent ("1000" with 6 decimals).
	Atomic string `json:"atomic"`
	// Decimals is the asset's number of decimal places.
	Decimals int `json:"decimals"`
	// Asset, Network and PayTo are what is paid, on which network (CAIP-2), to whom.
	Asset   string `json:"asset"`
	Network string `json:"network"`
	PayTo   string `json:"pay_to"`
	// MaxTimeoutSeconds is the time allowed to pay.
	MaxTimeoutSeconds int `json:"max_timeout_seconds"`
	// Resource is the URL the payment is for.
	Resource string `json:"resource"`
	// Facilitator is the facilitator that verifies and settles the payment.
	Facilitator string `json:"facilitator"`
}

// pay fills rep.Payment when site charges crawlers: core answers, as it serves probe, what a
// verified crawler of the User-Agent is asked, and id (the request's identity as checked,
// nil when the check verified none) whether this request is.
func (rep *Report) pay(core *serve.Core, site *Site, probe *http.Request, id func(*http.Request) identity.Identity) {
	if site.RobotsTxt == nil || site.RobotsTxt.Config.Pay == nil || core == nil {
		return
	}
	cfg := site.RobotsTxt.Config.Pay
	pm := &Payment{Location: site.RobotsTxt.Source.At("pay")}
	rep.Payment = pm
	bot, name, named := crawlers.IdentifyBotName(rep.Agent)
	if core.IsRobotsTxt(probe) || probe.URL.Path == tdmrep.WellKnownPath {
		pm.Reason = "robots.txt, the license documents and tdmrep.json are never priced"
		return
	}
	if !named {
		pm.Reason = "the User-Agent names no crawler of the catalogues: a browser, or any client that names no crawler, is never asked to pay"
		return
	}
	req, res, ok := core.Price(probe, identity.Identity{Bot: bot, Name: name, Status: identity.Verified})
	if !ok {
		pm.Reason = fmt.Sprintf("no price of pay names %s at this path: it is served as the rest of the policy says", name)
		return
	}
	pm.Price = &Price{Amount: decimalAmount(req.Amount, *cfg.Decimals), Atomic: req.Amount, Decimals: *cfg.Decimals, Asset: req.Asset, Network: req.Network,
		PayTo: req.PayTo, MaxTimeoutSeconds: req.MaxTimeoutSeconds, Resource: res.URL, Facilitator: cfg.Facilitator}
	var got identity.Identity
	if id != nil {
		got = id(probe)
	}
	switch {
	case rep.Enforcement.Blocked:
		pm.Reason = fmt.Sprintf("enforcement answers the request first, with %d: a refused request is never asked to pay", rep.Enforcement.Status)
	case id == nil:
		pm.Reason = fmt.Sprintf("only a verified %s is asked to pay, and this check verified nothing: give the client's address (--client-ip) with the site's crawler lists, or a Web Bot Auth signature's header lines, to check this request", name)
	case got.Status != identity.Verified:
		pm.Reason = fmt.Sprintf("its claim to be %s is %s, not verified: only a verified crawler is asked to pay, and this request is served as the rest of the policy says, never shown a price", name, got.Status)
	default:
		pm.Asked = true
		by := got.By
		if by == "" {
			by = "verified"
		}
		pm.Reason = fmt.Sprintf("%s is verified (%s): answered 402 Payment Required with this price until it sends a PAYMENT-SIGNATURE that the facilitator verifies, then served and the payment settled", name, by)
	}
}

// decimalAmount writes an amount of atomic units as a decimal of the asset with decimals
// places, exactly (no floating point), without trailing zeros: "1000" with 6 is "0.001".
func decimalAmount(atomic string, decimals int) string {
	if decimals <= 0 {
		return atomic
	}
	if len(atomic) <= decimals {
		atomic = strings.Repeat("0", decimals-len(atomic)+1) + atomic
	}
	whole, frac := atomic[:len(atomic)-decimals], strings.TrimRight(atomic[len(atomic)-decimals:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// write writes the payment section of the text report.
func (pm *Payment) write(p func(format string, args ...any)) {
	p("Pay per crawl (pay at %s):", pm.Location)
	if pr := pm.Price; pr != nil {
		p("  price:  %s (%s atomic units, %d decimals) of %s on %s, to %s; %d s to pay", pr.Amount, pr.Atomic, pr.Decimals, pr.Asset, pr.Network, pr.PayTo, pr.MaxTimeoutSeconds)
		p("  for:    %s, through the facilitator %s", pr.Resource, pr.Facilitator)
	} else {
		p("  price:  none")
	}
	asked := "no"
	if pm.Asked {
		asked = "YES"
	}
	p("  asked:  %s: %s", asked, pm.Reason)
}

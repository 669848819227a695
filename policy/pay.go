package policy

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/x402"
)

// Defaults and bounds of Pay.
const (
	// DefaultPayMaxTimeout is Pay.MaxTimeout when it is 0: the x402 maxTimeoutSeconds.
	DefaultPayMaxTimeout = 60 * time.Second
	// MaxPayMaxTimeout is the longest Pay.MaxTimeout accepted.
	MaxPayMaxTimeout = time.Hour
	// MaxFacilitatorTimeout is the longest Pay.FacilitatorTimeout accepted.
	MaxFacilitatorTimeout = time.Minute
	// MaxFacilitatorInFlight is the largest Pay.MaxInFlight accepted.
	MaxFacilitatorInFlight = 4096
	// MaxPaymentIDs is the largest Pay.RememberPayments accepted.
	MaxPaymentIDs = 1 << 22
	// DefaultPaymentIDs is Pay.RememberPayments when it is 0.
	DefaultPaymentIDs = 1 << 16
)

// Pay charges verified crawlers per request with x402 version 2 (docs/payment.md): a priced
// request without payment is answered 402 Payment Required with the price; one with a
// PAYMENT-SIGNATURE is verified by the facilitator, served, and settled before the response
// leaves. Only a crawler whose identity is verified (its address lists, reverse DNS, or a
// Web Bot Auth signature) is ever asked to pay: a browser, or a request that only claims a
// crawler's name, follows the rest of the policy and never sees a price. robots.txt, the RSL
// license documents and /.well-known/tdmrep.json are never priced. It needs the front end's
// crawler verification (the Caddy "crawlers" app, nethttp's Options.Verifier or Signatures).
//
// One Pay has one way to be paid (network, asset, recipient, facilitator) and prices per
// crawler and path.
type Pay struct {
	// Facilitator is the facilitator's base URL; its endpoints are /verify, /settle and
	// /supported under it: an absolute https URL (http only on a loopback address).
	Facilitator string `json:"facilitator"`
	// Network is the network paid on, CAIP-2 ("eip155:8453" is Base, "eip155:84532" Base
	// Sepolia).
	Network string `json:"network"`
	// Asset is what is paid: the token's contract address on Network (or an ISO 4217 code
	// for a fiat network).
	Asset string `json:"asset"`
	// Decimals is the asset's number of decimal places (6 for USDC): a price of "0.001" is
	// 1000 atomic units with 6. Required: a missing one would scale every price.
	Decimals *int `json:"decimals"`
	// PayTo is the recipient's address.
	PayTo string `json:"pay_to"`
	// Extra is the scheme's extra data sent with the requirements: for "exact" on EVM
	// networks, the token's EIP-712 domain {"name": "USDC", "version": "2"}.
	Extra map[string]string `json:"extra,omitempty"`
	// MaxTimeout is the time allowed to pay (maxTimeoutSeconds), whole seconds from 1s to 1h;
	// 0 means 60s.
	MaxTimeout Duration `json:"max_timeout,omitempty"`
	// FacilitatorTimeout bounds each call to the facilitator, at most 1m; 0 means 10s.
	FacilitatorTimeout Duration `json:"facilitator_timeout,omitempty"`
	// MaxInFlight bounds the facilitator calls in flight at once; a priced request over it
	// is answered 402 (never served free). 0 means 32.
	MaxInFlight int `json:"max_in_flight,omitempty"`
	// RememberPayments is how many payments settled are remembered so that one is never
	// served twice (the facilitator refuses a spent authorization too); 0 means 65536.
	RememberPayments int `json:"remember_payments,omitempty"`
	// Prices are the prices, the first that applies to a request deciding it.
	Prices []Price `json:"prices"`
}

// Price is what a verified crawler pays for a request for one of some paths.
type Price struct {
	// Crawlers are who pays: crawler names as the catalogues spell them ("GPTBot",
	// compared without case) and categories written "preset:<category>" ("preset:ai-training").
	// Required: nobody pays by default.
	Crawlers []string `json:"crawlers"`
	// Except names crawlers of the presets who do not pay.
	Except []string `json:"except,omitempty"`
	// Paths are path patterns as robots_tag routes have them ("/articles/*"); empty with
	// License, the paths of that license's crawl-paid content; empty without it, every path.
	Paths []string `json:"paths,omitempty"`
	// Amount is the price as an exact decimal amount of the asset ("0.001"), never more
	// decimal places than the asset has.
	Amount string `json:"amount"`
	// License, if set, is the path of a license document (robots_txt.license_documents)
	// whose content this price is for: that content's <payment> must be type "crawl", and
	// without Paths its content URLs are the paths priced. An RSL document's crawl payment and
	// a price for the same content never disagree: a price over content whose license says
	// otherwise is refused (serve.New).
	License string `json:"license,omitempty"`
}

// caip2 is a CAIP-2 chain id: namespace ":" reference.
var caip2 = regexp.MustCompile(`^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$`)

// Validate checks p on its own, every problem a *configerr.Error with its path under "pay"
// is left to the caller: "facilitator", "prices[0].amount". What needs the rest of the config
// (path patterns, license documents, crawler verification) serve.New checks.
func (p *Pay) Validate() error {
	var errs []error
	add := func(path, value, msg string) { errs = append(errs, configerr.New(path, value, msg)) }
	if p.Facilitator == "" {
		add("facilitator", "", "required: the facilitator that verifies and settles payments")
	} else if msg := x402.CheckFacilitatorURL(p.Facilitator); msg != "" {
		add("facilitator", p.Facilitator, msg)
	}
	if !caip2.MatchString(p.Network) {
		add("network", p.Network, `must be a CAIP-2 network id, e.g. "eip155:8453" (Base)`)
	}
	checkWord := func(path, v, what string) {
		switch {
		case v == "":
			add(path, "", "required: "+what)
		case len(v) > 256 || strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0:
			add(path, v, what+": printable ASCII without spaces, at most 256 bytes")
		}
	}
	checkWord("asset", p.Asset, "the asset's address (or ISO 4217 code)")
	checkWord("pay_to", p.PayTo, "the recipient's address")
	if p.Decimals == nil {
		add("decimals", "", "required: the asset's decimal places (6 for USDC)")
	} else if *p.Decimals < 0 || *p.Decimals > 36 {
		add("decimals", fmt.Sprint(*p.Decimals), "must be 0 to 36")
	}
	for k, v := range p.Extra {
		if len(k)+len(v) > 256 {
			add(configerr.Key("extra", k), v, "at most 256 bytes")
		}
	}
	if d := time.Duration(p.MaxTimeout); d < 0 || d > MaxPayMaxTimeout || d%time.Second != 0 || (d > 0 && d < time.Second) {
		add("max_timeout", p.MaxTimeout.String(), "must be whole seconds from 1s to 1h (0 means 60s)")
	}
	if d := time.Duration(p.FacilitatorTimeout); d < 0 || d > MaxFacilitatorTimeout {
		add("facilitator_timeout", p.FacilitatorTimeout.String(), "must be at most 1m (0 means 10s)")
	}
	if p.MaxInFlight < 0 || p.MaxInFlight > MaxFacilitatorInFlight {
		add("max_in_flight", fmt.Sprint(p.MaxInFlight), fmt.Sprintf("must be 0 to %d (0 means 32)", MaxFacilitatorInFlight))
	}
	if p.RememberPayments < 0 || p.RememberPayments > MaxPaymentIDs {
		add("remember_payments", fmt.Sprint(p.RememberPayments), fmt.Sprintf("must be 0 to %d (0 means %d)", MaxPaymentIDs, DefaultPaymentIDs))
	}
	if len(p.Prices) == 0 {
		add("prices", "", "required: at least one price")
	}
	for i := range p.Prices {
		errs = append(errs, configerr.Prefix(configerr.Index("prices", i), p.Prices[i].validate(p.Decimals)))
	}
	return configerr.Join(errs...)
}

// validate checks a price's own fields (paths are serve's: they are compiled there).
func (pr *Price) validate(decimals *int) error {
	var errs []error
	add := func(path, value, msg string) { errs = append(errs, configerr.New(path, value, msg)) }
	if len(pr.Crawlers) == 0 {
		add("crawlers", "", `required: the crawlers who pay, by name ("GPTBot") or category ("preset:ai-training")`)
	}
	var presets []string
	for j, c := range pr.Crawlers {
		at := configerr.Index("crawlers", j)
		if cat, ok := strings.CutPrefix(c, "preset:"); ok {
			if _, err := crawlers.Category(cat); err != nil {
				add(at, c, err.Error())
			}
			presets = append(presets, cat)
			continue
		}
		if _, ok := PricedName(c); !ok {
			add(at, c, "not a crawler either catalogue knows: only a crawler that can be verified can be charged")
		}
	}
	if len(pr.Except) > 0 {
		if len(presets) == 0 {
			add("except", "", "except leaves crawlers out of presets, and crawlers names none")
		} else {
			for j, n := range pr.Except {
				if msg, sug := crawlers.ExceptProblem(n, presets); msg != "" {
					errs = append(errs, &configerr.Error{Path: configerr.Index("except", j), Value: n, Problem: msg, Suggestion: sug})
				}
			}
		}
	}
	if pr.Amount == "" {
		add("amount", "", `required: the price, an exact decimal amount of the asset ("0.001")`)
	} else if decimals != nil {
		if _, err := x402.AtomicAmount(pr.Amount, *decimals); err != nil {
			add("amount", pr.Amount, err.Error())
		}
	}
	return configerr.Join(errs...)
}

// PricedName is the catalogue's spelling of a crawler name a price may charge (compared
// without case): a name of the bot catalogue, or of the AI catalogue. ok is false for any
// other name.
func PricedName(name string) (string, bool) {
	for _, bn := range crawlers.BotNames() {
		if strings.EqualFold(bn.Name, name) {
			return bn.Name, true
		}
	}
	return "", false
}

// Atomic is the price's amount in the asset's atomic units (x402.AtomicAmount); the Pay must
// be valid.
func (pr *Price) Atomic(decimals int) (string, error) { return x402.AtomicAmount(pr.Amount, decimals) }

package policycheck

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// gptbotOnLoopback is a crawler verification that proves GPTBot's claim from a loopback
// address (a local copy of OpenAI's list naming 127.0.0.0/8 and ::1), offline, and no other
// crawler's (their lists are absent: Pending, never an impostor).
func gptbotOnLoopback(t *testing.T) *identity.Service {
	t.Helper()
	list := filepath.Join(t.TempDir(), "gptbot.json")
	if err := os.WriteFile(list, []byte(`{"creationTime":"2026-11-20T00:00:00","prefixes":[{"ipv4Prefix":"127.0.0.0/8"},{"ipv6Prefix":"::1/128"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := identity.NewService(identity.ServiceOptions{NoDNS: true, Lists: identity.ListsOptions{Offline: true, ReadOnly: true, Dir: t.TempDir(),
		Local: map[string]string{"https://openai.com/gptbot.json": list}}})
	svc.Start(context.Background())
	t.Cleanup(svc.Stop)
	return svc
}

// genAmount is a price of at most decimals places, never zero.
func genAmount(r interface{ IntN(int) int }, decimals int) string {
	s := []byte{byte('0' + r.IntN(3))}
	if places := r.IntN(decimals + 1); places > 0 {
		s = append(s, '.')
		for range places {
			s = append(s, byte('0'+r.IntN(10)))
		}
	}
	if strings.Trim(string(s), "0.") == "" {
		return "1"
	}
	return string(s)
}

// genPay gives one config in three a pay block: prices of generated amounts for crawlers by
// name and by preset (with except), on some of the test's paths, and at times a license
// document's crawl-paid content priced through the license. The facilitator is never
// called: no request pays.
func genPay(r interface{ IntN(int) int }, cfg *nethttp.RobotsTxtConfig) {
	if r.IntN(3) != 0 {
		return
	}
	dec := []int{0, 2, 6, 18}[r.IntN(4)]
	p := &policy.Pay{Facilitator: "http://127.0.0.1:9/x402", Network: []string{"eip155:84532", "eip155:8453"}[r.IntN(2)],
		Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", Decimals: &dec, PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}
	if r.IntN(2) == 0 {
		p.Extra = map[string]string{"name": "USDC", "version": "2"}
	}
	if r.IntN(2) == 0 {
		p.MaxTimeout = policy.Duration(30e9)
	}
	if r.IntN(2) == 0 {
		p.FacilitatorTimeout = policy.Duration(2e9)
	}
	if r.IntN(2) == 0 {
		p.MaxInFlight = 4
	}
	if r.IntN(2) == 0 {
		p.RememberPayments = 100
	}
	patterns := []string{"/a/*", "/b", "*.pdf", "/private/*", "/open/*", "/license.xml"}
	for range 1 + r.IntN(3) {
		pr := policy.Price{Amount: genAmount(r, dec)}
		switch r.IntN(3) {
		case 0:
			pr.Crawlers = []string{[]string{"GPTBot", "ClaudeBot", "Googlebot", "CCBot"}[r.IntN(4)]}
		case 1:
			pr.Crawlers = []string{"preset:ai-training"}
			if r.IntN(2) == 0 {
				pr.Except = []string{"GPTBot"}
			}
		default:
			pr.Crawlers = []string{"PerplexityBot", "GPTBot"}
		}
		for range r.IntN(3) {
			pr.Paths = append(pr.Paths, patterns[r.IntN(len(patterns))])
		}
		p.Prices = append(p.Prices, pr)
	}
	if r.IntN(2) == 0 {
		if len(cfg.LicenseDocuments) == 0 {
			cfg.LicenseDocuments = []rsl.Document{{Path: "/license.xml"}}
		}
		d := &cfg.LicenseDocuments[0]
		d.Content = append(d.Content, rsl.Content{URL: "/open/", Permits: []string{"ai-train"}, Payment: &rsl.Payment{Type: "crawl"}})
		p.Prices = append(p.Prices, policy.Price{Crawlers: []string{"GPTBot"}, Amount: genAmount(r, dec), License: d.Path})
	}
	cfg.Pay = p
}

// agreePay checks, for one request served and checked, that the server asked a price
// exactly when check says the request is asked, and the price check shows: the
// PAYMENT-REQUIRED header's requirements (read here from the specification's base64 JSON,
// not with package x402), the resource, and the decimal amount (exactly the atomic one
// scaled by the asset's decimals).
func agreePay(cfg *nethttp.RobotsTxtConfig, rep *Report, res *http.Response, n map[string]int, fail func(string, ...any)) {
	served := res.StatusCode == http.StatusPaymentRequired
	if cfg.Pay == nil {
		if served || rep.Payment != nil {
			fail("no pay config, yet 402 %v or a payment in check %+v", served, rep.Payment)
		}
		return
	}
	pm := rep.Payment
	if pm == nil {
		fail("pay config, and no payment in check")
		return
	}
	if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") != "" {
		return // crawl-delay answers before the price, and check does not predict it
	}
	if served != pm.Asked {
		fail("served %d, check says asked %v (%s)", res.StatusCode, pm.Asked, pm.Reason)
	}
	if pm.Asked && pm.Price == nil {
		fail("check asks no price")
	}
	if !served {
		return
	}
	n["asked to pay"]++
	raw, err := base64.StdEncoding.DecodeString(res.Header.Get("Payment-Required"))
	var required struct {
		X402Version int `json:"x402Version"`
		Resource    struct {
			URL string `json:"url"`
		} `json:"resource"`
		Accepts []struct {
			Scheme, Network, Amount, Asset, PayTo string
			MaxTimeoutSeconds                     int
		} `json:"accepts"`
	}
	if err != nil || json.Unmarshal(raw, &required) != nil || len(required.Accepts) != 1 {
		fail("PAYMENT-REQUIRED %q is not base64 JSON with one requirement: %v", res.Header.Get("Payment-Required"), err)
		return
	}
	a, pr := required.Accepts[0], pm.Price
	if required.X402Version != 2 || a.Scheme != "exact" || a.Amount != pr.Atomic || a.Asset != pr.Asset || a.Network != pr.Network || a.PayTo != pr.PayTo ||
		a.MaxTimeoutSeconds != pr.MaxTimeoutSeconds || required.Resource.URL != pr.Resource {
		fail("served %s, check shows %+v", raw, pr)
	}
	atomic, ok1 := new(big.Rat).SetString(pr.Atomic)
	amount, ok2 := new(big.Rat).SetString(pr.Amount)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(pr.Decimals)), nil))
	if !ok1 || !ok2 || pr.Decimals != *cfg.Pay.Decimals || amount.Mul(amount, scale).Cmp(atomic) != 0 {
		fail("check's amount %s is not %s atomic units at %d decimals", pr.Amount, pr.Atomic, pr.Decimals)
	}
}

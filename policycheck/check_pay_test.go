package policycheck

import (
	"bytes"
	"strings"
	"testing"
)

// TestCheckPayment: check shows the price a verified crawler is asked for a URL, and says
// why a request is not asked: a browser, a claim not verified (impostor, pending, or no
// verification in the check), a request enforcement refuses first, robots.txt, a path no
// price names.
func TestCheckPayment(t *testing.T) {
	const config = `{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]},
	  {"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/articles/private/"}]}],
	  "enforce": {},
	  "pay": {"facilitator": "https://facilitator.example/x402", "network": "eip155:84532", "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
	    "decimals": 6, "pay_to": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "max_timeout": "30s",
	    "prices": [{"crawlers": ["GPTBot"], "paths": ["/articles/*"], "amount": "0.0125"}]}}}`
	verifying := site(t, config)
	verifying.Crawlers = gptbotOnLoopback(t)
	const gptbot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	for _, c := range []struct {
		name       string
		site       *Site
		url, agent string
		ip         string
		asked      bool
		priced     bool
		reason     string
	}{
		{"verified crawler, priced path", verifying, "https://example.com/articles/a?page=2", gptbot, "127.0.0.1", true, true, "GPTBot is verified (ip-list)"},
		{"a token as the agent", verifying, "https://example.com/articles/a", "GPTBot", "127.0.0.1", true, true, "verified"},
		{"impostor", verifying, "https://example.com/articles/a", gptbot, "203.0.113.9", false, true, "its claim to be GPTBot is impostor, not verified"},
		{"no client address", verifying, "https://example.com/articles/a", gptbot, "", false, true, "is pending, not verified"},
		{"no verification in the check", site(t, config), "https://example.com/articles/a", gptbot, "", false, true, "this check verified nothing"},
		{"browser", verifying, "https://example.com/articles/a", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "127.0.0.1", false, false, "names no crawler"},
		{"enforcement first", verifying, "https://example.com/articles/private/x", gptbot, "127.0.0.1", false, true, "enforcement answers the request first, with 403"},
		{"robots.txt", verifying, "https://example.com/robots.txt", gptbot, "127.0.0.1", false, false, "never priced"},
		{"unpriced path", verifying, "https://example.com/news/1", gptbot, "127.0.0.1", false, false, "no price of pay names GPTBot at this path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Check(c.site, Request{URL: c.url, Agent: c.agent, ClientIP: c.ip})
			if err != nil {
				t.Fatal(err)
			}
			pm := rep.Payment
			if pm == nil {
				t.Fatal("no payment section for a site with pay")
			}
			if pm.Asked != c.asked || (pm.Price != nil) != c.priced || !strings.Contains(pm.Reason, c.reason) || pm.Location.JSONPath != "robots_txt.pay" {
				t.Fatalf("payment %+v (price %+v); want asked %v, priced %v, a reason with %q", pm, pm.Price, c.asked, c.priced, c.reason)
			}
			if p := pm.Price; p != nil {
				want := Price{Amount: "0.0125", Atomic: "12500", Decimals: 6, Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", Network: "eip155:84532",
					PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", MaxTimeoutSeconds: 30, Resource: c.url, Facilitator: "https://facilitator.example/x402"}
				if *p != want {
					t.Errorf("price %+v, want %+v", *p, want)
				}
			}
			var txt bytes.Buffer
			if err := rep.WriteText(&txt); err != nil {
				t.Fatal(err)
			}
			asked := "no"
			if c.asked {
				asked = "YES"
			}
			for _, w := range []string{"Pay per crawl (pay at robots_txt.pay):", "  asked:  " + asked + ": " + pm.Reason} {
				if !strings.Contains(txt.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, txt.String())
				}
			}
			if c.priced && !strings.Contains(txt.String(), "  price:  0.0125 (12500 atomic units, 6 decimals) of 0x036CbD53842c5426634e7929541eC2318f3dCF7e on eip155:84532, to 0x209693Bc6afc0C5328bA36FaF03C514EF312287C; 30 s to pay") {
				t.Errorf("text lacks the price:\n%s", txt.String())
			}
		})
	}
	// A site that charges no crawler has no payment section.
	rep, err := Check(site(t, `{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]}}`), Request{URL: "https://example.com/articles/a", Agent: gptbot})
	if err != nil || rep.Payment != nil {
		t.Errorf("no pay: payment %+v, %v", rep.Payment, err)
	}
}

// TestDecimalAmount: atomic units written as the asset's decimal, exactly.
func TestDecimalAmount(t *testing.T) {
	for _, c := range []struct {
		atomic   string
		decimals int
		want     string
	}{{"1000", 6, "0.001"}, {"1", 6, "0.000001"}, {"1000000", 6, "1"}, {"1234567", 6, "1.234567"}, {"12500", 6, "0.0125"}, {"7", 0, "7"}, {"100", 2, "1"}, {"1000000000000000001", 18, "1.000000000000000001"}} {
		if got := decimalAmount(c.atomic, c.decimals); got != c.want {
			t.Errorf("decimalAmount(%s, %d) = %s, want %s", c.atomic, c.decimals, got, c.want)
		}
	}
}

package policycheck

import (
	"strings"
	"testing"
)

// payConfig is a nethttp config with robots.txt groups and license documents (JSON
// fragments, may be empty) and one pay block of the given prices.
func payConfig(groups, licenses, prices string) string {
	if licenses != "" {
		licenses = `, "license_documents": [` + licenses + `]`
	}
	return `{"robots_txt": {"groups": [` + groups + `]` + licenses + `,
	  "pay": {"facilitator": "https://facilitator.example/x402", "network": "eip155:84532", "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
	    "decimals": 6, "pay_to": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "prices": [` + prices + `]}}}`
}

// TestLintPrices gives each pay lint configs that trigger it (want: the JSON path of the one
// finding, and words of its message) and configs alike that do not.
func TestLintPrices(t *testing.T) {
	const (
		star        = `{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}`
		gptArticles = `{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/articles/"}]}`
		gptPrivate  = `{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/private/"}]}`
		gptPrice    = `{"crawlers": ["GPTBot"], "paths": ["/articles/*"], "amount": "0.001"}`
	)
	for _, tc := range []struct {
		name, lint, config string
		want               string   // location of the one finding; "" for none
		words              []string // in its message
	}{
		{"priced where robots.txt disallows the crawler", LintPriceDisallowed,
			payConfig(star+","+gptArticles, "", gptPrice), "robots_txt.pay.prices[0]", []string{"GPTBot", "/articles/", "disallow: /articles/", "never asked to pay"}},
		{"priced where robots.txt allows the crawler", LintPriceDisallowed,
			payConfig(star+","+gptPrivate, "", gptPrice), "", nil},
		{"priced through a preset that robots.txt disallows everywhere", LintPriceDisallowed,
			payConfig(star+`, {"presets": ["ai-training"], "rules": [{"type": "disallow", "path": "/"}]}`, "",
				`{"crawlers": ["preset:ai-training"], "amount": "0.01"}, {"crawlers": ["Googlebot"], "amount": "0.01"}`),
			"robots_txt.pay.prices[0]", []string{"AI2Bot", "more for /, which robots.txt disallows"}},
		{"priced for a crawler nothing verifies", LintPriceUnverifiable,
			payConfig(star, "", `{"crawlers": ["GPTBot", "ClaudeBot"], "paths": ["/articles/*"], "amount": "0.001"}`),
			"robots_txt.pay.prices[0].crawlers", []string{"charges ClaudeBot,", "nothing can verify"}},
		{"priced for crawlers that publish their addresses", LintPriceUnverifiable,
			payConfig(star, "", `{"crawlers": ["GPTBot", "Googlebot"], "paths": ["/articles/*"], "amount": "0.001"}`), "", nil},
		{"priced where the RSL license prohibits the crawler's use", LintPriceLicense,
			payConfig(star, `{"path": "/license.xml", "content": [{"url": "/", "permits": ["search"]}, {"url": "/articles/", "prohibits": ["ai-train"]}]}`, gptPrice),
			"robots_txt.license_documents[0].content[1].prohibits", []string{"GPTBot", "prohibits ai-train", "/articles/"}},
		{"priced where the RSL license prohibits another use", LintPriceLicense,
			payConfig(star, `{"path": "/license.xml", "content": [{"url": "/articles/", "prohibits": ["ai-input"]}]}`, gptPrice), "", nil},
		{"priced where the RSL license prohibits training, for a crawler of search", LintPriceLicense,
			payConfig(star, `{"path": "/license.xml", "content": [{"url": "/articles/", "prohibits": ["ai-train"]}]}`,
				`{"crawlers": ["Googlebot"], "paths": ["/articles/*"], "amount": "0.001"}`), "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := lint(t, tc.config)
			got := only(fs, tc.lint)
			if tc.want == "" {
				if len(got) > 0 {
					t.Fatalf("unexpected %s: %v", tc.lint, got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one %s at %s, got %v (all: %v)", tc.lint, tc.want, got, fs)
			}
			f := got[0]
			if f.Location.JSONPath != tc.want || f.Severity != SeverityWarning || f.Fix == "" || strings.Contains(f.Fix, "\n") {
				t.Fatalf("finding %+v: want a warning at %s with a one-line fix", f, tc.want)
			}
			for _, w := range tc.words {
				if !strings.Contains(f.Message, w) {
					t.Errorf("message %q lacks %q", f.Message, w)
				}
			}
		})
	}
}

// TestLintPriceLicenseRefused: a price for content whose RSL license states another payment
// than crawl is no lint finding but a config error (serve.New refuses it): lint says so, at
// the price, with both sides.
func TestLintPriceLicenseRefused(t *testing.T) {
	cfg := payConfig(`{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}`,
		`{"path": "/license.xml", "content": [{"url": "/articles/", "payment": {"type": "purchase", "standard": "https://rights.example.org/std"}}]}`,
		`{"crawlers": ["GPTBot"], "paths": ["/articles/*"], "amount": "0.001"}`)
	_, err := Lint(site(t, cfg))
	if err == nil || !strings.Contains(err.Error(), "robots_txt.pay.prices[0]") || !strings.Contains(err.Error(), `says its payment is "purchase", not "crawl"`) {
		t.Fatalf("err = %v", err)
	}
}

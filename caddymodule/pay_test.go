package caddymodule

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/x402/x402test"
)

// payGlobals verifies GPTBot from a local copy of OpenAI's list (20.15.240.0/24), offline,
// without reverse DNS, trusting loopback as a proxy so that X-Forwarded-For gives the
// client address.
func payGlobals(t *testing.T, dir string) string {
	t.Helper()
	g, _ := crawlers.BotByID("openai-crawler")
	list := filepath.Join(dir, "gptbot.json")
	if err := os.WriteFile(list, []byte(`{"creationTime":"2026-11-20T00:00:00","prefixes":[{"ipv4Prefix":"20.15.240.0/24"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`	crawlers {
		lists offline
		list_file %s %s
		lists_dir %s
		reverse_dns off
	}
	servers {
		trusted_proxies static 127.0.0.1/8 ::1/128
	}
`, g.Verification.IPRanges[0].URL, list, dir)
}

// paySite is the site of TestPayThroughCaddy: GPTBot and ClaudeBot (whom nothing verifies)
// pay 0.001 USDC for /articles/, impostors are refused, the access log is Caddy's JSON.
const paySite = `
http://localhost:@PORT@ {
	log {
		output file @LOG@
		format json
	}
	robots_txt {
		group * {
			disallow /private/
		}
		enforce {
			impostors
		}
		pay {
			facilitator @FACILITATOR@
			network eip155:84532
			asset 0x036CbD53842c5426634e7929541eC2318f3dCF7e
			decimals 6
			pay_to {env.X402TOOLS_PAY_TO}
			extra name USDC
			extra version 2
			price 0.001 GPTBot ClaudeBot {
				paths /articles/*
			}
		}
	}
	respond "content of {path}"
}
`

const (
	claudebotUA = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
	payTo       = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
)

// TestPayThroughCaddy runs the x402 exchange through a real Caddy configured by the
// Caddyfile, with a facilitator on loopback: a verified GPTBot is answered 402 with
// PAYMENT-REQUIRED for /articles/ (read here from the specification's base64 JSON, the
// pay_to from {env.*}), pays through the facilitator and is served with PAYMENT-RESPONSE; the
// payment does not serve twice; an impostor claiming GPTBot is refused as enforce refuses it;
// a browser and an unverifiable ClaudeBot are served and never see a price; robots.txt and
// unpriced paths are never priced. Then, on the same config and its access log, "caddy
// robots check" shows the price and "caddy robots report" counts the 402s and the paid
// request.
func TestPayThroughCaddy(t *testing.T) {
	dir := t.TempDir()
	fac := x402test.NewFacilitator(t)
	logFile := filepath.Join(dir, "access.log")
	t.Setenv("X402TOOLS_PAY_TO", payTo)
	site := strings.NewReplacer("@LOG@", logFile, "@FACILITATOR@", fac.URL).Replace(paySite)
	globalsExtra := payGlobals(t, dir)
	caddyTesterWithGlobals(t, globalsExtra, site)

	const verified, impostor = "20.15.240.64", "203.0.113.9"
	get := func(path, ua, client string, header ...string) (*http.Response, []byte) {
		t.Helper()
		return do(t, "GET", siteURL(path), append([]string{"User-Agent: " + ua, "X-Forwarded-For: " + client}, header...)...)
	}
	noPrice := func(what string, resp *http.Response, status int) {
		t.Helper()
		if resp.StatusCode != status || resp.Header.Get("Payment-Required") != "" || resp.Header.Get("Payment-Response") != "" {
			t.Errorf("%s: %d, PAYMENT-REQUIRED %q, PAYMENT-RESPONSE %q; want %d and no price", what, resp.StatusCode, resp.Header.Get("Payment-Required"), resp.Header.Get("Payment-Response"), status)
		}
	}
	required := 0 // the 402s the report must count

	// Asked to pay: the requirements as the specification writes them.
	resp, body := get("/articles/a", gptbotUA, verified)
	required++
	raw, err := base64.StdEncoding.DecodeString(resp.Header.Get("Payment-Required"))
	var pr struct {
		X402Version int `json:"x402Version"`
		Resource    struct {
			URL string `json:"url"`
		} `json:"resource"`
		Accepts []struct {
			Scheme, Network, Amount, Asset, PayTo string
			MaxTimeoutSeconds                     int
			Extra                                 map[string]string
		} `json:"accepts"`
	}
	if resp.StatusCode != http.StatusPaymentRequired || err != nil || json.Unmarshal(raw, &pr) != nil {
		t.Fatalf("verified GPTBot at /articles/a: %d, PAYMENT-REQUIRED %q (%v), body %q", resp.StatusCode, resp.Header.Get("Payment-Required"), err, body)
	}
	if pr.X402Version != 2 || pr.Resource.URL != siteURL("/articles/a") || len(pr.Accepts) != 1 || pr.Accepts[0].Scheme != "exact" || pr.Accepts[0].Amount != "1000" ||
		pr.Accepts[0].PayTo != payTo || pr.Accepts[0].Network != "eip155:84532" || pr.Accepts[0].Asset != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" ||
		pr.Accepts[0].MaxTimeoutSeconds != 60 || pr.Accepts[0].Extra["name"] != "USDC" {
		t.Errorf("PAYMENT-REQUIRED: %s", raw)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("402 Cache-Control %q, want no-store", cc)
	}
	if bytes.Contains(body, []byte("content of")) {
		t.Errorf("the 402 carries the content: %q", body)
	}

	// Pays, and is served with the settlement.
	payer := &x402test.Client{HTTP: client, From: "0xC0FFEE", Nonce: func() string { return "0x" + strings.Repeat("ab", 32) }}
	sig, err := payer.Pay(resp.Header.Get("Payment-Required"))
	if err != nil {
		t.Fatal(err)
	}
	resp, body = get("/articles/a", gptbotUA, verified, "Payment-Signature: "+sig)
	settled, _ := base64.StdEncoding.DecodeString(resp.Header.Get("Payment-Response"))
	var sr struct {
		Success     bool   `json:"success"`
		Transaction string `json:"transaction"`
		Network     string `json:"network"`
		Payer       string `json:"payer"`
	}
	if resp.StatusCode != 200 || string(body) != "content of /articles/a" || json.Unmarshal(settled, &sr) != nil || !sr.Success ||
		sr.Transaction == "" || sr.Network != "eip155:84532" || sr.Payer != "0xC0FFEE" {
		t.Fatalf("paid: %d %q, PAYMENT-RESPONSE %s", resp.StatusCode, body, settled)
	}
	if v, s := fac.Calls("verify"), fac.Calls("settle"); v != 1 || s != 1 {
		t.Errorf("facilitator calls: verify %d settle %d, want 1 and 1", v, s)
	}
	// The same payment again: refused, never served twice.
	resp, body = get("/articles/a", gptbotUA, verified, "Payment-Signature: "+sig)
	required++
	if resp.StatusCode != 402 || bytes.Contains(body, []byte("content of")) || resp.Header.Get("Payment-Response") != "" {
		t.Errorf("a payment used again: %d %q", resp.StatusCode, body)
	}

	// Never priced: an impostor (refused as enforce refuses it), a browser, a crawler
	// nothing verifies, robots.txt, an unpriced path.
	resp, body = get("/articles/a", gptbotUA, impostor)
	noPrice("impostor claiming GPTBot", resp, 403)
	if !strings.Contains(string(body), "impostor") {
		t.Errorf("impostor: body %q", body)
	}
	resp, body = get("/articles/a", chromeUA, verified)
	noPrice("browser", resp, 200)
	if string(body) != "content of /articles/a" {
		t.Errorf("browser: body %q", body)
	}
	resp, _ = get("/articles/a", claudebotUA, impostor)
	noPrice("ClaudeBot (unverifiable)", resp, 200)
	resp, body = get("/robots.txt", gptbotUA, verified)
	noPrice("robots.txt", resp, 200)
	if !strings.Contains(string(body), "Disallow: /private/") {
		t.Errorf("robots.txt: %q", body)
	}
	resp, _ = get("/news/b", gptbotUA, verified)
	noPrice("unpriced path", resp, 200)

	// caddy robots check, on the same config: the price, asked of the verified address.
	cfgFile := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cfgFile, []byte(globalsWith(globalsExtra)+expand(site)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, st := runCaddy(t, dir, "robots", "check", "--config", "Caddyfile", "--url", siteURL("/articles/a"), "--agent", gptbotUA, "--client-ip", verified, "--format", "json")
	var rep checkJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil || st != 0 {
		t.Fatalf("check: status %d, %v\n%s\n%s", st, err, out, errOut)
	}
	if p := rep.Payment; p == nil || !p.Asked || p.Price == nil || p.Price.Amount != "0.001" || p.Price.Atomic != "1000" || p.Price.PayTo != payTo || p.Price.Resource != siteURL("/articles/a") {
		t.Errorf("check's payment: %+v %+v", rep.Payment, rep.Payment.Price)
	}

	// caddy robots report, on Caddy's own access log: the 402s and the paid request.
	var logged []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if logged, _ = os.ReadFile(logFile); bytes.Count(logged, []byte("\n")) >= 10 {
			break
		}
	}
	out, errOut, _ = runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", siteURL(""), "--format", "json", "access.log")
	var report logreport.Report
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("report: %v\n%s\n%s", err, out, errOut)
	}
	if report.Totals.PaymentRequired != int64(required) || report.Totals.Paid != 1 {
		t.Errorf("report totals: 402 %d paid %d, want %d and 1\n%s", report.Totals.PaymentRequired, report.Totals.Paid, required, logged)
	}
	for _, c := range report.Crawlers {
		if c.ID == "openai-crawler" && (c.PaymentRequired != int64(required) || c.Paid != 1) {
			t.Errorf("report's GPTBot row: 402 %d paid %d, want %d and 1", c.PaymentRequired, c.Paid, required)
		}
	}
}

package nethttp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/x402/x402test"
)

const (
	gptbotUA      = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	gptbotAddr    = "20.171.206.7" // in identity/testdata/gptbot.json
	elsewhereAddr = "203.0.113.9"
	browserUA     = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	articleBody   = "<p>The article.</p>\n"
)

// payServer is the site of docs/payment.md's config over loopback, its facilitator the
// test's (x402test), GPTBot verified from OpenAI's list (a local copy), the client's address
// taken from X-Test-Client.
type payServer struct {
	srv      *httptest.Server
	fac      *x402test.Facilitator
	counters *metrics.Counters
	served   int // requests the site's handler served with 200
}

func newPayServer(t *testing.T, edit func(cfg map[string]any)) *payServer {
	t.Helper()
	ps := &payServer{fac: x402test.NewFacilitator(t), counters: metrics.NewCounters()}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(docBlock(t, "../docs/payment.md", "pay-config", "json")), &cfg); err != nil {
		t.Fatal(err)
	}
	pay := cfg["robots_txt"].(map[string]any)["pay"].(map[string]any)
	pay["facilitator"] = ps.fac.URL
	pay["facilitator_timeout"] = "300ms"
	if edit != nil {
		edit(cfg)
	}
	data, _ := json.Marshal(cfg)
	g, _ := crawlers.BotByID("openai-crawler")
	svc := identity.NewService(identity.ServiceOptions{
		Lists: identity.ListsOptions{Local: map[string]string{g.Verification.IPRanges[0].URL: "../identity/testdata/gptbot.json"}, Offline: true},
		NoDNS: true,
	})
	svc.Start(context.Background())
	t.Cleanup(svc.Stop)
	m, err := nethttp.NewFromJSON(data, nethttp.Options{Logger: discard, Verifier: svc.Verifier, Counters: ps.counters, ClientAddr: func(r *http.Request) netip.Addr {
		a, _ := netip.ParseAddr(r.Header.Get("X-Test-Client"))
		return a
	}})
	if err != nil {
		t.Fatal(err)
	}
	ps.srv = httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/missing") {
			http.NotFound(w, r)
			return
		}
		ps.served++
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=600")
		_, _ = io.WriteString(w, articleBody)
	})))
	t.Cleanup(ps.srv.Close)
	return ps
}

// request is a GET of path on host example.com from addr with User-Agent ua.
func (ps *payServer) request(path, ua, addr string) *http.Request {
	r, _ := http.NewRequest("GET", ps.srv.URL+path, nil)
	r.Host = "example.com"
	r.Header.Set("User-Agent", ua)
	r.Header.Set("X-Test-Client", addr)
	return r
}

func newPayClient() *x402test.Client {
	n := 0
	return &x402test.Client{HTTP: &http.Client{}, From: "0x857b06519E91e3A54538791bDbb0E22373e36b66",
		Nonce: func() string { n++; return fmt.Sprintf("0x%064x", n) },
		Now:   func() time.Time { return time.Unix(1767225600, 0) }}
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// paymentError is the error of a 402's PAYMENT-REQUIRED, "" without one.
func paymentError(t *testing.T, resp *http.Response) string {
	t.Helper()
	h := resp.Header.Get("Payment-Required")
	if h == "" {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		t.Fatalf("PAYMENT-REQUIRED not base64: %v", err)
	}
	var pr struct{ Error string }
	if err := json.Unmarshal(raw, &pr); err != nil {
		t.Fatal(err)
	}
	return pr.Error
}

// TestPayStory is issue 36's "Done when" over loopback: a verified GPTBot is charged for
// /articles/ and served after paying; an impostor claiming GPTBot is refused as before; a
// browser never sees a price; robots.txt, the license and tdmrep.json are never priced; a
// payment serves one response.
func TestPayStory(t *testing.T) {
	ps := newPayServer(t, nil)
	client := newPayClient()
	ctx := context.Background()

	resp, first, err := client.Do(ctx, ps.request("/articles/one", gptbotUA, gptbotAddr))
	if err != nil {
		t.Fatal(err)
	}
	body := readBody(t, resp)
	if first != 402 || resp.StatusCode != 200 || body != articleBody {
		t.Fatalf("verified GPTBot: first %d, then %d %q; want 402 then 200 with the article", first, resp.StatusCode, body)
	}
	settled, err := base64.StdEncoding.DecodeString(resp.Header.Get("Payment-Response"))
	if err != nil || !bytes.Contains(settled, []byte(`"success":true`)) {
		t.Fatalf("PAYMENT-RESPONSE %q", settled)
	}
	if got := ps.fac.Calls("verify") + ps.fac.Calls("settle"); got != 2 || ps.served != 1 {
		t.Fatalf("facilitator calls %d, served %d; want 2 and 1", got, ps.served)
	}

	// The same payment again: refused before the facilitator is asked, not served.
	again := ps.request("/articles/one", gptbotUA, gptbotAddr)
	sig, _ := newPayClient().Pay(firstRequired(t, ps))
	again.Header.Set("Payment-Signature", sig)
	resp, _ = http.DefaultClient.Do(again)
	readBody(t, resp)
	if resp.StatusCode != 402 || !strings.Contains(paymentError(t, resp), "used already") || ps.served != 1 {
		t.Fatalf("replayed payment: %d %q, served %d", resp.StatusCode, paymentError(t, resp), ps.served)
	}

	for _, c := range []struct {
		name, path, ua, addr string
		status               int
	}{
		{"impostor", "/articles/one", gptbotUA, elsewhereAddr, 403},
		{"browser", "/articles/one", browserUA, elsewhereAddr, 200},
		{"robots.txt", "/robots.txt", gptbotUA, gptbotAddr, 200},
		{"license", "/license.xml", gptbotUA, gptbotAddr, 200},
		{"tdmrep.json", "/.well-known/tdmrep.json", gptbotUA, gptbotAddr, 200},
		{"unpriced path", "/about", gptbotUA, gptbotAddr, 200},
		{"not found", "/missing", gptbotUA, gptbotAddr, 404},
	} {
		resp, err := http.DefaultClient.Do(ps.request(c.path, c.ua, c.addr))
		if err != nil {
			t.Fatal(err)
		}
		readBody(t, resp)
		if resp.StatusCode != c.status || resp.Header.Get("Payment-Required") != "" {
			t.Errorf("%s: %d with PAYMENT-REQUIRED %q; want %d and none", c.name, resp.StatusCode, resp.Header.Get("Payment-Required"), c.status)
		}
	}
	var paid uint64
	ps.counters.EachRevenue(func(crawler, _ string, n uint64) {
		if crawler == "openai-crawler" {
			paid = n
		}
	})
	if paid != 1000 {
		t.Errorf("revenue %d atomic units; want 1000", paid)
	}
}

// firstRequired is the PAYMENT-REQUIRED of a verified GPTBot's unpaid request for
// /articles/one.
func firstRequired(t *testing.T, ps *payServer) string {
	t.Helper()
	resp, err := http.DefaultClient.Do(ps.request("/articles/one", gptbotUA, gptbotAddr))
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	if resp.StatusCode != 402 {
		t.Fatalf("unpaid: %d", resp.StatusCode)
	}
	return resp.Header.Get("Payment-Required")
}

// TestPayRefusals: every way a payment fails is a 402 with the reason, the content never
// sent; a payment the site's handler did not answer with success is not settled and pays
// again.
func TestPayRefusals(t *testing.T) {
	ps := newPayServer(t, nil)
	required := firstRequired(t, ps)
	send := func(path, sig string) (*http.Response, string) {
		r := ps.request(path, gptbotUA, gptbotAddr)
		r.Header.Set("Payment-Signature", sig)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		return resp, readBody(t, resp)
	}
	pay := func(edit func(map[string]any)) string {
		c := newPayClient()
		c.Nonce = func() string { return fmt.Sprintf("0x%064d", time.Now().UnixNano()) }
		c.Edit = edit
		s, err := c.Pay(required)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		name, sig, want string
		answer          x402test.Answer
	}{
		{"not base64", "!!!", "not base64", x402test.Valid},
		{"oversized", strings.Repeat("A", 9000), "over the limit", x402test.Valid},
		{"not JSON", base64.StdEncoding.EncodeToString([]byte("{")), "not the JSON", x402test.Valid},
		{"version 1", base64.StdEncoding.EncodeToString([]byte(`{"x402Version":1}`)), "x402Version 1", x402test.Valid},
		{"another resource", pay(func(p map[string]any) { p["resource"] = map[string]any{"url": "http://example.com/articles/two"} }), "another resource", x402test.Valid},
		{"smaller amount", pay(func(p map[string]any) {
			acc := p["accepted"].(map[string]any)
			p["accepted"] = map[string]any{"scheme": "exact", "network": acc["network"], "amount": "999", "asset": acc["asset"], "payTo": acc["payTo"], "maxTimeoutSeconds": 60}
			p["value"] = "999"
		}), "smaller than the price", x402test.Valid},
		{"another network", pay(func(p map[string]any) {
			acc := p["accepted"].(map[string]any)
			p["accepted"] = map[string]any{"scheme": "exact", "network": "eip155:8453", "amount": acc["amount"], "asset": acc["asset"], "payTo": acc["payTo"]}
		}), "network is not", x402test.Valid},
		{"underpaid authorization", pay(func(p map[string]any) { p["value"] = "1" }), "payment invalid: invalid_exact_evm_payload_authorization_value", x402test.Valid},
		{"invalid", pay(nil), "payment invalid: invalid_exact_evm_payload_signature", x402test.Invalid},
		{"settlement fails", pay(nil), "settlement failed: insufficient_funds", x402test.SettleFails},
		{"slow", pay(nil), "could not be verified now", x402test.Slow},
		{"broken", pay(nil), "could not be verified now", x402test.Broken},
	} {
		ps.fac.Script(c.answer)
		resp, body := send("/articles/one", c.sig)
		if resp.StatusCode != 402 || !strings.Contains(paymentError(t, resp), c.want) || strings.Contains(body, articleBody) {
			t.Errorf("%s: %d %q, body %q; want 402 saying %q", c.name, resp.StatusCode, paymentError(t, resp), body, c.want)
		}
		if c.answer == x402test.SettleFails && resp.Header.Get("Payment-Response") == "" {
			t.Errorf("settlement fails: no PAYMENT-RESPONSE")
		}
	}
	if ps.served != 1 { // the settlement that failed ran the handler, whose response was dropped
		t.Errorf("served %d; want 1 (the response whose settlement failed, dropped)", ps.served)
	}
	ps.fac.Script(x402test.Valid)

	// Not found: sent, not settled; the same payment then buys the article.
	sig := pay(func(p map[string]any) { p["resource"] = map[string]any{"url": "http://example.com/articles/missing"} })
	if resp, _ := send("/articles/missing", sig); resp.StatusCode != 404 || resp.Header.Get("Payment-Response") != "" {
		t.Fatalf("not found: %d, PAYMENT-RESPONSE %q", resp.StatusCode, resp.Header.Get("Payment-Response"))
	}
	settles := ps.fac.Calls("settle")
	if resp, _ := send("/articles/missing", sig); resp.StatusCode != 404 || ps.fac.Calls("settle") != settles {
		t.Fatalf("not found again: %d, settled %d times", resp.StatusCode, ps.fac.Calls("settle")-settles)
	}

	// Down: 402, never free.
	ps.fac.Down()
	if resp, body := send("/articles/one", pay(nil)); resp.StatusCode != 402 || strings.Contains(body, articleBody) {
		t.Errorf("facilitator down: %d %q", resp.StatusCode, body)
	}
	var outcomes []string
	ps.counters.EachPayment(func(s metrics.PaymentSeries) { outcomes = append(outcomes, s.Outcome) })
	for _, o := range []string{"payment_required", "invalid", "refused", "facilitator_unavailable", "not_charged", "settle_failed"} {
		if !slices.Contains(outcomes, o) {
			t.Errorf("outcome %s not counted (%v)", o, outcomes)
		}
	}
}

// TestPaymentDoc runs docs/payment.md's exchange and checks its blocks byte for byte. With
// X402_DOC=path it writes the exchange there instead (to update the page).
func TestPaymentDoc(t *testing.T) {
	ps := newPayServer(t, nil)
	var ex, dec strings.Builder
	do := func(r *http.Request, note string) *http.Response {
		fmt.Fprintf(&ex, "# %s\n", note)
		fmt.Fprintf(&ex, "GET %s HTTP/1.1\nHost: %s\nUser-Agent: %s\n", r.URL.Path, r.Host, r.Header.Get("User-Agent"))
		if s := r.Header.Get("Payment-Signature"); s != "" {
			fmt.Fprintf(&ex, "Payment-Signature: %s\n", s)
			decode(t, &dec, "PAYMENT-SIGNATURE", s)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		body := readBody(t, resp)
		fmt.Fprintf(&ex, "\nHTTP/1.1 %s\n", resp.Status)
		var keys []string
		for k := range resp.Header {
			if k != "Date" {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			for _, v := range resp.Header[k] {
				fmt.Fprintf(&ex, "%s: %s\n", k, v)
				if k == "Payment-Required" || k == "Payment-Response" {
					decode(t, &dec, strings.ToUpper(k), v)
				}
			}
		}
		fmt.Fprintf(&ex, "\n%s\n", strings.TrimSuffix(body, "\n"))
		return resp
	}
	r := ps.request("/articles/one", gptbotUA, gptbotAddr)
	resp := do(r, "a verified GPTBot, without payment")
	sig, err := newPayClient().Pay(resp.Header.Get("Payment-Required"))
	if err != nil {
		t.Fatal(err)
	}
	r = ps.request("/articles/one", gptbotUA, gptbotAddr)
	r.Header.Set("Payment-Signature", sig)
	if resp := do(r, "the same, paying"); resp.StatusCode != 200 {
		t.Fatalf("paid: %d", resp.StatusCode)
	}
	do(ps.request("/articles/one", gptbotUA, elsewhereAddr), "an impostor claiming GPTBot")
	do(ps.request("/articles/one", browserUA, elsewhereAddr), "a browser")
	got, gotDec := ex.String(), dec.String()
	if path := os.Getenv("X402_DOC"); path != "" {
		if err := os.WriteFile(path, []byte(got+"\n=====\n"+gotDec), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := docBlock(t, "../docs/payment.md", "pay-exchange", "http"); got != want {
		t.Errorf("docs/payment.md pay-exchange differs from the exchange (X402_DOC=/tmp/x go test -run TestPaymentDoc writes it):\n%s", got)
	}
	if want := docBlock(t, "../docs/payment.md", "pay-exchange-decoded", "json"); gotDec != want {
		t.Errorf("docs/payment.md pay-exchange-decoded differs:\n%s", gotDec)
	}
}

// decode writes a header's decoded JSON, indented, under its name.
func decode(t *testing.T, w *strings.Builder, name, v string) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, "// %s\n%s\n", name, out.String())
}

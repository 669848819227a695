package serve_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/rsl"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/x402/x402test"
)

// testIdentity is the identity a test request states in X-Test-Name and X-Test-Status
// ("verified", "impostor"), standing in for the front end's verification.
func testIdentity(r *http.Request) identity.Identity {
	id := identity.Identity{Name: r.Header.Get("X-Test-Name")}
	switch r.Header.Get("X-Test-Status") {
	case "verified":
		id.Status = identity.Verified
	case "impostor":
		id.Status = identity.Impostor
	}
	return id
}

func six() *int { n := 6; return &n }

func payConfig(facilitator string, prices ...policy.Price) *policy.Pay {
	return &policy.Pay{Facilitator: facilitator, Network: "eip155:84532", Asset: "0xA5", Decimals: six(), PayTo: "0xB0", Prices: prices}
}

// TestPayConfigErrors: every problem of robots_txt.pay is named by its field path, and a
// price that disagrees with an RSL license document's payment is refused.
func TestPayConfigErrors(t *testing.T) {
	doc := func(typ string) rsl.Document {
		return rsl.Document{Path: "/license.xml", Content: []rsl.Content{{URL: "/articles/", Permits: []string{"search"}, Payment: &rsl.Payment{Type: typ}}}}
	}
	for _, c := range []struct {
		name string
		pay  *policy.Pay
		docs []rsl.Document
		want []string // path: substring
	}{
		{"fields", &policy.Pay{Facilitator: "http://facilitator.example", Network: "base", Asset: "a b", Decimals: nil, MaxInFlight: -1,
			Prices: []policy.Price{{Crawlers: []string{"NoSuchBot", "preset:nope"}, Amount: "0.5", Paths: []string{"/a/"}}}},
			nil, []string{"robots_txt.pay.facilitator: over https", "robots_txt.pay.network: CAIP-2", "robots_txt.pay.asset: printable", "robots_txt.pay.pay_to: required",
				"robots_txt.pay.decimals: required", "robots_txt.pay.max_in_flight: must be", "robots_txt.pay.prices[0].crawlers[0]: not a crawler",
				"robots_txt.pay.prices[0].crawlers[1]: crawlers: unknown category"}},
		{"amount", payConfig("https://f.example", policy.Price{Crawlers: []string{"GPTBot"}, Amount: "0.0000001"}), nil,
			[]string{"robots_txt.pay.prices[0].amount: has 7 decimal places"}},
		{"no prices", payConfig("https://f.example"), nil, []string{"robots_txt.pay.prices: required"}},
		{"path", payConfig("https://f.example", policy.Price{Crawlers: []string{"GPTBot"}, Amount: "1", Paths: []string{"/ok", "no-slash"}}), nil,
			[]string{"robots_txt.pay.prices[0].paths[1]"}},
		{"license missing", payConfig("https://f.example", policy.Price{Crawlers: []string{"GPTBot"}, Amount: "1", License: "/none.xml"}), nil,
			[]string{"robots_txt.pay.prices[0].license: no license document"}},
		{"license free", payConfig("https://f.example", policy.Price{Crawlers: []string{"GPTBot"}, Amount: "1", Paths: []string{"/articles/*"}}),
			[]rsl.Document{doc("free")}, []string{`robots_txt.pay.prices[0]: prices /articles/, whose license (/license.xml) says its payment is "free"`}},
		{"license crawl unpriced", payConfig("https://f.example", policy.Price{Crawlers: []string{"GPTBot"}, Amount: "1", Paths: []string{"/other/*"}}),
			[]rsl.Document{doc("crawl")}, []string{"robots_txt.license_documents[0].content[0].payment.type: the license says crawling /articles/ is paid"}},
		{"license without crawl", payConfig("https://f.example", policy.Price{Crawlers: []string{"GPTBot"}, Amount: "1", License: "/license.xml"}),
			[]rsl.Document{doc("training")}, []string{"robots_txt.pay.prices[0].license: the license document has no content"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: []robotsgen.Group{{UserAgents: []string{"*"}}}, LicenseDocuments: c.docs, Pay: c.pay}}
			_, err := serve.New(cfg, serve.Options{Identify: testIdentity})
			if err == nil {
				t.Fatal("accepted")
			}
			var got []string
			for _, e := range configerr.All(err) {
				got = append(got, e.Path+": "+e.Problem)
			}
			all := strings.Join(got, "\n")
			for _, w := range c.want {
				path, sub, _ := strings.Cut(w, ": ")
				found := false
				for _, e := range configerr.All(err) {
					found = found || (e.Path == path && strings.Contains(e.Problem, sub))
				}
				if !found {
					t.Errorf("no error at %s saying %q in:\n%s", path, sub, all)
				}
			}
		})
	}
	// Without crawler verification nobody could be charged: refused.
	cfg := policy.Config{RobotsTxt: &policy.RobotsTxt{Pay: payConfig("https://f.example", policy.Price{Crawlers: []string{"GPTBot"}, Amount: "1"})}}
	if _, err := serve.New(cfg, serve.Options{}); err == nil || !strings.Contains(err.Error(), "crawler verification") {
		t.Errorf("pay without Identify: %v", err)
	}
	// A license with crawl payment and a price taking its paths from it: accepted, priced.
	cfg.RobotsTxt.LicenseDocuments = []rsl.Document{doc("crawl")}
	cfg.RobotsTxt.Pay.Prices[0].License = "/license.xml"
	c, err := serve.New(cfg, serve.Options{Identify: testIdentity})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/articles/x", nil)
	r.Header.Set("X-Test-Name", "GPTBot")
	r.Header.Set("X-Test-Status", "verified")
	if req, _, ok := c.Price(r, testIdentity(r)); !ok || req.Amount != "1000000" {
		t.Errorf("Price /articles/x: %+v %v", req, ok)
	}
	r.URL.Path = "/other"
	if _, _, ok := c.Price(r, testIdentity(r)); ok {
		t.Error("Price /other: priced")
	}
	// A price on every path leaves the licenses and tdmrep.json free, served or not.
	cfg.RobotsTxt.LicenseDocuments = nil
	cfg.RobotsTxt.Pay.Prices[0].License = ""
	cfg.RobotsTxt.Licenses = []string{"/terms.xml"}
	cfg.RobotsTag = []policy.Route{{Paths: []string{"/articles/*"}, Tags: policy.Tags{Licenses: []string{"/articles/license.xml"}}}}
	if c, err = serve.New(cfg, serve.Options{Identify: testIdentity}); err != nil {
		t.Fatal(err)
	}
	for path, priced := range map[string]bool{"/x": true, "/terms.xml": false, "/articles/license.xml": false, "/.well-known/tdmrep.json": false, "/robots.txt": false} {
		r.URL.Path = path
		if _, _, ok := c.Price(r, testIdentity(r)); ok != priced {
			t.Errorf("Price %s: %v; want %v", path, ok, priced)
		}
	}
}

// The property test's pools: crawler names, path patterns, and request paths with the
// patterns that match them (written out by hand, independent of the matcher).
var (
	payNames    = []string{"GPTBot", "ClaudeBot", "CCBot", "Googlebot"}
	payPatterns = []string{"/a/*", "/b", "*.pdf"}
	payPaths    = map[string][]string{"/a/x": {"/a/*"}, "/a/y.pdf": {"/a/*", "*.pdf"}, "/b": {"/b"}, "/c.pdf": {"*.pdf"}, "/d": nil,
		"/robots.txt": nil, "/.well-known/tdmrep.json": nil}
	payPathList = []string{"/a/x", "/a/y.pdf", "/b", "/c.pdf", "/d", "/robots.txt", "/.well-known/tdmrep.json"}
)

// TestPayProperty: over generated prices and requests, no unpriced request is ever answered
// 402 and every one is served; a priced request is never served without a payment settled
// for it (its response carries a successful PAYMENT-RESPONSE), unpaid it is 402, and paid it
// is served once.
func TestPayProperty(t *testing.T) {
	fac := x402test.NewFacilitator(t)
	rng := rand.New(rand.NewPCG(36, 1))
	configs, requests := 40, 30
	if serve.RaceEnabled {
		configs, requests = 6, 15
	}
	nonce := 0
	for range configs {
		var prices []policy.Price
		for range 1 + rng.IntN(3) {
			p := policy.Price{Amount: fmt.Sprintf("%d.%03d", rng.IntN(3), 1+rng.IntN(999))}
			for _, n := range payNames {
				if rng.IntN(2) == 0 {
					p.Crawlers = append(p.Crawlers, n)
				}
			}
			if len(p.Crawlers) == 0 {
				p.Crawlers = []string{"GPTBot"}
			}
			for _, pat := range payPatterns {
				if rng.IntN(3) == 0 {
					p.Paths = append(p.Paths, pat)
				}
			}
			prices = append(prices, p)
		}
		cfg := policy.Config{RobotsTxt: &policy.RobotsTxt{Groups: []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Allow, Path: "/"}}}},
			Pay: payConfig(fac.URL, prices...)},
			RobotsTag: []policy.Route{{Paths: []string{"/a/*"}, Tags: policy.Tags{Rules: map[string][]string{"*": {"noai"}}, TDM: &policy.TDM{Reservation: new(int)}}}}}
		cfg.RobotsTag[0].Tags.Rules = map[string][]string{"*": {"noindex"}}
		core, err := serve.New(cfg, serve.Options{Identify: testIdentity, TDMRepFile: true})
		if err != nil {
			t.Fatalf("config %+v: %v", prices, err)
		}
		for range requests {
			path := payPathList[rng.IntN(len(payPathList))]
			name := payNames[rng.IntN(len(payNames))]
			status := []string{"verified", "impostor", ""}[rng.IntN(3)]
			// The model: the first price naming the crawler and covering the path, for a
			// verified crawler only.
			want := ""
			if status == "verified" {
				for _, p := range prices {
					if !containsFold(p.Crawlers, name) {
						continue
					}
					covered := len(p.Paths) == 0 && path != "/robots.txt" && path != "/.well-known/tdmrep.json"
					for _, pat := range p.Paths {
						covered = covered || containsStr(payPaths[path], pat)
					}
					if covered {
						want = p.Amount
						break
					}
				}
			}
			served := 0
			next := serve.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				served++
				_, err := w.Write([]byte("content"))
				return err
			})
			do := func(sig string) *httptest.ResponseRecorder {
				r := httptest.NewRequest("GET", "http://example.com"+path, nil)
				r.Header.Set("X-Test-Name", name)
				r.Header.Set("X-Test-Status", status)
				if sig != "" {
					r.Header.Set("Payment-Signature", sig)
				}
				w := httptest.NewRecorder()
				if err := core.ServeHTTP(w, r, next); err != nil {
					t.Fatal(err)
				}
				return w
			}
			w := do("")
			if want == "" {
				if w.Code == 402 || w.Header().Get("Payment-Required") != "" {
					t.Fatalf("%s %s %s unpriced: %d", status, name, path, w.Code)
				}
				if path != "/robots.txt" && path != "/.well-known/tdmrep.json" && served != 1 {
					t.Fatalf("%s %s %s unpriced: served %d", status, name, path, served)
				}
				continue
			}
			if w.Code != 402 || served != 0 {
				t.Fatalf("%s %s %s priced %s, unpaid: %d, served %d", status, name, path, want, w.Code, served)
			}
			var pr struct{ Accepts []struct{ Amount string } }
			raw, _ := base64Decode(w.Header().Get("Payment-Required"))
			if json.Unmarshal(raw, &pr) != nil || len(pr.Accepts) != 1 || pr.Accepts[0].Amount != atomic6(want) {
				t.Fatalf("%s %s priced %s: PAYMENT-REQUIRED %s", name, path, want, raw)
			}
			client := &x402test.Client{From: "0xC", Nonce: func() string { nonce++; return fmt.Sprint(nonce) }}
			if rng.IntN(4) == 0 {
				client.Edit = func(p map[string]any) { p["value"] = "1" } // underpaid: the facilitator refuses
			}
			sig, err := client.Pay(w.Header().Get("Payment-Required"))
			if err != nil {
				t.Fatal(err)
			}
			settles := fac.Calls("settle")
			w = do(sig)
			// Paid: the facilitator settled it (a call, and its transaction in the answer).
			paid := strings.Contains(decoded(w.Header().Get("Payment-Response")), `"success":true`) &&
				fac.Calls("settle") == settles+1 && strings.Contains(decoded(w.Header().Get("Payment-Response")), `"transaction":"0x`)
			if served != 0 && !paid || served > 1 || (w.Code == 200) != paid {
				t.Fatalf("%s %s priced %s, paying (edited %v): %d, served %d, PAYMENT-RESPONSE %s", name, path, want, client.Edit != nil, w.Code, served, decoded(w.Header().Get("Payment-Response")))
			}
			if (client.Edit == nil) != paid {
				t.Fatalf("%s %s: valid payment %v, paid %v (%d %s)", name, path, client.Edit == nil, paid, w.Code, w.Body)
			}
			// The same payment again: never served again.
			if paid {
				if w = do(sig); w.Code != 402 || served != 1 {
					t.Fatalf("%s %s: payment replayed: %d, served %d", name, path, w.Code, served)
				}
			}
		}
	}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// atomic6 is "I.FFF" in atomic units of 6 decimals, the model's own arithmetic.
func atomic6(amount string) string {
	whole, frac, _ := strings.Cut(amount, ".")
	s := strings.TrimLeft(whole+frac+"000", "0")
	return s
}

func base64Decode(s string) ([]byte, error) { return base64StdDecode(s) }

func decoded(s string) string {
	b, _ := base64StdDecode(s)
	return string(b)
}

var base64StdDecode = base64.StdEncoding.DecodeString

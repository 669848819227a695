package caddymodule

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
)

// payBlock is a valid pay block (robots_txt's), indented for a site block; its lines are
// those of payHead plus the prices given.
const payHead = `		pay {
			facilitator https://facilitator.example/x402
			network eip155:84532
			asset 0x036CbD53842c5426634e7929541eC2318f3dCF7e
			decimals 6
			pay_to 0x209693Bc6afc0C5328bA36FaF03C514EF312287C
`

// badPayCaddyfiles are pay blocks refused at load, each naming its line ("# <-"), checked
// with the others by TestBadCaddyfilesRefusedWithLine: the adapter's own errors and the
// core's, mapped to the line of the field.
var badPayCaddyfiles = []struct {
	name, site, want string
}{
	{"pay argument", "robots_txt {\n\tpay on { # <-\n\t}\n}", "pay takes no argument"},
	{"pay twice", "robots_txt {\n" + payHead + "\t\t\tprice 0.001 GPTBot\n\t\t}\n\t\tpay { # <-\n\t\t}\n}", "pay given twice"},
	{"pay unknown sub-directive", "robots_txt {\n\tpay {\n\t\tpayto 0x209693Bc6afc0C5328bA36FaF03C514EF312287C # <-\n\t}\n}", `pay's block takes facilitator, network, asset, decimals, pay_to, extra, max_timeout, facilitator_timeout, max_in_flight, remember_payments, price (got "payto") (did you mean "pay_to"?)`},
	{"pay without prices", "robots_txt {\n\tpay { # <-\n\t\tfacilitator https://facilitator.example/x402\n\t\tnetwork eip155:84532\n\t\tasset 0xA\n\t\tdecimals 6\n\t\tpay_to 0xB\n\t}\n}", "required: at least one price"},
	{"pay without decimals", "robots_txt {\n\tpay { # <-\n\t\tfacilitator https://facilitator.example/x402\n\t\tnetwork eip155:84532\n\t\tasset 0xA\n\t\tpay_to 0xB\n\t\tprice 0.001 GPTBot\n\t}\n}", "required: the asset's decimal places"},
	{"decimals not a number", "robots_txt {\n\tpay {\n\t\tdecimals six # <-\n\t}\n}", `decimals takes the asset's number of decimal places, e.g. decimals 6 (USDC); got "six"`},
	{"decimals with a sign", "robots_txt {\n\tpay {\n\t\tdecimals +6 # <-\n\t}\n}", `got "+6"`},
	{"decimals twice", "robots_txt {\n\tpay {\n\t\tdecimals 6\n\t\tdecimals 18 # <-\n\t}\n}", "decimals given twice"},
	{"decimals out of range", strings.Replace("robots_txt {\n"+payHead+"\t\t\tprice 0.001 GPTBot\n\t\t}\n}", "decimals 6", "decimals 99 # <-", 1), `decimals "99": must be 0 to 36`},
	{"max_timeout not a duration", "robots_txt {\n\tpay {\n\t\tmax_timeout soon # <-\n\t}\n}", `invalid duration "soon"`},
	{"max_timeout zero", "robots_txt {\n\tpay {\n\t\tmax_timeout 0s # <-\n\t}\n}", "would mean the default"},
	{"max_timeout not whole seconds", strings.Replace("robots_txt {\n"+payHead+"\t\t\tprice 0.001 GPTBot\n\t\t}\n}", "decimals 6", "decimals 6\n\t\t\tmax_timeout 1500ms # <-", 1), `max_timeout "1500ms": must be whole seconds`},
	{"max_in_flight not a number", "robots_txt {\n\tpay {\n\t\tmax_in_flight many # <-\n\t}\n}", `max_in_flight takes one number; got "many"`},
	{"extra one argument", "robots_txt {\n\tpay {\n\t\textra name # <-\n\t}\n}", "extra takes a key and a value"},
	{"extra twice", "robots_txt {\n\tpay {\n\t\textra name USDC\n\t\textra name EURC # <-\n\t}\n}", "extra name given twice"},
	{"network not CAIP-2", strings.Replace("robots_txt {\n"+payHead+"\t\t\tprice 0.001 GPTBot\n\t\t}\n}", "network eip155:84532", "network base # <-", 1), `"base": must be a CAIP-2 network id`},
	{"facilitator plain http", strings.Replace("robots_txt {\n"+payHead+"\t\t\tprice 0.001 GPTBot\n\t\t}\n}", "facilitator https://facilitator.example/x402", "facilitator http://facilitator.example/x402 # <-", 1), `"http://facilitator.example/x402": a facilitator is reached over https`},
	{"price bare", "robots_txt {\n\tpay {\n\t\tprice # <-\n\t}\n}", "price takes the amount"},
	{"price too precise", "robots_txt {\n" + payHead + "\t\t\tprice 0.0000001 GPTBot # <-\n\t\t}\n}", `"0.0000001": has 7 decimal places; the asset has 6`},
	{"price zero", "robots_txt {\n" + payHead + "\t\t\tprice 0 GPTBot # <-\n\t\t}\n}", `"0": is zero`},
	{"price of no crawler", "robots_txt {\n" + payHead + "\t\t\tprice 0.001 # <-\n\t\t}\n}", "required: the crawlers who pay"},
	{"price unknown crawler", "robots_txt {\n" + payHead + "\t\t\tprice 0.001 GPTBot {\n\t\t\t\tcrawlers NoSuchBotAnywhere # <-\n\t\t\t}\n\t\t}\n}", `"NoSuchBotAnywhere": not a crawler either catalogue knows`},
	{"price unknown preset", "robots_txt {\n" + payHead + "\t\t\tprice 0.001 preset:ai-trainnig # <-\n\t\t}\n}", `"preset:ai-trainnig"`},
	{"price unknown sub-directive", "robots_txt {\n\tpay {\n\t\tprice 0.001 GPTBot {\n\t\t\tpath /articles/* # <-\n\t\t}\n\t}\n}", `price's block takes crawlers, except, paths, license (got "path") (did you mean "paths"?)`},
	{"price paths bare", "robots_txt {\n\tpay {\n\t\tprice 0.001 GPTBot {\n\t\t\tpaths # <-\n\t\t}\n\t}\n}", "paths needs at least one path pattern"},
	{"price license twice", "robots_txt {\n\tpay {\n\t\tprice 0.001 GPTBot {\n\t\t\tlicense /a.xml\n\t\t\tlicense /b.xml # <-\n\t\t}\n\t}\n}", "license given twice"},
}

// TestPayCaddyfileJSON: the pay block adapts to exactly policy.Pay's JSON, every
// sub-directive to its field; a placeholder stays in the JSON, for Provision to replace.
func TestPayCaddyfileJSON(t *testing.T) {
	cfg := globals() + `
http://localhost:8080 {
	robots_txt {
		group * {
			disallow /private/
		}
		license_document /license.xml {
			content /articles/ {
				payment crawl
			}
		}
		pay {
			facilitator https://facilitator.example/x402
			network eip155:8453
			asset 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913
			decimals 6
			pay_to {env.PAY_TO}
			extra name "USD Coin"
			extra version 2
			max_timeout 2m
			facilitator_timeout 5s
			max_in_flight 8
			remember_payments 1000
			price 0.001 GPTBot {
				paths /articles/* /news/*
			}
			price 0.0005 {
				crawlers preset:ai-training
				except CCBot
				license /license.xml
			}
		}
	}
}
`
	var out []byte
	notes, err := recordSources("Caddyfile", func() error {
		var err error
		out, _, err = caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each line recorded names a field of the handler's JSON (the lines errors are reported
	// at), the pay block's among them.
	payLines := 0
	for handler, srcs := range notes {
		var h any
		if err := json.Unmarshal([]byte(handler), &h); err != nil {
			t.Fatal(err)
		}
		for _, src := range srcs {
			for path := range src.Lines {
				if _, err := configerr.Resolve(h, path); err != nil {
					t.Errorf("line %d: recorded path %q: %v", src.Lines[path], path, err)
				}
				if strings.HasPrefix(path, "pay") {
					payLines++
				}
			}
		}
	}
	if payLines < 20 {
		t.Errorf("only %d paths of pay recorded", payLines)
	}
	var doc any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var raw json.RawMessage
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["handler"] == "robots_txt" {
				raw, _ = json.Marshal(v["pay"])
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var got policy.Pay
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("pay JSON %s is not policy.Pay JSON: %v", raw, err)
	}
	six := 6
	want := policy.Pay{
		Facilitator: "https://facilitator.example/x402", Network: "eip155:8453", Asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
		Decimals: &six, PayTo: "{env.PAY_TO}", Extra: map[string]string{"name": "USD Coin", "version": "2"},
		MaxTimeout: policy.Duration(2 * time.Minute), FacilitatorTimeout: policy.Duration(5 * time.Second), MaxInFlight: 8, RememberPayments: 1000,
		Prices: []policy.Price{
			{Crawlers: []string{"GPTBot"}, Paths: []string{"/articles/*", "/news/*"}, Amount: "0.001"},
			{Crawlers: []string{"preset:ai-training"}, Except: []string{"CCBot"}, License: "/license.xml", Amount: "0.0005"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pay config\n got %+v\nwant %+v", got, want)
	}
}

// TestPayCaddyfileDocs: docs/caddy.md's pay block adapts, to the prices it shows.
func TestPayCaddyfileDocs(t *testing.T) {
	block := docBlock(t, "../docs/caddy.md", "pay-caddyfile", "caddyfile")
	var txt RobotsTxt
	if err := txt.UnmarshalCaddyfile(caddyfile.NewTestDispenser(block)); err != nil {
		t.Fatal(err)
	}
	p := txt.Pay
	if p == nil || len(p.Prices) != 2 || p.Prices[1].Amount != "0.0005" || !reflect.DeepEqual(p.Prices[1].Crawlers, []string{"CCBot", "PerplexityBot"}) {
		t.Errorf("docs/caddy.md's pay block reads as %+v", p)
	}
}

package logreport_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// paidLine is a Caddy JSON line of r whose response carried PAYMENT-RESPONSE, under a name
// written as name (Caddy logs it canonical; any case is the same header).
func paidLine(r request, i int, name string) string {
	const plain = `"resp_headers":{"Content-Type":["text/html"]}`
	l := caddyLine(r, i)
	if !strings.Contains(l, plain) {
		panic("caddyLine no longer writes " + plain)
	}
	return strings.Replace(l, plain, `"resp_headers":{"Content-Type":["text/html"],"`+name+`":["eyJzdWNjZXNzIjp0cnVlfQ=="]}`, 1)
}

// TestPaymentsCounted: over generated Caddy and Combined logs of every client, with 402s,
// responses with PAYMENT-RESPONSE (paid when a 2xx; a 304 or 403 with one is not, nor a 402,
// a failed settlement), the report's 402 and paid counts per crawler and in total are the ones the
// generator knows, in JSON, text and HTML; a Combined log (no response headers) has no paid.
func TestPaymentsCounted(t *testing.T) {
	site := loadSite(t, true)
	n := 1500
	if raceEnabled {
		n = 300
	}
	names := []string{"Payment-Response", "payment-response", "PAYMENT-RESPONSE"}
	for _, format := range []string{"caddy", "combined"} {
		t.Run(format, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(36, uint64(len(format))))
			reqs := generate(36, n, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 24*time.Hour, false)
			type counts struct{ required, paid int64 }
			rows := map[string]*counts{} // by catalogue ID
			var total counts
			var log bytes.Buffer
			for i, r := range reqs {
				r.status = []int{200, 402, 402, 304, 403, 200}[rnd.IntN(6)]
				header := rnd.IntN(2) == 0
				if format == "caddy" && header {
					log.WriteString(paidLine(r, i, names[rnd.IntN(len(names))]) + "\n")
				} else if format == "caddy" {
					log.WriteString(caddyLine(r, i) + "\n")
				} else {
					log.WriteString(combinedLine(r, false) + "\n")
				}
				c := counts{}
				if r.status == 402 {
					c.required = 1
				}
				if header && format == "caddy" && r.status == 200 {
					c.paid = 1
				}
				total.required += c.required
				total.paid += c.paid
				if r.c.id == "" || (r.c.fake != "" && r.ip == r.c.fake) {
					continue // a browser's, or an impostor's: in no crawler's row
				}
				if rows[r.c.id] == nil {
					rows[r.c.id] = &counts{}
				}
				rows[r.c.id].required += c.required
				rows[r.c.id].paid += c.paid
			}
			if total.required == 0 || (format == "caddy" && total.paid == 0) {
				t.Fatalf("the generated log lacks 402s or paid requests: %+v", total)
			}
			rep := build(t, site, "", map[string][]byte{"access.log": log.Bytes()}, "access.log")
			if rep.Totals.PaymentRequired != total.required || rep.Totals.Paid != total.paid {
				t.Errorf("totals: 402 %d paid %d, want %d %d", rep.Totals.PaymentRequired, rep.Totals.Paid, total.required, total.paid)
			}
			// Read in three parts by three workers, merged: the same counts.
			rp, err := policycheck.NewReplay(site, "https://example.com")
			if err != nil {
				t.Fatal(err)
			}
			defer rp.Close()
			par, _, _ := reportWith(t, rp, "", memLogs(splitLog(log.Bytes(), 3)), 3)
			if par.Totals.PaymentRequired != total.required || par.Totals.Paid != total.paid {
				t.Errorf("read by workers: totals 402 %d paid %d, want %d %d", par.Totals.PaymentRequired, par.Totals.Paid, total.required, total.paid)
			}
			for _, c := range append(append([]*logreport.Crawler{}, par.Crawlers...), par.Tools...) {
				if want := rows[c.ID]; want != nil && (c.PaymentRequired != want.required || c.Paid != want.paid) {
					t.Errorf("read by workers: %s: 402 %d paid %d, want %d %d", c.ID, c.PaymentRequired, c.Paid, want.required, want.paid)
				}
			}
			shown := 0
			for _, c := range append(append([]*logreport.Crawler{}, rep.Crawlers...), rep.Tools...) {
				want := rows[c.ID]
				if want == nil {
					want = &counts{}
				}
				if c.PaymentRequired != want.required || c.Paid != want.paid {
					t.Errorf("%s: 402 %d paid %d, want %d %d", c.ID, c.PaymentRequired, c.Paid, want.required, want.paid)
				}
				if c.PaymentRequired+c.Paid > 0 {
					shown++
				}
			}

			// Text: the line of totals, and a row per crawler asked or paid.
			var txt bytes.Buffer
			if err := rep.WriteText(&txt); err != nil {
				t.Fatal(err)
			}
			head := fmt.Sprintf("Pay per crawl (x402): %d answered 402 Payment Required, %d served paid\n", total.required, total.paid)
			_, table, ok := strings.Cut(txt.String(), head)
			if !ok {
				t.Fatalf("the text lacks %q:\n%s", head, txt.String())
			}
			lines := strings.Split(table, "\n")
			for i, c := range rep.Crawlers {
				if c.PaymentRequired+c.Paid == 0 {
					continue
				}
				row := regexp.MustCompile(`^` + regexp.QuoteMeta(c.Name) + `\s+\S+\s+` + strconv.FormatInt(c.PaymentRequired, 10) + `\s+` + strconv.FormatInt(c.Paid, 10) + `\s*$`)
				if !slices.ContainsFunc(lines[1:min(shown+1, len(lines))], row.MatchString) {
					t.Errorf("crawler %d %s: no text row %v in\n%s", i, c.Name, row, table)
				}
			}

			// HTML: the summary and a row per crawler asked or paid, in the JSON's order.
			var page bytes.Buffer
			if err := rep.WriteHTML(&page); err != nil {
				t.Fatal(err)
			}
			doc, err := html.Parse(&page)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]*html.Node{}
			var walk func(*html.Node)
			walk = func(n *html.Node) {
				if id := attr(n, "id"); n.Type == html.ElementNode && id != "" {
					byID[id] = n
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(doc)
			sum := map[string]int64{}
			for _, dd := range cells(byID["summary"]) {
				sum[attr(dd, "data-k")] = number(t, dd)
			}
			if sum["payment_required"] != total.required || sum["paid"] != total.paid {
				t.Errorf("HTML summary: 402 %d paid %d, want %d %d", sum["payment_required"], sum["paid"], total.required, total.paid)
			}
			trs := rowsOf(byID["payments"])
			if len(trs) != shown {
				t.Fatalf("HTML payments table has %d rows, want %d", len(trs), shown)
			}
			i := 0
			for _, c := range append(append([]*logreport.Crawler{}, rep.Crawlers...), rep.Tools...) {
				if c.PaymentRequired+c.Paid == 0 {
					continue
				}
				got := map[string]int64{}
				for _, td := range cells(trs[i]) {
					if k := attr(td, "data-k"); k != "name" {
						got[k] = number(t, td)
					}
				}
				if attr(trs[i], "data-id") != c.ID || got["payment_required"] != c.PaymentRequired || got["paid"] != c.Paid {
					t.Errorf("HTML payments row %d: %s %v, want %s %d %d", i, attr(trs[i], "data-id"), got, c.ID, c.PaymentRequired, c.Paid)
				}
				i++
			}
		})
	}
}

// TestNoPaymentsNoSection: a log without 402s or paid responses has no pay per crawl table,
// in text or HTML.
func TestNoPaymentsNoSection(t *testing.T) {
	reqs := generate(7, 200, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), time.Hour, false)
	log, _ := render(reqs, "caddy")
	rep := build(t, loadSite(t, false), "", map[string][]byte{"access.log": log}, "access.log")
	var txt, page bytes.Buffer
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(txt.String(), "Pay per crawl") || strings.Contains(page.String(), `id="payments"`) || strings.Contains(page.String(), `data-k="paid"`) {
		t.Error("a log without payments shows a pay per crawl section")
	}
}

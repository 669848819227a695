package caddymodule

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// TestTDMRepFileAgreesCaddy: through a real Caddy, for generated site blocks of several
// robots_tag routes declaring tdm 1 or 0 with or without a policy on path patterns in mixed
// case and with wildcards, and for generated request paths (in other cases too: Caddy's path
// matchers ignore case, tdmrep.json's locations do not), the declaration a TDM agent reads in
// the served /.well-known/tdmrep.json (its first rule whose location matches, as grobotstxt
// matches it, the matcher of serve's TestTDMRepFileAgrees) is the one the page's
// tdm-reservation and tdm-policy headers state.
func TestTDMRepFileAgreesCaddy(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	// Few segments, in both cases, so that routes overlap and a path matches several.
	segs := []string{"a", "A", "docs", "Docs", "DOCS", "x.pdf", "é"}
	pattern := func() string {
		s := segs[rng.IntN(len(segs))]
		switch rng.IntN(6) {
		case 0:
			return "*"
		case 1:
			return "/" + s
		case 2:
			return "*." + []string{"pdf", "PDF"}[rng.IntN(2)]
		case 3:
			return "*" + s + "*"
		case 4:
			return "/" + s + "*"
		}
		return "/" + s + "/*"
	}
	sites, paths := 24, 50
	if raceEnabled {
		sites, paths = 8, 30
	}
	startCaddyfile(t, "http://localhost:@PORT@ {\n\trespond \"ok\"\n}\n")
	checked, withPolicy, respelledPolicy := 0, 0, 0
	for range sites {
		var site strings.Builder
		site.WriteString("http://localhost:@PORT@ {\n\trobots_txt\n")
		for i := range 2 + rng.IntN(4) {
			fmt.Fprintf(&site, "\t@m%d path", i)
			for range 1 + rng.IntN(2) {
				site.WriteString(" " + pattern())
			}
			fmt.Fprintf(&site, "\n\trobots_tag @m%d {\n\t\ttdm %d", i, rng.IntN(2))
			if rng.IntN(3) != 0 {
				fmt.Fprintf(&site, " https://p%d.example/", rng.IntN(3))
			}
			site.WriteString("\n\t}\n")
		}
		site.WriteString("\trespond \"ok\"\n}\n")
		if status, msg := loadRaw(t, globals()+expand(site.String()), "text/caddyfile"); status != 200 {
			t.Fatalf("%s\n%s", site.String(), msg)
		}
		resp, file := do(t, "GET", siteURL(tdmrep.WellKnownPath))
		wantStatus(t, resp, 200)
		var rules []tdmrep.Rule
		if err := json.Unmarshal(file, &rules); err != nil {
			t.Fatalf("%s\n%s: %v", site.String(), file, err)
		}
		for range paths {
			var b strings.Builder
			for range 1 + rng.IntN(3) {
				b.WriteString("/" + segs[rng.IntN(len(segs))])
			}
			p := b.String()
			respelled := rng.IntN(2) == 0
			if respelled {
				p = strings.Map(func(r rune) rune {
					if rng.IntN(2) == 0 {
						return unicode.ToUpper(r)
					}
					return unicode.ToLower(r)
				}, p)
			}
			escaped := (&url.URL{Path: p}).EscapedPath()
			resp, _ := do(t, "GET", siteURL(escaped))
			wantStatus(t, resp, 200)
			sent, sentPolicy := resp.Header.Get("Tdm-Reservation"), resp.Header.Get("Tdm-Policy")
			for _, r := range rules {
				if grobotstxt.AgentAllowed("User-agent: *\nDisallow: "+r.Location+"\n", "agent", "http://example.com"+escaped) {
					continue
				}
				checked++
				if got := fmt.Sprint(r.Reservation); got != sent || r.Policy != sentPolicy {
					t.Fatalf("site\n%s\nfile %s\npath %s: the file says %s %q (%s), the headers %q %q", site.String(), file, p, got, r.Policy, r.Location, sent, sentPolicy)
				}
				if r.Policy != "" {
					withPolicy++
					if respelled {
						respelledPolicy++
					}
				}
				break
			}
		}
	}
	if checked < sites*paths/4 || respelledPolicy < sites {
		t.Fatalf("only %d paths the file states, %d of them with a policy (%d respelled)", checked, withPolicy, respelledPolicy)
	}
	t.Logf("%d paths the file states, %d with a policy (%d respelled)", checked, withPolicy, respelledPolicy)
}

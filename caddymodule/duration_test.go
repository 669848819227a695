package caddymodule

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/sitepolicy/caddy-robots/policy"
)

// TestDurationsReadAsCaddyReadsThem: a duration string in the JSON config (policy.Duration,
// which the net/http middleware and every JSON front end read) must mean what
// caddy.ParseDuration makes of it, verdict and value, on the forms users write and on random
// strings of their characters, so that one JSON configures both front ends alike.
func TestDurationsReadAsCaddyReadsThem(t *testing.T) {
	inputs := []string{"1h", "1d", "1.5d", "1d12h", "90s", "-1d", "0", "0s", "", "d", "1dd", "soon", "2h30m", "500ms", "1d1d", "+1d", ".5d", "1e3d"}
	r := rand.New(rand.NewPCG(1, 2))
	const chars = "0123456789.dhms-+u"
	for range 5000 {
		b := make([]byte, 1+r.IntN(6))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		want, wantErr := caddy.ParseDuration(s)
		q, _ := json.Marshal(s)
		var d policy.Duration
		err := json.Unmarshal(q, &d)
		got := time.Duration(d)
		if (err != nil) != (wantErr != nil) || got != want {
			t.Fatalf("%q: ours %v, %v; Caddy's %v, %v", s, got, err, want, wantErr)
		}
	}
}

// TestConvertedValuesEchoedAsWritten: an error about a value the adapter converts (a
// duration, a number) shows the value as the Caddyfile wrote it, not as Go formats the
// converted value ("2d", not "48h0m0s").
func TestConvertedValuesEchoedAsWritten(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	for _, c := range []struct{ site, want, not string }{
		{"robots_txt {\n\tmax_age 2d # <-\n}", `robots_txt: max_age "2d": max_age must be at least 1s`, "48h"},
		{"robots_txt {\n\tmax_age 1.5d # <-\n}", `max_age "1.5d": max_age must be at least 1s`, "36h"},
		{"robots_txt {\n\tmax_age 25h # <-\n}", `max_age "25h": `, "25h0m0s"},
		{"robots_txt {\n\tmax_age 0.5s # <-\n}", `max_age "0.5s": `, "500ms"},
		{"robots_txt {\n\tmax_age -90m # <-\n}", `max_age "-90m": `, "1h30m"},
		{"robots_txt {\n\tmax_age 0d # <-\n}", `max_age "0d": would mean the default`, ""},
		{"robots_txt {\n\tmax_age 2x # <-\n}", `invalid duration "2x"`, ""},
		{"robots_txt {\n\tmerge_upstream 2m # <-\n}", `robots_txt: merge_upstream "2m": a fetch timeout is more than 0 and at most 1m0s`, "2m0s"},
		{"robots_txt {\n\tmerge_upstream 1d # <-\n}", `merge_upstream "1d": `, "24h"},
		{"robots_txt {\n\tmerge_upstream -1s # <-\n}", `merge_upstream "-1s": `, ""},
		{"robots_txt {\n\tmerge_upstream 0s # <-\n}", `timeout "0s": would mean the default`, ""},
		{"robots_txt {\n\tmerge_upstream soon # <-\n}", `invalid duration "soon"`, ""},
		{"robots_txt {\n\tgroup * {\n\t\tcrawl_delay -1e1 # <-\n\t}\n}", `robots_txt: crawl_delay "-1e1": a crawl delay is a finite number`, `"-10"`},
		{"robots_txt {\n\tgroup * {\n\t\tcrawl_delay -.5 # <-\n\t}\n}", `crawl_delay "-.5": `, `"-0.5"`},
		{"robots_txt {\n\tpreset ai-all {\n\t\tdisallow /\n\t}\n\tenforce +302 # <-\n}", `robots_txt: enforce "+302": the status of a blocked request`, `"302"`},
		{"robots_txt {\n\tpreset ai-all {\n\t\tdisallow /\n\t}\n\tenforce 0302 # <-\n}", `enforce "0302": `, `"302"`},
	} {
		cfg, line := badCaddyfile(t, c.site)
		_, _, err := adapter.Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
		if err == nil {
			t.Errorf("adapted without error:\n%s", cfg)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, fmt.Sprintf("Caddyfile:%d", line)) {
			t.Errorf("error %q; want %q at Caddyfile:%d", msg, c.want, line)
		}
		if c.not != "" && strings.Contains(msg, c.not) {
			t.Errorf("error %q shows the converted value %q", msg, c.not)
		}
	}
}

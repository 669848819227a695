package caddymodule

import (
	"math/rand/v2"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// TestDurationsReadAsCaddyReadsThem: every front end reads durations with syntax.ParseDuration;
// it must agree with caddy.ParseDuration, verdict and value, on the forms users write and on
// random strings of their characters.
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
		got, err := syntax.ParseDuration(s)
		if (err != nil) != (wantErr != nil) || got != want {
			t.Fatalf("%q: ours %v, %v; Caddy's %v, %v", s, got, err, want, wantErr)
		}
	}
}

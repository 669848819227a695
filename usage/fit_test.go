package usage

import (
	"fmt"
	"strings"
	"testing"
)

// TestFit: a union over MaxFieldSize loses extension "y" values first, then extension "n"
// values, never the vocabulary's own keys, and says what it left out.
func TestFit(t *testing.T) {
	m := map[string]string{"train-ai": "n", "search": "y"}
	for i := range 400 {
		m[fmt.Sprintf("+ext-y-%03d-%s", i, strings.Repeat("a", 10))] = "y"
		m[fmt.Sprintf("+ext-n-%03d-%s", i, strings.Repeat("b", 10))] = "n"
	}
	p, err := ContentUsage.FromConfig(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.String()) <= MaxFieldSize {
		t.Fatalf("the test's field is only %d bytes", len(p.String()))
	}
	fitted, dropped := p.Fit()
	out := fitted.String()
	if len(out) > MaxFieldSize || len(dropped) == 0 {
		t.Fatalf("fitted to %d bytes, %d left out", len(out), len(dropped))
	}
	got := fitted.Map()
	if got["train-ai"] != "n" || got["search"] != "y" {
		t.Errorf("the vocabulary's keys were touched: %v", got)
	}
	for _, d := range dropped {
		if strings.HasSuffix(d, "=n") {
			for k, v := range got {
				if v == "y" && strings.HasPrefix(k, "+") {
					t.Fatalf("an extension n (%s) was left out while the extension y %s stayed", d, k)
				}
			}
		}
		k, _, _ := strings.Cut(d, "=")
		if _, ok := got[k]; ok {
			t.Errorf("%s is reported left out but is sent", d)
		}
	}
	if len(got)+len(dropped) != len(m) {
		t.Errorf("%d sent + %d left out != %d", len(got), len(dropped), len(m))
	}
	small, none := ContentUsage.FromArgs([]string{"train-ai=n"})
	if f, d := small.Fit(); none != nil || f.String() != small.String() || d != nil {
		t.Errorf("a short field changed: %q %v", f, d)
	}
}

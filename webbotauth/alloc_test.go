//go:build !race

package webbotauth

import (
	"net/http"
	"testing"
)

// TestVerifyUnsignedAllocs: the unsigned request, every request of most sites, allocates
// nothing.
func TestVerifyUnsignedAllocs(t *testing.T) {
	v, err := NewVerifier(Options{Agents: []Agent{rfcAgent(t)}, AllowTestKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "https://shop.example/", nil)
	r.Header.Set("User-Agent", "x")
	if n := testing.AllocsPerRun(100, func() { v.Verify(r, Target{}) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

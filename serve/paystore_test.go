package serve_test

import (
	"fmt"
	"testing"

	"github.com/sitepolicy/caddy-robots/serve"
)

// TestPaymentStore: a payment is claimed once at a time, kept when settled, released when
// not; the store never holds more than its bound, forgetting the oldest settled first, and
// refuses a claim when every slot is a payment in flight.
func TestPaymentStore(t *testing.T) {
	s := serve.NewPaymentStore(3)
	if !s.Begin("a") || s.Begin("a") {
		t.Fatal("a claimed twice at once")
	}
	s.End("a", false)
	if !s.Begin("a") {
		t.Fatal("a released, not claimable again")
	}
	s.End("a", true)
	if s.Begin("a") {
		t.Fatal("a settled, claimable again")
	}
	for _, id := range []string{"b", "c"} {
		if !s.Begin(id) {
			t.Fatal(id)
		}
		s.End(id, true)
	}
	// Full of settled a, b, c: d forgets a, the oldest.
	if !s.Begin("d") {
		t.Fatal("d refused with settled payments to forget")
	}
	if !s.Begin("a") || s.Begin("c") {
		t.Fatal("a not forgotten first, or c forgotten")
	}
	// a (claimed again, forgetting b) and d in flight, c settled: e forgets c; then all
	// three are in flight, and f is refused.
	if !s.Begin("e") || s.Begin("f") {
		t.Fatal("e refused, or f claimed beyond the bound")
	}
	// Many payments through a store of 100: each settled one stays used until 100 later.
	s = serve.NewPaymentStore(100)
	for i := range 1000 {
		id := fmt.Sprint(i)
		if !s.Begin(id) {
			t.Fatalf("%d refused", i)
		}
		s.End(id, true)
		if i >= 99 && s.Begin(fmt.Sprint(i-99)) {
			t.Fatalf("%d forgotten too early", i-99)
		}
	}
}

// TestPaymentID: one payload re-encoded (spaces, key order) is one payment; payloads that
// differ, even in a number past float64's precision, are two.
func TestPaymentID(t *testing.T) {
	id := func(s string) string {
		t.Helper()
		v, err := serve.PaymentID([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a := id(`{"signature":"0x1","authorization":{"value":"1000","nonce":"0x2"}}`)
	if b := id(` { "authorization" : {"nonce":"0x2", "value":"1000"}, "signature":"0x1" } `); a != b {
		t.Error("one payload re-encoded: two ids")
	}
	if id(`{"n":12345678901234567890123}`) == id(`{"n":12345678901234567890124}`) {
		t.Error("two numbers past float64's precision: one id")
	}
}

package x402_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/x402"
	"github.com/sitepolicy/caddy-robots/x402/x402test"
)

// TestAtomicAmountProperty: over generated amounts and decimals, AtomicAmount is the exact
// product amount × 10^decimals as math/big's rationals compute it, or an error exactly when
// that product is no positive integer (or has over 78 digits).
func TestAtomicAmountProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 402))
	n := 20000
	if raceEnabled {
		n = 2000
	}
	for range n {
		decimals := rng.IntN(25)
		whole := fmt.Sprint(rng.Uint64N(1 << uint(rng.IntN(64))))
		if rng.IntN(4) == 0 {
			whole = strings.Repeat("0", rng.IntN(3)) + whole
		}
		amount := whole
		if rng.IntN(3) > 0 {
			frac := make([]byte, rng.IntN(decimals+3))
			for i := range frac {
				frac[i] = byte('0' + rng.IntN(10))
			}
			amount += "." + string(frac)
		}
		got, err := x402.AtomicAmount(amount, decimals)
		want, ok := new(big.Rat).SetString(amount)
		if !ok || strings.HasSuffix(amount, ".") {
			if err == nil {
				t.Fatalf("AtomicAmount(%q, %d) = %s; want an error", amount, decimals, got)
			}
			continue
		}
		want.Mul(want, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
		exact := want.IsInt() && want.Sign() > 0 && len(want.Num().String()) <= 78
		if exact != (err == nil) {
			t.Fatalf("AtomicAmount(%q, %d) = %q, %v; want exact=%v (%s)", amount, decimals, got, err, exact, want.RatString())
		}
		if exact && got != want.Num().String() {
			t.Fatalf("AtomicAmount(%q, %d) = %s; want %s", amount, decimals, got, want.Num())
		}
	}
}

func TestAtomicAmountRefuses(t *testing.T) {
	for _, c := range []struct {
		amount   string
		decimals int
		want     string
	}{
		{"0.0000001", 6, "smallest amount is 0.000001"},
		{"0", 6, "zero"},
		{"0.000", 6, "zero"},
		{"-1", 6, "not a decimal"},
		{"1e-3", 6, "not a decimal"},
		{"1.", 6, "not a decimal"},
		{".5", 6, "not a decimal"},
		{"1.2.3", 6, "not a decimal"},
		{" 1", 6, "not a decimal"},
		{"0.5", 0, "smallest amount is 1"},
	} {
		if _, err := x402.AtomicAmount(c.amount, c.decimals); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AtomicAmount(%q, %d): %v; want %q", c.amount, c.decimals, err, c.want)
		}
	}
	if got, err := x402.AtomicAmount("0.00100", 6); got != "1000" || err != nil {
		t.Errorf(`AtomicAmount("0.00100", 6) = %q, %v`, got, err)
	}
}

// TestHeadersRoundTrip: what EncodeHeader writes, the decoders read back.
func TestHeadersRoundTrip(t *testing.T) {
	req := x402.PaymentRequirements{Scheme: "exact", Network: "eip155:84532", Amount: "1000", Asset: "0xA", PayTo: "0xB", MaxTimeoutSeconds: 60}
	h, err := x402.EncodeHeader(x402.PaymentRequired{X402Version: 2, Resource: x402.ResourceInfo{URL: "https://example.com/a"}, Accepts: []x402.PaymentRequirements{req}})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := x402.DecodePaymentRequired(h)
	if err != nil || !reflect.DeepEqual(pr.Accepts[0], req) || pr.Resource.URL != "https://example.com/a" {
		t.Fatalf("PAYMENT-REQUIRED round trip: %+v, %v", pr, err)
	}
	h, _ = x402.EncodeHeader(map[string]any{"x402Version": 2, "accepted": req, "payload": map[string]any{"signature": "0x1"}})
	if p, raw, err := x402.DecodePaymentPayload(h); err != nil || !reflect.DeepEqual(p.Accepted, req) || !strings.Contains(string(raw), `"signature":"0x1"`) {
		t.Fatalf("PAYMENT-SIGNATURE round trip: %+v, %s, %v", p, raw, err)
	}
	h, _ = x402.EncodeHeader(x402.SettlementResponse{Success: true, Transaction: "0x1", Network: "eip155:84532"})
	if s, err := x402.DecodeSettlementResponse(h); err != nil || !s.Success || s.Transaction != "0x1" {
		t.Fatalf("PAYMENT-RESPONSE round trip: %+v, %v", s, err)
	}
}

// TestFacilitatorClient: the calls reach the facilitator's endpoints under its base URL;
// slow, broken, redirecting, oversized and busy answers are errors of their kind, each
// within its bound.
func TestFacilitatorClient(t *testing.T) {
	fac := x402test.NewFacilitator(t)
	var mu sync.Mutex
	results := map[string]int{}
	f, err := x402.NewFacilitator(fac.URL+"/", x402.FacilitatorOptions{Timeout: 200 * time.Millisecond, MaxInFlight: 1,
		Observe: func(e x402.Endpoint, r x402.CallResult, _ time.Duration) {
			mu.Lock()
			results[e.String()+" "+r.String()]++
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.URL(x402.EndpointVerify); got != fac.URL+"/verify" {
		t.Errorf("verify URL %s", got)
	}
	ctx := context.Background()
	if s, err := f.Supported(ctx); err != nil || len(s.Kinds) != 1 || s.Kinds[0].Network != "eip155:84532" {
		t.Fatalf("supported: %+v, %v", s, err)
	}
	v, err := f.Verify(ctx, []byte(`{"x402Version":2,"payload":{}}`), x402.PaymentRequirements{Scheme: "exact", Amount: "1"})
	if err != nil || v.IsValid || v.InvalidReason != "invalid_exact_evm_payload_signature" {
		t.Fatalf("verify of an unsigned payload: %+v, %v", v, err)
	}
	fac.Script(x402test.Slow)
	start := time.Now()
	_, err = f.Verify(ctx, []byte(`{}`), x402.PaymentRequirements{})
	var ce *x402.CallError
	if !errors.As(err, &ce) || ce.Result != x402.CallTimeout || time.Since(start) > 5*time.Second {
		t.Fatalf("slow: %v after %s", err, time.Since(start))
	}
	fac.Script(x402test.Broken)
	if _, err = f.Settle(ctx, []byte(`{}`), x402.PaymentRequirements{}); !errors.As(err, &ce) || ce.Result != x402.CallFailed {
		t.Fatalf("broken: %v", err)
	}

	// Busy: one call in flight (held by a slow facilitator), the next fails at once.
	fac.Script(x402test.Slow)
	done := make(chan error)
	go func() { _, err := f.Supported(ctx); done <- err }()
	deadline := time.Now().Add(5 * time.Second)
	for fac.Calls("supported") < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if _, err = f.Supported(ctx); !errors.As(err, &ce) || ce.Result != x402.CallBusy {
		t.Fatalf("busy: %v", err)
	}
	<-done

	// A redirect is not followed; an answer over the size bound is refused.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r/verify" {
			http.Redirect(w, r, fac.URL+"/verify", http.StatusTemporaryRedirect)
			return
		}
		fmt.Fprintf(w, `{"isValid":true,"payer":"%s"}`, strings.Repeat("x", x402.MaxResponseBytes))
	}))
	defer other.Close()
	for _, base := range []string{other.URL + "/r", other.URL + "/big"} {
		g, _ := x402.NewFacilitator(base, x402.FacilitatorOptions{})
		if _, err := g.Verify(ctx, []byte(`{}`), x402.PaymentRequirements{}); !errors.As(err, &ce) || ce.Result != x402.CallFailed {
			t.Errorf("%s: %v", base, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"supported ok", "verify ok", "verify timeout", "settle error", "supported busy"} {
		if results[k] == 0 {
			t.Errorf("not observed: %s (%v)", k, results)
		}
	}
}

func TestCheckFacilitatorURL(t *testing.T) {
	for s, ok := range map[string]bool{
		"https://facilitator.example": true, "https://x.example/api/": true, "http://127.0.0.1:8402": true,
		"http://[::1]:1": true, "http://localhost:9": true, "http://facilitator.example": false,
		"ftp://x.example": false, "/verify": false, "https://x.example/?a=b": false, "https://u@x.example": false,
		"https://x.example/#f": false, "http://127.0.0.1.example": false,
	} {
		if got := x402.CheckFacilitatorURL(s) == ""; got != ok {
			t.Errorf("CheckFacilitatorURL(%q) ok=%v; want %v", s, got, ok)
		}
	}
}

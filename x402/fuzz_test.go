package x402_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/x402"
)

// FuzzDecodePaymentPayload: any PAYMENT-SIGNATURE value decodes or fails with a
// *DecodeError (the 402's reason), never panics; what decodes has version 2, a payload
// object and accepted requirements, and its JSON is under the header bound. Seeds in
// testdata/fuzz.
func FuzzDecodePaymentPayload(f *testing.F) {
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:1"},"payload":{}}`)))
	f.Fuzz(func(t *testing.T, v string) {
		p, raw, err := x402.DecodePaymentPayload(v)
		if err != nil {
			var de *x402.DecodeError
			if !errors.As(err, &de) || de.Reason == "" {
				t.Fatalf("error %v is no DecodeError", err)
			}
			return
		}
		if p.X402Version != 2 || len(p.Payload) == 0 || p.Accepted.Scheme == "" || len(raw) > x402.MaxHeaderBytes {
			t.Fatalf("decoded %+v from %q", p, v)
		}
	})
}

// FuzzDecodeSettlementResponse: the client's readers never panic, and fail with a
// *DecodeError.
func FuzzDecodeSettlementResponse(f *testing.F) {
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"success":true,"transaction":"0x1","network":"eip155:1"}`)))
	f.Fuzz(func(t *testing.T, v string) {
		for _, dec := range []func(string) error{
			func(v string) error { _, err := x402.DecodeSettlementResponse(v); return err },
			func(v string) error { _, err := x402.DecodePaymentRequired(v); return err },
		} {
			if err := dec(v); err != nil {
				var de *x402.DecodeError
				if !errors.As(err, &de) || strings.TrimSpace(de.Reason) == "" {
					t.Fatalf("error %v is no DecodeError", err)
				}
			}
		}
	})
}

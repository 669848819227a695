// Package x402 is the x402 protocol, version 2, as a resource server speaks it over HTTP: the
// messages (PaymentRequired, PaymentRequirements, PaymentPayload, SettlementResponse,
// VerifyResponse, SupportedResponse: x402-specification-v2.md section 5 and 7), their
// headers (PAYMENT-REQUIRED, PAYMENT-SIGNATURE, PAYMENT-RESPONSE: base64 of their JSON,
// transports-v2/http.md), exact amounts in atomic units (AtomicAmount), and a client of a
// facilitator's /verify, /settle and /supported (Facilitator). The server never touches a
// chain or a wallet: the facilitator verifies and settles.
//
// docs/x402-spec.md is the digest of the specification this follows, with its source
// commit; docs/payment.md the exchange as caddy-robots runs it.
package x402

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Version is the protocol version this package speaks (x402Version).
const Version = 2

// SchemeExact is the "exact" scheme: a payment of a given amount (specs/schemes/exact).
const SchemeExact = "exact"

// The header fields of the HTTP transport (transports-v2/http.md, "Header Summary"), in
// Go's canonical form: field names are case-insensitive.
const (
	// HeaderPaymentRequired carries a PaymentRequired, server to client, with status 402.
	HeaderPaymentRequired = "Payment-Required"
	// HeaderPaymentSignature carries a PaymentPayload, client to server.
	HeaderPaymentSignature = "Payment-Signature"
	// HeaderPaymentResponse carries a SettlementResponse, server to client.
	HeaderPaymentResponse = "Payment-Response"
)

// MaxHeaderBytes bounds a PAYMENT-SIGNATURE field value (base64) that DecodePaymentPayload
// reads: an exact-EVM payload is under 1.5 KiB encoded; anything over 8 KiB is refused
// before it is decoded.
const MaxHeaderBytes = 8 << 10

// maxAmountDigits bounds an atomic amount: a uint256 has at most 78 decimal digits.
const maxAmountDigits = 78

// ResourceInfo describes the protected resource (section 5.1.2).
type ResourceInfo struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// PaymentRequirements is one acceptable way to pay (section 5.1.2): the scheme, the network
// (CAIP-2), the amount in the asset's atomic units, the asset, the recipient, the time
// allowed, and the scheme's extra data (for exact on EVM, the EIP-712 domain's "name" and
// "version" of the token).
type PaymentRequirements struct {
	Scheme            string            `json:"scheme"`
	Network           string            `json:"network"`
	Amount            string            `json:"amount"`
	Asset             string            `json:"asset"`
	PayTo             string            `json:"payTo"`
	MaxTimeoutSeconds int               `json:"maxTimeoutSeconds"`
	Extra             map[string]string `json:"extra,omitempty"`
}

// PaymentRequired is what a server answers a request that needs payment with (section
// 5.1): x402Version 2, why, the resource, and the ways to pay.
type PaymentRequired struct {
	X402Version int                   `json:"x402Version"`
	Error       string                `json:"error,omitempty"`
	Resource    ResourceInfo          `json:"resource"`
	Accepts     []PaymentRequirements `json:"accepts"`
}

// PaymentPayload is a client's payment (section 5.2): the requirements it accepted, the
// resource, and the scheme's payload (for exact on EVM, an EIP-3009 authorization and its
// signature), which only the facilitator reads and which is kept as sent.
type PaymentPayload struct {
	X402Version int                 `json:"x402Version"`
	Resource    *ResourceInfo       `json:"resource,omitempty"`
	Accepted    PaymentRequirements `json:"accepted"`
	Payload     json.RawMessage     `json:"payload"`
	Extensions  json.RawMessage     `json:"extensions,omitempty"`
}

// SettlementResponse is the outcome of a settlement (section 5.3), sent in PAYMENT-RESPONSE.
type SettlementResponse struct {
	Success     bool   `json:"success"`
	ErrorReason string `json:"errorReason,omitempty"`
	Payer       string `json:"payer,omitempty"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
}

// VerifyResponse is a facilitator's answer to /verify (section 5.4).
type VerifyResponse struct {
	IsValid       bool   `json:"isValid"`
	InvalidReason string `json:"invalidReason,omitempty"`
	Payer         string `json:"payer,omitempty"`
}

// SupportedKind is one scheme and network a facilitator supports (section 7.3.1).
type SupportedKind struct {
	X402Version int             `json:"x402Version"`
	Scheme      string          `json:"scheme"`
	Network     string          `json:"network"`
	Extra       json.RawMessage `json:"extra,omitempty"`
}

// SupportedResponse is a facilitator's answer to GET /supported (section 7.3).
type SupportedResponse struct {
	Kinds      []SupportedKind     `json:"kinds"`
	Extensions []string            `json:"extensions"`
	Signers    map[string][]string `json:"signers"`
}

// FacilitatorRequest is the body of POST /verify and POST /settle (section 7.1, 7.2): the
// client's payload as it sent it, and the requirements the server holds it to.
type FacilitatorRequest struct {
	PaymentPayload      json.RawMessage     `json:"paymentPayload"`
	PaymentRequirements PaymentRequirements `json:"paymentRequirements"`
}

// EncodeHeader is a header field value of the transport: the base64 (standard alphabet,
// padded: RFC 4648 section 4, as the specification's examples are) of v's JSON.
func EncodeHeader(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodeError is why a header value could not be read; its text is what a 402 tells the
// client (PaymentRequired.Error).
type DecodeError struct{ Reason string }

func (e *DecodeError) Error() string { return e.Reason }

func decodeErr(format string, a ...any) error { return &DecodeError{fmt.Sprintf(format, a...)} }

// decodeHeader reads a base64 JSON header value of at most MaxHeaderBytes into v, refusing
// unknown fields where strict and anything after the object.
func decodeHeader(name, value string, v any, strict bool) ([]byte, error) {
	if value == "" {
		return nil, decodeErr("%s is empty", name)
	}
	if len(value) > MaxHeaderBytes {
		return nil, decodeErr("%s is %d bytes, over the limit of %d", name, len(value), MaxHeaderBytes)
	}
	value = strings.TrimSpace(value)
	raw, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		// Some clients leave out the padding; the JSON is the same.
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(value, "=")); err != nil {
			return nil, decodeErr("%s is not base64 (RFC 4648 section 4)", name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return nil, decodeErr("%s is not the JSON of its message: %s", name, jsonReason(err))
	}
	if dec.More() {
		return nil, decodeErr("%s has data after its JSON object", name)
	}
	return raw, nil
}

// jsonReason is a short reason from a JSON error, without the decoder's Go type names.
func jsonReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("field %q has the wrong type (%s)", te.Field, te.Value)
		}
		return "not a JSON object"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at offset %d", se.Offset)
	}
	return err.Error()
}

// DecodePaymentPayload reads a PAYMENT-SIGNATURE field value: base64 of a PaymentPayload's
// JSON, at most MaxHeaderBytes, x402Version 2, with an accepted requirement and a payload
// object. It also returns the decoded JSON, which is what the facilitator is sent. Every
// error is a *DecodeError.
func DecodePaymentPayload(value string) (PaymentPayload, []byte, error) {
	var p PaymentPayload
	raw, err := decodeHeader("PAYMENT-SIGNATURE", value, &p, false)
	if err != nil {
		return PaymentPayload{}, nil, err
	}
	switch {
	case p.X402Version != Version:
		return PaymentPayload{}, nil, decodeErr("PAYMENT-SIGNATURE has x402Version %d; this server speaks version %d", p.X402Version, Version)
	case len(p.Payload) == 0 || p.Payload[0] != '{':
		return PaymentPayload{}, nil, decodeErr("PAYMENT-SIGNATURE has no payload object")
	case p.Accepted.Scheme == "" || p.Accepted.Network == "":
		return PaymentPayload{}, nil, decodeErr("PAYMENT-SIGNATURE has no accepted requirements (scheme and network)")
	}
	return p, raw, nil
}

// DecodePaymentRequired reads a PAYMENT-REQUIRED field value (a client's reading). Every error
// is a *DecodeError.
func DecodePaymentRequired(value string) (PaymentRequired, error) {
	var p PaymentRequired
	if _, err := decodeHeader("PAYMENT-REQUIRED", value, &p, false); err != nil {
		return PaymentRequired{}, err
	}
	if p.X402Version != Version {
		return PaymentRequired{}, decodeErr("PAYMENT-REQUIRED has x402Version %d, not %d", p.X402Version, Version)
	}
	return p, nil
}

// DecodeSettlementResponse reads a PAYMENT-RESPONSE field value (a client's, or a log
// reader's). Every error is a *DecodeError.
func DecodeSettlementResponse(value string) (SettlementResponse, error) {
	var s SettlementResponse
	if _, err := decodeHeader("PAYMENT-RESPONSE", value, &s, false); err != nil {
		return SettlementResponse{}, err
	}
	return s, nil
}

// AtomicAmount turns an exact decimal amount of an asset ("0.001", "12", "1.50") into its
// atomic units, an integer in base 10 without leading zeros ("1000" for "0.001" with 6
// decimals), with string arithmetic only: no floating point ever rounds a price. An amount
// with more decimal places than the asset has, a sign, an exponent, or anything but digits
// and one point is an error; so is zero, and an amount over 78 digits (a uint256's).
func AtomicAmount(amount string, decimals int) (string, error) {
	if decimals < 0 || decimals > maxAmountDigits {
		return "", fmt.Errorf("decimals must be 0 to %d", maxAmountDigits)
	}
	whole, frac, dot := strings.Cut(amount, ".")
	if whole == "" || (dot && frac == "") {
		return "", errors.New(`not a decimal amount: write digits with at most one point, e.g. "0.001"`)
	}
	for _, s := range [2]string{whole, frac} {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return "", errors.New(`not a decimal amount: write digits with at most one point, e.g. "0.001"`)
			}
		}
	}
	if len(frac) > decimals {
		// Trailing zeros say nothing more.
		t := strings.TrimRight(frac, "0")
		if len(t) > decimals {
			return "", fmt.Errorf("has %d decimal places; the asset has %d, so the smallest amount is %s", len(t), decimals, smallest(decimals))
		}
		frac = t
	}
	digits := strings.TrimLeft(whole+frac+strings.Repeat("0", decimals-len(frac)), "0")
	if digits == "" {
		return "", errors.New("is zero: a price is more than nothing")
	}
	if len(digits) > maxAmountDigits {
		return "", fmt.Errorf("is %d digits in atomic units, over a uint256's %d", len(digits), maxAmountDigits)
	}
	return digits, nil
}

// smallest is the smallest positive amount of an asset with decimals places, as a decimal.
func smallest(decimals int) string {
	if decimals == 0 {
		return "1"
	}
	return "0." + strings.Repeat("0", decimals-1) + "1"
}

// CompareAmounts compares two atomic amounts (base-10 integer strings): -1, 0 or +1; ok is
// false when either is not a non-negative integer of at most 78 digits.
func CompareAmounts(a, b string) (cmp int, ok bool) {
	x, okx := parseAtomic(a)
	y, oky := parseAtomic(b)
	if !okx || !oky {
		return 0, false
	}
	return x.Cmp(y), true
}

func parseAtomic(s string) (*big.Int, bool) {
	if s == "" || len(s) > maxAmountDigits {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return nil, false
		}
	}
	n, ok := new(big.Int).SetString(s, 10)
	return n, ok
}

// Package x402test is a facilitator and a paying client for tests, over loopback HTTP,
// written from the x402 v2 specification without package x402's types (a reading of the
// specification of their own): the facilitator answers POST /verify, POST /settle and GET
// /supported with scripted answers; the client reads a 402's PAYMENT-REQUIRED, builds a
// PAYMENT-SIGNATURE and retries.
//
// Payments are "signed" with a key the facilitator and client share (an HMAC-SHA256 of the
// authorization, standing in for EIP-712): the facilitator checks the signature, the amount
// against the requirements, the recipient, and spends each nonce once at settlement, as a
// chain would.
package x402test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Key is the key payments are signed with.
var Key = []byte("x402test shared signing key")

// Answer is how the facilitator answers.
type Answer int

const (
	// Valid: it checks payments as a facilitator does, and settles valid ones.
	Valid Answer = iota
	// Invalid: every payment is invalid ("invalid_exact_evm_payload_signature").
	Invalid
	// SettleFails: payments verify, settlement fails ("insufficient_funds").
	SettleFails
	// Slow: it answers nothing until the caller gives up (or Release).
	Slow
	// Broken: it answers 500 with an HTML page.
	Broken
)

// Facilitator is a facilitator on 127.0.0.1.
type Facilitator struct {
	URL string
	srv *httptest.Server

	mu      sync.Mutex
	answer  Answer
	spent   map[string]bool
	calls   map[string]int
	release chan struct{}
	tx      int
}

// NewFacilitator starts a facilitator answering Valid; t's cleanup stops it.
func NewFacilitator(t interface {
	Cleanup(func())
}) *Facilitator {
	f := &Facilitator{spent: map[string]bool{}, calls: map[string]int{}, release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	f.URL = f.srv.URL
	t.Cleanup(func() { f.Release(); f.srv.Close() })
	return f
}

// Script sets how it answers from now on.
func (f *Facilitator) Script(a Answer) {
	f.mu.Lock()
	f.answer = a
	f.mu.Unlock()
}

// Release lets slow calls waiting answer (as Valid would).
func (f *Facilitator) Release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.release:
	default:
		close(f.release)
	}
}

// Down stops it: nothing listens at its URL any more.
func (f *Facilitator) Down() {
	f.srv.Listener.Close()
	f.srv.CloseClientConnections()
}

// Calls is how many calls each endpoint ("verify", "settle", "supported") had.
func (f *Facilitator) Calls(endpoint string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[endpoint]
}

type requirements struct {
	Scheme, Network, Amount, Asset, PayTo string
	MaxTimeoutSeconds                     int
}

type authorization struct {
	From, To, Value, ValidAfter, ValidBefore, Nonce string
}

func (f *Facilitator) serve(w http.ResponseWriter, r *http.Request) {
	endpoint := r.URL.Path[1:]
	f.mu.Lock()
	f.calls[endpoint]++
	answer, release := f.answer, f.release
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if answer == Slow {
		select {
		case <-r.Context().Done():
			return
		case <-release:
		}
		answer = Valid
	}
	if answer == Broken {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(500)
		fmt.Fprint(w, "<html>oops</html>")
		return
	}
	switch {
	case endpoint == "supported" && r.Method == http.MethodGet:
		fmt.Fprint(w, `{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:84532"}],"extensions":[],"signers":{"eip155:*":["0xFAC111"]}}`)
		return
	case (endpoint == "verify" || endpoint == "settle") && r.Method == http.MethodPost:
	default:
		http.NotFound(w, r)
		return
	}
	var body struct {
		PaymentPayload struct {
			X402Version int          `json:"x402Version"`
			Accepted    requirements `json:"accepted"`
			Payload     struct {
				Signature     string        `json:"signature"`
				Authorization authorization `json:"authorization"`
			} `json:"payload"`
		} `json:"paymentPayload"`
		PaymentRequirements requirements `json:"paymentRequirements"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"isValid":false,"invalidReason":"invalid_payload"}`)
		return
	}
	p, req := body.PaymentPayload, body.PaymentRequirements
	a := p.Payload.Authorization
	reason := ""
	value, _ := new(big.Int).SetString(a.Value, 10)
	need, _ := new(big.Int).SetString(req.Amount, 10)
	switch {
	case answer == Invalid || Sign(a) != p.Payload.Signature:
		reason = "invalid_exact_evm_payload_signature"
	case p.X402Version != 2:
		reason = "invalid_x402_version"
	case req.Scheme != "exact" || p.Accepted.Scheme != "exact":
		reason = "unsupported_scheme"
	case req.Network != p.Accepted.Network:
		reason = "invalid_network"
	case a.To != req.PayTo:
		reason = "invalid_exact_evm_payload_recipient_mismatch"
	case value == nil || need == nil || value.Cmp(need) < 0:
		reason = "invalid_exact_evm_payload_authorization_value"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if reason == "" && f.spent[a.Nonce] {
		reason = "invalid_transaction_state"
	}
	if endpoint == "verify" {
		if reason != "" {
			fmt.Fprintf(w, `{"isValid":false,"invalidReason":%q,"payer":%q}`, reason, a.From)
			return
		}
		fmt.Fprintf(w, `{"isValid":true,"payer":%q}`, a.From)
		return
	}
	if reason == "" && answer == SettleFails {
		reason = "insufficient_funds"
	}
	if reason != "" {
		fmt.Fprintf(w, `{"success":false,"errorReason":%q,"payer":%q,"transaction":"","network":%q}`, reason, a.From, req.Network)
		return
	}
	f.spent[a.Nonce] = true
	f.tx++
	fmt.Fprintf(w, `{"success":true,"payer":%q,"transaction":"0x%064x","network":%q}`, a.From, f.tx, req.Network)
}

// Sign is the signature of an authorization under Key.
func Sign(a authorization) string {
	m := hmac.New(sha256.New, Key)
	fmt.Fprintf(m, "%s|%s|%s|%s|%s|%s", a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce)
	return "0x" + hex.EncodeToString(m.Sum(nil))
}

// Client is a paying crawler: Do sends a request and, answered 402, pays the first way the
// PAYMENT-REQUIRED header accepts and sends it again.
type Client struct {
	HTTP  *http.Client
	From  string
	Nonce func() string // the next payment's nonce
	Now   func() time.Time
	// Edit, if set, changes the payment before it is signed and sent (tests of refusals).
	Edit func(payment map[string]any)
}

// Pay builds the PAYMENT-SIGNATURE value paying required, the base64 of a PAYMENT-REQUIRED
// header: the first of its accepts, for its resource.
func (c *Client) Pay(required string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(required)
	if err != nil {
		return "", err
	}
	var pr map[string]any
	if err := json.Unmarshal(raw, &pr); err != nil {
		return "", err
	}
	if v, _ := pr["x402Version"].(float64); v != 2 {
		return "", fmt.Errorf("x402Version %v", pr["x402Version"])
	}
	accepts, _ := pr["accepts"].([]any)
	if len(accepts) == 0 {
		return "", fmt.Errorf("no accepts")
	}
	acc, _ := accepts[0].(map[string]any)
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	timeout, _ := acc["maxTimeoutSeconds"].(float64)
	a := authorization{From: c.From, To: fmt.Sprint(acc["payTo"]), Value: fmt.Sprint(acc["amount"]),
		ValidAfter: fmt.Sprint(now.Unix() - 600), ValidBefore: fmt.Sprint(now.Unix() + int64(timeout)), Nonce: c.Nonce()}
	payment := map[string]any{"x402Version": 2, "resource": pr["resource"], "accepted": acc}
	if c.Edit != nil {
		c.Edit(payment)
		if v, ok := payment["value"].(string); ok { // the authorization's value, edited
			a.Value = v
			delete(payment, "value")
		}
	}
	payment["payload"] = map[string]any{"signature": Sign(a), "authorization": map[string]any{
		"from": a.From, "to": a.To, "value": a.Value, "validAfter": a.ValidAfter, "validBefore": a.ValidBefore, "nonce": a.Nonce}}
	b, err := json.Marshal(payment)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// Do sends r; answered 402 with PAYMENT-REQUIRED, it pays and sends r again (a GET without
// a body). It returns the last response and the first one's status.
func (c *Client) Do(ctx context.Context, r *http.Request) (*http.Response, int, error) {
	resp, err := c.HTTP.Do(r.WithContext(ctx))
	if err != nil {
		return nil, 0, err
	}
	first := resp.StatusCode
	required := resp.Header.Get("Payment-Required")
	if first != http.StatusPaymentRequired || required == "" {
		return resp, first, nil
	}
	resp.Body.Close()
	sig, err := c.Pay(required)
	if err != nil {
		return nil, first, err
	}
	again := r.Clone(ctx)
	again.Header.Set("Payment-Signature", sig)
	resp, err = c.HTTP.Do(again)
	return resp, first, err
}

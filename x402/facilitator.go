package x402

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
)

// Defaults and bounds of a Facilitator.
const (
	// DefaultTimeout bounds one facilitator call when FacilitatorOptions.Timeout is 0.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxInFlight is the number of calls in flight when
	// FacilitatorOptions.MaxInFlight is 0.
	DefaultMaxInFlight = 32
	// MaxResponseBytes bounds a facilitator's answer read: the messages are a few hundred
	// bytes.
	MaxResponseBytes = 64 << 10
)

// Endpoint names a facilitator endpoint, as metrics label it.
type Endpoint uint8

// The facilitator's endpoints (section 7).
const (
	EndpointVerify Endpoint = iota
	EndpointSettle
	EndpointSupported
	NumEndpoints = iota
)

var endpointNames = [NumEndpoints]string{"verify", "settle", "supported"}

// String is the endpoint's path without its slash: "verify", "settle", "supported".
func (e Endpoint) String() string { return endpointNames[e] }

// CallResult is how a facilitator call ended, as metrics label it.
type CallResult uint8

// The results of a facilitator call.
const (
	// CallOK: the facilitator answered with the message asked for (valid or not).
	CallOK CallResult = iota
	// CallBusy: MaxInFlight calls were in flight; no call was made.
	CallBusy
	// CallTimeout: no answer within the timeout.
	CallTimeout
	// CallFailed: no connection, a status other than 200 without the message, a redirect,
	// or a body that is not the message.
	CallFailed
	NumCallResults = iota
)

var callResultNames = [NumCallResults]string{"ok", "busy", "timeout", "error"}

// String is the result's label value: "ok", "busy", "timeout", "error".
func (c CallResult) String() string { return callResultNames[c] }

// CallError is a facilitator call that did not get the message asked for.
type CallError struct {
	Endpoint Endpoint
	Result   CallResult // never CallOK
	Err      error
}

func (e *CallError) Error() string {
	return "x402 facilitator " + e.Endpoint.String() + ": " + e.Err.Error()
}

func (e *CallError) Unwrap() error { return e.Err }

// FacilitatorOptions bound a Facilitator's calls.
type FacilitatorOptions struct {
	// Timeout bounds each call, connection to last byte; 0 is DefaultTimeout.
	Timeout time.Duration
	// MaxInFlight bounds the calls in flight at once; a call over it fails at once with
	// CallBusy. 0 is DefaultMaxInFlight.
	MaxInFlight int
	// Transport, if set, makes the calls (tests); nil is a transport of its own that
	// never uses a proxy from the environment.
	Transport http.RoundTripper
	// Observe, if set, is told of every call's endpoint, result and duration (metrics).
	Observe func(Endpoint, CallResult, time.Duration)
}

// Facilitator is a client of one facilitator's API (section 7): POST /verify, POST /settle
// and GET /supported under its base URL, JSON both ways. The URLs are fixed when it is made:
// nothing a request carries changes where a call goes; redirects are not followed. Calls are
// bounded in time (Timeout), in number (MaxInFlight) and in the bytes read of an answer
// (MaxResponseBytes). It is safe for concurrent use.
type Facilitator struct {
	urls    [NumEndpoints]string
	client  *http.Client
	timeout time.Duration
	slots   chan struct{}
	observe func(Endpoint, CallResult, time.Duration)
}

// CheckFacilitatorURL checks a facilitator's base URL: an absolute https URL, or http on a
// loopback host (127.0.0.0/8, ::1, localhost: tests and a facilitator beside the server);
// no user info, query or fragment. "" is the reason it is fine.
func CheckFacilitatorURL(s string) string {
	u, ok := httplex.AbsoluteURL(s)
	switch {
	case !ok:
		return httplex.NotAbsoluteURL
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.Contains(s, "#"):
		return "a facilitator URL has no user info, query or fragment: /verify, /settle and /supported are added to its path"
	case strings.EqualFold(u.Scheme, "http") && !loopback(u.Hostname()):
		return "a facilitator is reached over https (http only on a loopback address): payments and their answers must not be read or changed on the way"
	}
	return ""
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewFacilitator returns a client of the facilitator at base (CheckFacilitatorURL).
func NewFacilitator(base string, opts FacilitatorOptions) (*Facilitator, error) {
	if msg := CheckFacilitatorURL(base); msg != "" {
		return nil, fmt.Errorf("facilitator %q: %s", base, msg)
	}
	u, _ := url.Parse(base)
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	f := &Facilitator{timeout: opts.Timeout, observe: opts.Observe}
	for e := range NumEndpoints {
		f.urls[e] = u.String() + "/" + Endpoint(e).String()
	}
	if f.timeout <= 0 {
		f.timeout = DefaultTimeout
	}
	n := opts.MaxInFlight
	if n <= 0 {
		n = DefaultMaxInFlight
	}
	f.slots = make(chan struct{}, n)
	rt := opts.Transport
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil
		t.MaxIdleConnsPerHost = n
		rt = t
	}
	f.client = &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return f, nil
}

// URL is the URL the facilitator is called at for e.
func (f *Facilitator) URL(e Endpoint) string { return f.urls[e] }

// Verify asks the facilitator whether payload (a PaymentPayload's JSON, as the client sent
// it) pays what req requires, without settling it.
func (f *Facilitator) Verify(ctx context.Context, payload []byte, req PaymentRequirements) (VerifyResponse, error) {
	var v VerifyResponse
	err := f.call(ctx, EndpointVerify, FacilitatorRequest{payload, req}, &v, func(raw map[string]json.RawMessage) bool {
		_, ok := raw["isValid"]
		return ok
	})
	return v, err
}

// Settle asks the facilitator to settle payload against req. A SettlementResponse with
// Success false is an answer, not an error.
func (f *Facilitator) Settle(ctx context.Context, payload []byte, req PaymentRequirements) (SettlementResponse, error) {
	var s SettlementResponse
	err := f.call(ctx, EndpointSettle, FacilitatorRequest{payload, req}, &s, func(raw map[string]json.RawMessage) bool {
		_, ok := raw["success"]
		return ok
	})
	return s, err
}

// Supported asks the facilitator which schemes and networks it supports.
func (f *Facilitator) Supported(ctx context.Context) (SupportedResponse, error) {
	var s SupportedResponse
	err := f.call(ctx, EndpointSupported, nil, &s, func(raw map[string]json.RawMessage) bool {
		_, ok := raw["kinds"]
		return ok
	})
	return s, err
}

// call makes one bounded call to e (a POST of body's JSON, a GET for nil) and reads the
// answer into out. The answer counts when it is JSON holding the message's required field
// (has): with status 200, or 400 or 402 (a facilitator may send an invalid verdict with a
// client-error status; the specification gives none).
func (f *Facilitator) call(ctx context.Context, e Endpoint, body any, out any, has func(map[string]json.RawMessage) bool) (err error) {
	start := time.Now()
	result := CallOK
	defer func() {
		if f.observe != nil {
			f.observe(e, result, time.Since(start))
		}
	}()
	fail := func(r CallResult, err error) error {
		result = r
		return &CallError{Endpoint: e, Result: r, Err: err}
	}
	select {
	case f.slots <- struct{}{}:
		defer func() { <-f.slots }()
	default:
		return fail(CallBusy, fmt.Errorf("%d calls in flight already", cap(f.slots)))
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fail(CallFailed, err)
		}
		method, rd = http.MethodPost, bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, f.urls[e], rd)
	if err != nil {
		return fail(CallFailed, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return fail(CallTimeout, fmt.Errorf("no answer within %s", f.timeout))
		}
		return fail(CallFailed, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return fail(CallTimeout, fmt.Errorf("no answer within %s", f.timeout))
		}
		return fail(CallFailed, err)
	}
	if len(data) > MaxResponseBytes {
		return fail(CallFailed, fmt.Errorf("answer over %d bytes", MaxResponseBytes))
	}
	switch resp.StatusCode {
	case http.StatusOK, http.StatusBadRequest, http.StatusPaymentRequired:
	default:
		return fail(CallFailed, fmt.Errorf("status %d", resp.StatusCode))
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil || !has(raw) || json.Unmarshal(data, out) != nil {
		return fail(CallFailed, fmt.Errorf("status %d without the %s answer's JSON", resp.StatusCode, e))
	}
	return nil
}

package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/rsl"
	"github.com/sitepolicy/caddy-robots/tdmrep"
	"github.com/sitepolicy/caddy-robots/x402"
)

// The messages of the payment log lines (policy.Pay): PaidMessage at info level for every
// request served after its payment settled, SettleFailedMessage at warn level for a
// verified payment whose settlement failed (the content was not sent), each with "crawler",
// "amount" (atomic units), "asset", "network", "transaction" (or "reason"), "payer",
// "method", "host" and "uri".
const (
	PaidMessage         = "crawler paid"
	SettleFailedMessage = "payment settlement failed"
)

// PaymentStore remembers the payments a Core has taken, so that one payment is never served
// twice: a payment is claimed for one request from verification to settlement, and kept
// once settled. A payment's id is the SHA-256 of its scheme payload's canonical JSON
// (PaymentID). NewPaymentStore is one process's; a fleet of servers shares one (the fleet
// store, docs/fleet.md) so that no two servers serve one payment. The facilitator refuses a
// spent authorization as well: the store is what stops a payment in flight being used twice
// at once, and what saves the facilitator's calls for one used already.
type PaymentStore interface {
	// Begin claims id for one request: false when it is in flight or settled already, or
	// when the store is full of payments in flight.
	Begin(id string) bool
	// End ends the claim: settled, id stays used; otherwise it is released, and the payment
	// may be presented again (it was not spent).
	End(id string, settled bool)
}

// Pay is the part of Options for payments: nil is a NewPaymentStore of the config's
// remember_payments, and the facilitator's own transport.
type Pay struct {
	// Store, if set, remembers payments (a fleet's shared store).
	Store PaymentStore
	// Transport, if set, makes the facilitator calls (tests, or a proxy the site needs).
	Transport http.RoundTripper
}

// payer is a Core's pricing (policy.Pay): its prices, the facilitator, the payments.
type payer struct {
	prices   []price
	free     []string // paths never priced: tdmrep.json, the license URLs that are paths
	fac      *x402.Facilitator
	store    PaymentStore
	counters *metrics.Counters
}

// price is one policy.Price, ready: who pays, where, and the requirements sent.
type price struct {
	names    map[string]bool // crawler names as the catalogues spell them (identity.Identity.Name)
	patterns []pathPattern   // empty: every path
	atomic   uint64
	req      x402.PaymentRequirements
}

// newPayer checks the pay config of site (errors at "pay...", and for license documents
// disagreeing with it at "license_documents[i]...") and builds its payer.
func newPayer(site policy.Config, opts Options) (*payer, error) {
	cfg, docs := site.RobotsTxt.Pay, site.RobotsTxt.LicenseDocuments
	if err := cfg.Validate(); err != nil {
		return nil, configerr.Prefix("pay", err)
	}
	var errs []error
	if opts.Identify == nil {
		errs = append(errs, configerr.New("pay", "", "charging needs crawler verification (the Caddy crawlers app, nethttp's Options.Verifier or Signatures): only a verified crawler is ever asked to pay"))
	}
	maxTimeout := time.Duration(cfg.MaxTimeout)
	if maxTimeout == 0 {
		maxTimeout = policy.DefaultPayMaxTimeout
	}
	p := &payer{counters: opts.Counters, free: freePaths(site)}
	for i := range cfg.Prices {
		pr, err := newPrice(&cfg.Prices[i], cfg, docs, maxTimeout)
		if err != nil {
			errs = append(errs, configerr.Prefix(configerr.Index("pay.prices", i), err))
			continue
		}
		p.prices = append(p.prices, pr)
	}
	if len(errs) == 0 {
		errs = append(errs, licenseDisagreements(cfg, p.prices, docs)...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	fo := x402.FacilitatorOptions{Timeout: time.Duration(cfg.FacilitatorTimeout), MaxInFlight: cfg.MaxInFlight}
	if opts.Pay != nil {
		fo.Transport = opts.Pay.Transport
		p.store = opts.Pay.Store
	}
	if c := opts.Counters; c != nil {
		fo.Observe = func(e x402.Endpoint, r x402.CallResult, _ time.Duration) { c.Facilitator(e, r) }
	}
	fac, err := x402.NewFacilitator(cfg.Facilitator, fo)
	if err != nil {
		return nil, configerr.New("pay.facilitator", cfg.Facilitator, err.Error())
	}
	p.fac = fac
	if p.store == nil {
		n := cfg.RememberPayments
		if n == 0 {
			n = policy.DefaultPaymentIDs
		}
		p.store = NewPaymentStore(n)
	}
	return p, nil
}

// freePaths are the paths of site never priced beside robots.txt and the license documents
// served (which the Core answers first): /.well-known/tdmrep.json, and every license URL of
// robots.txt and the routes that is a path (a license the site's handler serves).
func freePaths(site policy.Config) []string {
	free := []string{tdmrep.WellKnownPath}
	add := func(urls []string) {
		for _, u := range urls {
			if strings.HasPrefix(u, "/") && !slices.Contains(free, u) {
				free = append(free, u)
			}
		}
	}
	add(site.RobotsTxt.Licenses)
	for _, r := range site.RobotsTag {
		add(r.Licenses)
	}
	return free
}

// newPrice builds one price; errors are at its fields.
func newPrice(pc *policy.Price, cfg *policy.Pay, docs []rsl.Document, maxTimeout time.Duration) (price, error) {
	amount, _ := pc.Atomic(*cfg.Decimals) // Validate checked it
	n, err := strconv.ParseUint(amount, 10, 64)
	if err != nil {
		return price{}, configerr.New("amount", pc.Amount, fmt.Sprintf("is %s atomic units, over the %d this server counts (metrics add amounts in 64 bits)", amount, uint64(math.MaxUint64)))
	}
	pr := price{names: map[string]bool{}, atomic: n, req: x402.PaymentRequirements{
		Scheme: x402.SchemeExact, Network: cfg.Network, Amount: amount, Asset: cfg.Asset, PayTo: cfg.PayTo,
		MaxTimeoutSeconds: int(maxTimeout / time.Second), Extra: cfg.Extra,
	}}
	var presets []string
	for _, c := range pc.Crawlers {
		if cat, ok := strings.CutPrefix(c, "preset:"); ok {
			presets = append(presets, cat)
			continue
		}
		pr.addName(c)
	}
	for _, c := range crawlers.PresetCrawlers(presets, pc.Except) {
		pr.addName(c.Name)
	}
	var errs []error
	for j, s := range pc.Paths {
		pp, err := compilePathPattern(s)
		if err != nil {
			errs = append(errs, configerr.New(configerr.Index("paths", j), s, err.Error()))
			continue
		}
		pr.patterns = append(pr.patterns, pp)
	}
	if pc.License != "" {
		d := docByPath(docs, pc.License)
		if d == nil {
			errs = append(errs, configerr.New("license", pc.License, "no license document of robots_txt.license_documents is served at this path"))
		} else if len(pc.Paths) == 0 {
			for _, c := range d.Content {
				if c.Payment == nil || c.Payment.Type != "crawl" || !strings.HasPrefix(c.URL, "/") {
					continue
				}
				pp, err := compilePathPattern(robotsPatternGlob(c.URL))
				if err == nil {
					pr.patterns = append(pr.patterns, pp)
				}
			}
			if len(pr.patterns) == 0 {
				errs = append(errs, configerr.New("license", pc.License, `the license document has no content by path with payment type "crawl" to take the priced paths from: give paths, or a content with <payment type="crawl">`))
			}
		}
	}
	return pr, errors.Join(errs...)
}

// addName adds every spelling the catalogues have of name (compared without case), so that
// a request's identity, spelt as its catalogue spells it, is found without folding case.
func (pr *price) addName(name string) {
	pr.names[name] = true
	for _, n := range botNameSpellings()[strings.ToLower(name)] {
		pr.names[n] = true
	}
	if c, ok := crawlers.Lookup(name); ok {
		pr.names[c.Name] = true
	}
}

// botNameSpellings maps each name of the bot catalogue, lower case, to its spellings there:
// made once, since crawlers.BotNames builds the whole list at each call, and a preset names
// dozens of crawlers.
var botNameSpellings = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for _, bn := range crawlers.BotNames() {
		k := strings.ToLower(bn.Name)
		if !slices.Contains(m[k], bn.Name) {
			m[k] = append(m[k], bn.Name)
		}
	}
	return m
})

func docByPath(docs []rsl.Document, path string) *rsl.Document {
	for i := range docs {
		if docs[i].Path == path {
			return &docs[i]
		}
	}
	return nil
}

// robotsPatternGlob turns an RSL content path (a robots.txt path pattern: a prefix, "*" any
// characters, a final "$" the end) into the path pattern a route has: "/a/" is "/a/*",
// "/a/*.pdf$" is "/a/*.pdf". Route patterns compare without case where robots.txt's do not,
// so the price covers at least what the license names.
func robotsPatternGlob(p string) string {
	if s, ok := strings.CutSuffix(p, "$"); ok {
		return s
	}
	if strings.HasSuffix(p, "*") {
		return p
	}
	return p + "*"
}

// literalPrefix is the part of a robots.txt path pattern before its first "*" or "$": a
// path every path the pattern matches starts with.
func literalPrefix(p string) string {
	if i := strings.IndexAny(p, "*$"); i >= 0 {
		return p[:i]
	}
	return p
}

// licenseDisagreements finds where a price and an RSL license document's payment for the
// same content disagree: a priced path under content whose license's <payment> is of another
// type than "crawl" (it says crawling is free, or paid otherwise), and content whose license
// says crawling is paid ("crawl") that no price covers. Content is compared by the path every
// URL it names starts with (literalPrefix).
func licenseDisagreements(cfg *policy.Pay, prices []price, docs []rsl.Document) []error {
	var errs []error
	for i, d := range docs {
		for j, c := range d.Content {
			if c.Payment == nil || !strings.HasPrefix(c.URL, "/") {
				continue
			}
			at := fmt.Sprintf("license_documents[%d].content[%d].payment.type", i, j)
			r := &http.Request{URL: &url.URL{Path: literalPrefix(c.URL)}}
			reqPath := requestPath(r)
			covering := -1
			for k := range prices {
				if prices[k].covers(r, reqPath) {
					covering = k
					break
				}
			}
			switch {
			case c.Payment.Type == "crawl" && covering < 0:
				errs = append(errs, configerr.New(at, c.Payment.Type, fmt.Sprintf("the license says crawling %s is paid, and no price of robots_txt.pay covers it: add a price with \"license\": %q", c.URL, d.Path)))
			case c.Payment.Type != "crawl" && covering >= 0:
				typ := c.Payment.Type
				if typ == "" {
					typ = "free"
				}
				errs = append(errs, configerr.New(configerr.Index("pay.prices", covering), cfg.Prices[covering].Amount, fmt.Sprintf("prices %s, whose license (%s) says its payment is %q, not \"crawl\": a price and the license must agree", c.URL, d.Path, typ)))
			}
		}
	}
	return errs
}

// covers reports whether the price's paths include r's.
func (pr *price) covers(r *http.Request, reqPath string) bool {
	if len(pr.patterns) == 0 {
		return true
	}
	for i := range pr.patterns {
		if pr.patterns[i].Match(r, reqPath) {
			return true
		}
	}
	return false
}

// price is the price r pays, whose identity is id, or nil: only a verified crawler is
// charged. A request no price names costs a comparison (unverified) or a map lookup.
func (p *payer) price(r *http.Request, id identity.Identity) *price {
	if id.Status != identity.Verified || id.Name == "" || slices.Contains(p.free, r.URL.Path) {
		return nil
	}
	var reqPath string
	for i := range p.prices {
		pr := &p.prices[i]
		if !pr.names[id.Name] {
			continue
		}
		if len(pr.patterns) > 0 && reqPath == "" {
			reqPath = requestPath(r)
		}
		if pr.covers(r, reqPath) {
			return pr
		}
	}
	return nil
}

// Price is what r (whose identity is id) would be asked to pay, as ServeHTTP decides it: ok
// is false when nothing is priced for it (no pay config, a crawler not verified or not
// priced, a path not priced, robots.txt, a license document, tdmrep.json). The Resource's URL
// is r's as ServeHTTP states it.
func (c *Core) Price(r *http.Request, id identity.Identity) (x402.PaymentRequirements, x402.ResourceInfo, bool) {
	if c.pay == nil || c.IsRobotsTxt(r) {
		return x402.PaymentRequirements{}, x402.ResourceInfo{}, false
	}
	pr := c.pay.price(r, id)
	if pr == nil {
		return x402.PaymentRequirements{}, x402.ResourceInfo{}, false
	}
	return pr.req, resourceOf(r), true
}

// resourceOf is the resource a payment for r names: r's URL, scheme and host as the
// request reached the server, path and query as sent.
func resourceOf(r *http.Request) x402.ResourceInfo {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return x402.ResourceInfo{URL: scheme + "://" + r.Host + r.URL.RequestURI()}
}

// PaymentID is the id a PaymentStore knows a payment by: the hex SHA-256 of the canonical
// JSON (keys sorted, no space) of its scheme payload, so that one authorization re-encoded
// is still one payment.
func PaymentID(payload json.RawMessage) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber() // numbers as written: two amounts never round to one id
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// charge runs the x402 exchange for r, priced pr (docs/payment.md): without a payment, 402
// with the requirements; with one, checked here, verified by the facilitator, then next runs
// and its response is settled before its first byte leaves (payWriter).
func (c *Core) charge(w http.ResponseWriter, r *http.Request, next Handler, pr *price, id identity.Identity) error {
	p := c.pay
	crawler := metrics.CrawlerIdentified(id.Bot, id.Name)
	res := resourceOf(r)
	values := r.Header[x402.HeaderPaymentSignature]
	if len(values) == 0 {
		return c.paymentRequired(w, r, pr, res, crawler, metrics.PayRequired, "PAYMENT-SIGNATURE header is required", nil)
	}
	if len(values) > 1 {
		return c.paymentRequired(w, r, pr, res, crawler, metrics.PayInvalid, "more than one PAYMENT-SIGNATURE header", nil)
	}
	payload, raw, err := x402.DecodePaymentPayload(values[0])
	if err != nil {
		return c.paymentRequired(w, r, pr, res, crawler, metrics.PayInvalid, err.Error(), nil)
	}
	if msg := mismatch(&payload, &pr.req, res); msg != "" {
		return c.paymentRequired(w, r, pr, res, crawler, metrics.PayInvalid, msg, nil)
	}
	pid, err := PaymentID(payload.Payload)
	if err != nil {
		return c.paymentRequired(w, r, pr, res, crawler, metrics.PayInvalid, "PAYMENT-SIGNATURE's payload is not JSON", nil)
	}
	if !p.store.Begin(pid) {
		return c.paymentRequired(w, r, pr, res, crawler, metrics.PayInvalid, "this payment has been used already (or is in use): sign a new one", nil)
	}
	v, err := p.fac.Verify(r.Context(), raw, pr.req)
	if err != nil {
		p.store.End(pid, false)
		c.log.WarnContext(r.Context(), "payment not verified: "+err.Error(), "method", r.Method, "host", r.Host, "uri", r.RequestURI)
		return c.paymentRequired(w, r, pr, res, crawler, metrics.PayUnavailable, "the payment could not be verified now: try again", nil)
	}
	if !v.IsValid {
		p.store.End(pid, false)
		reason := v.InvalidReason
		if reason == "" {
			reason = "invalid_payload"
		}
		return c.paymentRequired(w, r, pr, res, crawler, metrics.PayRefused, "payment invalid: "+reason, nil)
	}
	pw := &payWriter{ResponseWriter: w, c: c, r: r, pr: pr, res: res, crawler: crawler, pid: pid, raw: raw}
	err = c.serveNext(pw, r, next)
	if !pw.decided {
		pw.decide(http.StatusOK)
	}
	if errors.Is(err, errNotSettled) {
		err = nil
	}
	return err
}

// mismatch says why a payment does not pay for res at pr's price, or "": it must name res,
// accept pr's scheme, network, asset and recipient, and an amount no smaller than pr's.
func mismatch(p *x402.PaymentPayload, req *x402.PaymentRequirements, res x402.ResourceInfo) string {
	a := &p.Accepted
	switch {
	case p.Resource == nil:
		return "PAYMENT-SIGNATURE names no resource: a payment is for one resource"
	case p.Resource.URL != res.URL:
		return "the payment is for another resource (" + strconv.Quote(p.Resource.URL) + ")"
	case a.Scheme != req.Scheme:
		return "the payment's scheme is not " + strconv.Quote(req.Scheme)
	case a.Network != req.Network:
		return "the payment's network is not " + req.Network
	case !strings.EqualFold(a.Asset, req.Asset):
		return "the payment's asset is not " + req.Asset
	case !strings.EqualFold(a.PayTo, req.PayTo):
		return "the payment's payTo is not " + req.PayTo
	}
	if cmp, ok := x402.CompareAmounts(a.Amount, req.Amount); !ok {
		return "the payment's amount is not an integer of atomic units"
	} else if cmp < 0 {
		return "the payment's amount " + a.Amount + " is smaller than the price " + req.Amount
	}
	return ""
}

// paymentRequired answers r with 402 and the requirements (transports-v2/http.md): the
// PAYMENT-REQUIRED header, the same PaymentRequired as the JSON body, Cache-Control: no-store,
// the routes' tags and license Link; with settled, the failed settlement's PAYMENT-RESPONSE.
// It is written here, not by Options.Error: its header and body are the protocol's.
func (c *Core) paymentRequired(w http.ResponseWriter, r *http.Request, pr *price, res x402.ResourceInfo, crawler metrics.Crawler, o metrics.PayOutcome, reason string, settled *x402.SettlementResponse) error {
	if c.pay.counters != nil {
		c.pay.counters.Payment(crawler, o, 0)
	}
	if c.log.Enabled(r.Context(), slog.LevelDebug) {
		c.log.DebugContext(r.Context(), "payment required: "+reason, "crawler", crawler.Name(), "amount", pr.req.Amount,
			"method", r.Method, "host", r.Host, "uri", r.RequestURI)
	}
	answer := HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		writePaymentRequired(w, pr, res, reason, settled)
		return nil
	})
	return c.serveNext(w, r, answer)
}

// writePaymentRequired writes the 402 answer.
func writePaymentRequired(w http.ResponseWriter, pr *price, res x402.ResourceInfo, reason string, settled *x402.SettlementResponse) {
	body, _ := json.Marshal(x402.PaymentRequired{X402Version: x402.Version, Error: reason, Resource: res, Accepts: []x402.PaymentRequirements{pr.req}})
	h := w.Header()
	for _, k := range representationFields {
		delete(h, k)
	}
	h.Set(x402.HeaderPaymentRequired, base64Std(body))
	if settled != nil {
		s, _ := x402.EncodeHeader(settled)
		h.Set(x402.HeaderPaymentResponse, s)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(http.StatusPaymentRequired)
	w.Write(append(body, '\n'))
}

// representationFields are the fields of a handler's response that describe its content,
// removed when a 402 replaces it.
var representationFields = []string{"Content-Type", "Content-Length", "Content-Encoding", "Content-Range", "Content-Language",
	"Content-Disposition", "Etag", "Last-Modified", "Accept-Ranges", "Expires", "Age"}

func base64Std(b []byte) string {
	s, _ := x402.EncodeHeader(json.RawMessage(b))
	return s
}

// errNotSettled is what a handler's writes return after its response was replaced by a 402
// because the payment did not settle: the handler should stop.
var errNotSettled = errors.New("serve: the payment did not settle: the response was not sent")

// payWriter holds a paid request's response until its status is known: a success (2xx)
// is settled before anything is sent, and goes out with PAYMENT-RESPONSE; a failed
// settlement replaces it with a 402; any other status is sent and nothing is charged.
type payWriter struct {
	http.ResponseWriter
	c       *Core
	r       *http.Request
	pr      *price
	res     x402.ResourceInfo
	crawler metrics.Crawler
	pid     string
	raw     []byte
	decided bool
	failed  bool // settlement failed: the handler's writes are dropped
}

func (pw *payWriter) Unwrap() http.ResponseWriter { return pw.ResponseWriter }

func (pw *payWriter) WriteHeader(code int) {
	if pw.decided {
		if !pw.failed {
			pw.ResponseWriter.WriteHeader(code)
		}
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		pw.ResponseWriter.WriteHeader(code) // informational: the answer is yet to come
		return
	}
	pw.decide(code)
}

func (pw *payWriter) Write(b []byte) (int, error) {
	if !pw.decided {
		pw.decide(http.StatusOK)
	}
	if pw.failed {
		return 0, errNotSettled
	}
	return pw.ResponseWriter.Write(b)
}

// Flush sends what is written, deciding the status first.
func (pw *payWriter) Flush() {
	if !pw.decided {
		pw.decide(http.StatusOK)
	}
	if !pw.failed {
		http.NewResponseController(pw.ResponseWriter).Flush()
	}
}

// decide settles a successful response before its header is sent, or lets another status
// through uncharged.
func (pw *payWriter) decide(code int) {
	pw.decided = true
	p, r := pw.c.pay, pw.r
	if code < 200 || code > 299 {
		p.store.End(pw.pid, false)
		if p.counters != nil {
			p.counters.Payment(pw.crawler, metrics.PayNotCharged, 0)
		}
		pw.ResponseWriter.WriteHeader(code)
		return
	}
	// In the request's context: a client gone before its response is not charged for it.
	s, err := p.fac.Settle(r.Context(), pw.raw, pw.pr.req)
	if err != nil || !s.Success {
		p.store.End(pw.pid, false)
		pw.failed = true
		reason := s.ErrorReason
		if err != nil {
			reason = "unexpected_settle_error"
			s = x402.SettlementResponse{Network: pw.pr.req.Network}
		} else if reason == "" {
			reason = "unexpected_settle_error"
		}
		s.Success, s.ErrorReason = false, reason
		if s.Network == "" {
			s.Network = pw.pr.req.Network
		}
		pw.c.log.WarnContext(r.Context(), SettleFailedMessage, "crawler", pw.crawler.Name(), "amount", pw.pr.req.Amount, "asset", pw.pr.req.Asset,
			"network", pw.pr.req.Network, "reason", reason, "error", errString(err), "payer", s.Payer, "method", r.Method, "host", r.Host, "uri", r.RequestURI)
		if p.counters != nil {
			p.counters.Payment(pw.crawler, metrics.PaySettleFailed, 0)
		}
		writePaymentRequired(pw.ResponseWriter, pw.pr, pw.res, "settlement failed: "+reason, &s)
		return
	}
	p.store.End(pw.pid, true)
	if p.counters != nil {
		p.counters.Payment(pw.crawler, metrics.Paid, pw.pr.atomic)
	}
	if pw.c.log.Enabled(r.Context(), slog.LevelInfo) {
		pw.c.log.InfoContext(r.Context(), PaidMessage, "crawler", pw.crawler.Name(), "amount", pw.pr.req.Amount, "asset", pw.pr.req.Asset,
			"network", pw.pr.req.Network, "transaction", s.Transaction, "payer", s.Payer, "method", r.Method, "host", r.Host, "uri", r.RequestURI)
	}
	h, _ := x402.EncodeHeader(s)
	pw.Header().Set(x402.HeaderPaymentResponse, h)
	// A paid response is the payer's: no shared cache may give it to another.
	pw.Header().Set("Cache-Control", "private, no-store")
	pw.ResponseWriter.WriteHeader(code)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

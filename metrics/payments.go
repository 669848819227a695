package metrics

import (
	"sync/atomic"

	"github.com/sitepolicy/caddy-robots/x402"
)

// PayOutcome is what became of a priced request (policy.Pay): a verified crawler's request
// for a path with a price.
type PayOutcome uint8

const (
	// PayRequired: it carried no payment and was answered 402 with the price.
	PayRequired PayOutcome = iota
	// PayInvalid: its PAYMENT-SIGNATURE was malformed, oversized, for another resource, a
	// smaller amount or another way to pay, or a payment used already: answered 402.
	PayInvalid
	// PayRefused: the facilitator found the payment invalid: answered 402.
	PayRefused
	// PayUnavailable: the facilitator could not be asked (down, slow, too many calls in
	// flight): answered 402, never served free.
	PayUnavailable
	// PayNotCharged: the payment was verified but the site answered with no success (a
	// status of 300 or more): that answer was sent and the payment not settled.
	PayNotCharged
	// PaySettleFailed: the payment was verified and the site answered, but settlement failed:
	// answered 402 instead of the content.
	PaySettleFailed
	// Paid: settled and served; its amount is added to the crawler's revenue.
	Paid

	numPayOutcomes = iota
)

var payOutcomeNames = [numPayOutcomes]string{"payment_required", "invalid", "refused", "facilitator_unavailable", "not_charged", "settle_failed", "paid"}

// String is the outcome's label value.
func (o PayOutcome) String() string { return payOutcomeNames[o] }

// payCounters are the payment counters of a Counters, made with it.
type payCounters struct {
	outcomes    []atomic.Uint64 // [crawler][outcome]
	revenue     []atomic.Uint64 // [crawler], atomic units
	facilitator [int(x402.NumEndpoints) * int(x402.NumCallResults)]atomic.Uint64
}

func newPayCounters(n int) payCounters {
	return payCounters{outcomes: make([]atomic.Uint64, n*int(numPayOutcomes)), revenue: make([]atomic.Uint64, n)}
}

// Payment counts one priced request of crawler c with outcome o; a Paid one adds amount (in
// the asset's atomic units) to c's revenue. A site has one asset per config (policy.Pay);
// a process serving several assets adds them up in one counter per crawler.
func (m *Counters) Payment(c Crawler, o PayOutcome, amount uint64) {
	m.pay.outcomes[int(c)*int(numPayOutcomes)+int(o)].Add(1)
	if o == Paid {
		m.pay.revenue[c].Add(amount)
	}
}

// Facilitator counts one call to a facilitator's endpoint e that ended with r.
func (m *Counters) Facilitator(e x402.Endpoint, r x402.CallResult) {
	m.pay.facilitator[int(e)*int(x402.NumCallResults)+int(r)].Add(1)
}

// PaymentSeries are the labels and count of one series of priced requests.
type PaymentSeries struct {
	Crawler, Category, Outcome string
	Count                      uint64
}

// EachPayment calls f for every series of priced requests counted at least once, in a
// fixed order.
func (m *Counters) EachPayment(f func(PaymentSeries)) {
	s := catalogue()
	for i := range m.pay.outcomes {
		if n := m.pay.outcomes[i].Load(); n != 0 {
			c := i / int(numPayOutcomes)
			f(PaymentSeries{Crawler: s.names[c], Category: s.categories[c], Outcome: PayOutcome(i % int(numPayOutcomes)).String(), Count: n})
		}
	}
}

// EachRevenue calls f for every crawler that paid, with its category and the amounts it
// paid in atomic units, in a fixed order.
func (m *Counters) EachRevenue(f func(crawler, category string, atomic uint64)) {
	s := catalogue()
	for c := range m.pay.revenue {
		if n := m.pay.revenue[c].Load(); n != 0 {
			f(s.names[c], s.categories[c], n)
		}
	}
}

// EachFacilitatorCall calls f for every endpoint and result counted at least once.
func (m *Counters) EachFacilitatorCall(f func(endpoint, result string, count uint64)) {
	for i := range m.pay.facilitator {
		if n := m.pay.facilitator[i].Load(); n != 0 {
			f(x402.Endpoint(i/int(x402.NumCallResults)).String(), x402.CallResult(i%int(x402.NumCallResults)).String(), n)
		}
	}
}

// Package tdmrep is the TDM Reservation Protocol (TDMRep, W3C Community Group Final Report,
// https://www.w3.org/community/reports/tdmrep/CG-FINAL-tdmrep-20240510/): how a rightsholder
// reserves text and data mining rights (the opt-out of Article 4 of the EU DSM Directive,
// 2019/790) in a machine-readable way, and where a TDM Policy says how to acquire a license.
//
// A Declaration is a tdm-reservation value and an optional tdm-policy URL (report section
// #sec-properties; sections are cited by their anchors in the report). This package spells it
// in the three forms a web server sends: the tdm-reservation and tdm-policy response fields
// (#sec-tdm-header), <meta> elements in an HTML head (#sec-tdm-html-meta), and rules of the
// site-wide file /.well-known/tdmrep.json (#sec-tdm-file). Package serve sends them per route;
// docs/licensing.md ("TDMRep") says how the config maps to them.
package tdmrep

import (
	"bytes"
	"encoding/json"
	"html"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/sitepolicy/caddy-robots/internal/httplex"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// The names the report gives.
const (
	// WellKnownPath is where the site-wide file is served (report #sec-tdm-file).
	WellKnownPath = "/.well-known/tdmrep.json"
	// ReservationField and PolicyField are the response fields of report #sec-tdm-header, in the
	// canonical form of net/http's header map.
	ReservationField = "Tdm-Reservation"
	PolicyField      = "Tdm-Policy"
)

// Reservation is a tdm-reservation value. The order Unset < NotReserved < Reserved is the
// rule this module combines declarations by: a reservation from anyone wins.
type Reservation uint8

const (
	// Unset: no declaration, or a value the report calls a protocol error (#sec-tdm-reservation: "other
	// values are considered protocol errors [...] tdm-reservation is unset").
	Unset Reservation = iota
	// NotReserved is tdm-reservation 0: TDM rights are not reserved.
	NotReserved
	// Reserved is tdm-reservation 1: TDM rights are reserved (the Article 4 opt-out).
	Reserved
)

// Value is the reservation as the report writes it: "1", "0", or "" when unset.
func (r Reservation) Value() string {
	switch r {
	case Reserved:
		return "1"
	case NotReserved:
		return "0"
	}
	return ""
}

// ParseReservation reads a tdm-reservation value as a TDM agent does: "1" or "0", around
// optional whitespace (a field value's OWS, an attribute's spaces); anything else is a
// protocol error, which is Unset.
func ParseReservation(s string) Reservation {
	switch strings.Trim(s, " \t\n\r\f") {
	case "1":
		return Reserved
	case "0":
		return NotReserved
	}
	return Unset
}

// Declaration is one rightsholder's choice for a resource: a reservation and, optionally,
// the URL of a TDM Policy (report #sec-tdm-policy).
type Declaration struct {
	Reservation Reservation
	// Policy is an absolute http or https URL (CheckPolicy), or "" for none.
	Policy string
}

// IsEmpty reports whether d declares nothing.
func (d Declaration) IsEmpty() bool { return d.Reservation == Unset }

// Combine is the declaration of a resource that a and b both apply to: the greater
// reservation (a reservation from either wins), with the policy that goes with it, a's when
// both declare the same reservation with a policy (a comes first: route order).
func Combine(a, b Declaration) Declaration {
	switch {
	case b.Reservation > a.Reservation:
		return b
	case a.Reservation == b.Reservation && a.Policy == "":
		return Declaration{a.Reservation, b.Policy}
	}
	return a
}

// CheckPolicy says what is wrong with a tdm-policy URL, or "" if nothing. The report (#sec-tdm-policy)
// calls it "a URL pointing to a TDM Policy"; every example is absolute, and neither a response
// field nor tdmrep.json gives a base a relative reference could be resolved against, so an
// absolute http or https URL with a host is required. It must be printable ASCII without
// spaces (non-ASCII percent-encoded), without the characters URIs exclude (as a license URL,
// syntax.URIExcluded), so that it is one field value, one attribute value and
// one JSON string as written.
func CheckPolicy(s string) string {
	if s == "" {
		return "a tdm-policy URL must not be empty"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			if c < ' ' || c == 0x7f {
				return "a tdm-policy URL must not contain control characters, which would end the field line and could inject content"
			}
			if c == ' ' {
				return "a tdm-policy URL must not contain spaces: percent-encode them (%20)"
			}
			if r, _ := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError {
				return "a tdm-policy URL must be ASCII: percent-encode its other characters (" + url.PathEscape(string(r)) + ")"
			}
			return "a tdm-policy URL must be valid UTF-8 and ASCII: percent-encode its other bytes"
		}
	}
	if msg := syntax.URIExcluded("a tdm-policy URL", s); msg != "" {
		return msg
	}
	if _, ok := httplex.AbsoluteURL(s); !ok {
		return "a tdm-policy URL " + httplex.NotAbsoluteURL + " (report #sec-tdm-policy: nothing gives a relative reference a base), e.g. https://example.com/policies/policy.json"
	}
	return ""
}

// MetaElements returns d as the <meta> elements of report #sec-tdm-html-meta, e.g.
// `<meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="https://...">`,
// the policy escaped as an attribute value: the tdm-reservation element unless the
// reservation is Unset, the tdm-policy element if there is a policy (a page that states the
// reservation itself may get the policy alone).
func (d Declaration) MetaElements() []byte {
	var b bytes.Buffer
	if !d.IsEmpty() {
		b.WriteString(`<meta name="tdm-reservation" content="`)
		b.WriteString(d.Reservation.Value())
		b.WriteString(`">`)
	}
	if d.Policy != "" {
		b.WriteString(`<meta name="tdm-policy" content="`)
		b.WriteString(html.EscapeString(d.Policy))
		b.WriteString(`">`)
	}
	return b.Bytes()
}

// Rule is one rule of tdmrep.json (report #sec-tdm-file): the paths Location matches (robots.txt
// patterns: "*" any characters, a final "$" the end of the path) and their declaration.
type Rule struct {
	Location    string `json:"location"`
	Reservation int    `json:"tdm-reservation"`
	Policy      string `json:"tdm-policy,omitempty"`
}

// File renders rules as tdmrep.json: a JSON array, in order (a TDM agent uses the first
// rule that matches), even when it has no rule.
func File(rules []Rule) []byte {
	if rules == nil {
		rules = []Rule{}
	}
	b, err := json.MarshalIndent(rules, "", "  ")
	if err != nil {
		panic(err) // strings and ints always marshal
	}
	return append(b, '\n')
}

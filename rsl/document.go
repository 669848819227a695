package rsl

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/httplex"
	"github.com/sitepolicy/caddy-robots/internal/syntax"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// Usages are the usage vocabulary of RSL 1.0 (section 3.4.1, "Usage and User Classification
// Vocabularies"), the values of <permits type="usage"> and <prohibits type="usage">: every use
// ("all"), every AI use ("ai-all"), training AI models ("ai-train"), AI input at inference
// time such as retrieval-augmented generation ("ai-input"), AI indexing ("ai-index"), and
// search indexing ("search").
var Usages = []string{"all", "ai-all", "ai-train", "ai-input", "ai-index", "search"}

// PaymentTypes are the compensation models of <payment type="..."> (RSL 1.0, <payment>), with
// "free" the default when the element has no type. RSL 1.0 renamed the drafts' "inference"
// to "use" and added "contribution"; a config's "inference" is read as "use"
// (OldPaymentTypes) and written so.
var PaymentTypes = []string{"free", "attribution", "purchase", "subscription", "training", "crawl", "use", "contribution"}

// OldPaymentTypes maps the payment types of the drafts before RSL 1.0 to their 1.0 names:
// a reader accepts them, a writer writes the 1.0 name.
var OldPaymentTypes = map[string]string{"inference": "use"}

// paymentType is t as RSL 1.0 names it.
func paymentType(t string) string {
	if n, ok := OldPaymentTypes[t]; ok {
		return n
	}
	return t
}

// Document is an RSL license document (RSL 1.0, section 3: an <rsl> root element in the RSL
// namespace holding <content> elements), served at Path and rendered at load. Only RSL's core
// is declared: what content is licensed, which usages the license permits and prohibits, and
// how it is paid for or whom to contact; anything more (license servers, encrypted content,
// legal statements, amounts) is written by hand and linked as a license URL instead.
type Document struct {
	// Path is where the document is served, e.g. "/license.xml": a path without a query,
	// fragment, spaces or non-ASCII. Its URL on each origin is added to robots.txt as a
	// License line.
	Path string `json:"path"`
	// Content are the licensed assets, one <content> element each, in order; at least one.
	Content []Content `json:"content"`
}

// Content is one <content url="..."> element with its <license>.
type Content struct {
	// URL is the asset's location (<content url>): an absolute http(s) URL, or a path such as
	// "/articles/" matched as robots.txt paths are (RFC 9309, with "*" and a final "$").
	URL string `json:"url"`
	// Permits are the usages the license permits (<permits type="usage">): values of Usages.
	Permits []string `json:"permits,omitempty"`
	// Prohibits are the usages the license prohibits (<prohibits type="usage">): values of
	// Usages, none also in Permits.
	Prohibits []string `json:"prohibits,omitempty"`
	// Payment, if set, is the license's <payment> element.
	Payment *Payment `json:"payment,omitempty"`
}

// Payment is how a license is compensated (<payment type="...">), and where its terms are.
type Payment struct {
	// Type is one of PaymentTypes; empty leaves the attribute out, which RSL reads as free.
	Type string `json:"type,omitempty"`
	// Standard is the URL of a standard license agreement or rate card (<standard>).
	Standard string `json:"standard,omitempty"`
	// Custom is the URL where a custom license is negotiated: a contact form, a page, a
	// mailto: address (<custom>).
	Custom string `json:"custom,omitempty"`
}

// Validate checks the document; every problem is a *configerr.Error with its field path
// ("path", "content[0].permits[1]", "content[0].payment.custom").
func (d *Document) Validate() error {
	var errs []error
	add := func(path, value, msg string) { errs = append(errs, configerr.New(path, value, msg)) }
	if msg := checkServedPath(d.Path); msg != "" {
		add("path", d.Path, msg)
	}
	if len(d.Content) == 0 {
		add("content", "", "an RSL document needs at least one content element (RSL 1.0: <rsl> holds one or more <content>), e.g. {\"url\": \"/\", \"prohibits\": [\"ai-train\"]}")
	}
	seen := map[string]bool{}
	for i, c := range d.Content {
		at := configerr.Index("content", i)
		if msg := checkContentURL(c.URL); msg != "" {
			add(at+".url", c.URL, msg)
		} else if seen[c.URL] {
			add(at+".url", c.URL, "each content element must name a distinct asset (RSL 1.0, <content>): merge the two")
		}
		seen[c.URL] = true
		if len(c.Permits)+len(c.Prohibits) == 0 && c.Payment == nil {
			add(at, "", "a license with no permits, prohibits or payment says nothing: give at least one")
		}
		for _, l := range []struct {
			field string
			vals  []string
		}{{"permits", c.Permits}, {"prohibits", c.Prohibits}} {
			for j, u := range l.vals {
				p := configerr.Index(at+"."+l.field, j)
				switch {
				case !slices.Contains(Usages, u):
					e := configerr.New(p, u, "not an RSL usage: the usages are "+strings.Join(Usages, ", "))
					if u == "train-ai" {
						// Content-Usage's word for it (draft-ietf-aipref-vocab).
						e.Suggestion = "ai-train"
					} else if s := configerr.Closest(u, Usages); s != "" {
						e.Suggestion = s
					}
					errs = append(errs, e)
				case slices.Index(l.vals, u) < j:
					add(p, u, "given twice")
				case l.field == "prohibits" && slices.Contains(c.Permits, u):
					add(p, u, "both permitted and prohibited: the license must say one")
				}
			}
		}
		if pay := c.Payment; pay != nil {
			if pay.Type != "" && !slices.Contains(PaymentTypes, paymentType(pay.Type)) {
				e := configerr.New(at+".payment.type", pay.Type, "not an RSL payment type: the types are "+strings.Join(PaymentTypes, ", "))
				if s := configerr.Closest(pay.Type, PaymentTypes); s != "" {
					e.Suggestion = s
				}
				errs = append(errs, e)
			}
			if pay.Standard != "" {
				if msg := checkAbsoluteURL(pay.Standard, false); msg != "" {
					add(at+".payment.standard", pay.Standard, msg)
				}
			}
			if pay.Custom != "" {
				if msg := checkAbsoluteURL(pay.Custom, true); msg != "" {
					add(at+".payment.custom", pay.Custom, msg)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// Render validates d and returns the document's bytes: an XML declaration and the <rsl>
// element in the RSL namespace, text and attribute values escaped (encoding/xml). The same d
// gives the same bytes.
func (d *Document) Render() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<rsl xmlns="` + Namespace + `">` + "\n")
	for _, c := range d.Content {
		b.WriteString(`  <content url="`)
		escape(&b, c.URL)
		b.WriteString("\">\n    <license>\n")
		// RSL 1.0 lists values separated by spaces; the drafts' commas would be read as one
		// unknown value ("ai-train,ai-input").
		if len(c.Permits) > 0 {
			b.WriteString(`      <permits type="usage">` + strings.Join(c.Permits, " ") + "</permits>\n")
		}
		if len(c.Prohibits) > 0 {
			b.WriteString(`      <prohibits type="usage">` + strings.Join(c.Prohibits, " ") + "</prohibits>\n")
		}
		if p := c.Payment; p != nil {
			b.WriteString("      <payment")
			if p.Type != "" {
				b.WriteString(` type="` + paymentType(p.Type) + `"`)
			}
			if p.Standard == "" && p.Custom == "" {
				b.WriteString("/>\n")
			} else {
				b.WriteString(">\n")
				for _, e := range [][2]string{{"standard", p.Standard}, {"custom", p.Custom}} {
					if e[1] != "" {
						b.WriteString("        <" + e[0] + ">")
						escape(&b, e[1])
						b.WriteString("</" + e[0] + ">\n")
					}
				}
				b.WriteString("      </payment>\n")
			}
		}
		b.WriteString("    </license>\n  </content>\n")
	}
	b.WriteString("</rsl>\n")
	return b.Bytes(), nil
}

func escape(b *bytes.Buffer, s string) { _ = xml.EscapeText(b, []byte(s)) }

// checkServedPath checks the path a document is served at. The document answers a request
// whose path is exactly this one, ahead of the site's handler, and the path is published as
// a License URL: so it must be a path a client sends as written (no dot segments, which
// clients resolve away, and no empty segment), and not one the site or this module answers
// with something else (the home page, robots.txt, tdmrep.json).
func checkServedPath(p string) string {
	const want = `a path such as "/license.xml" where the document is served`
	if !strings.HasPrefix(p, "/") {
		return "must be " + want
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`?#<>"{}|\^`+"`%", c) >= 0 {
			return fmt.Sprintf("must be %s, matched exactly: %q is not allowed in it", want, c)
		}
	}
	switch p {
	case "/":
		return "is the site's home page, which the document would replace: give it a path of its own, e.g. /license.xml"
	case "/robots.txt":
		return "is robots.txt's own path"
	case tdmrep.WellKnownPath:
		return "is the TDMRep file's path, which the document would replace"
	}
	for seg := range strings.SplitSeq(p[1:], "/") {
		switch seg {
		case ".", "..":
			return "must be " + want + ", without dot segments (\".\", \"..\"): a client resolves them away and never asks for the path as written"
		}
	}
	if strings.Contains(p, "//") {
		return "must be " + want + `, without an empty segment ("//"): the path is matched exactly, and "//" would also name another host in a License line`
	}
	return ""
}

// checkContentURL checks <content url>: an absolute http(s) URL or a robots.txt path pattern.
func checkContentURL(s string) string {
	if s == "" {
		return `the asset's location is required: an absolute URL, or a path such as "/" (every page) or "/articles/*"`
	}
	if msg := uriChars(s); msg != "" {
		return msg
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "*") {
		return ""
	}
	return checkAbsoluteURL(s, false)
}

// checkAbsoluteURL checks an absolute http(s) URL (or, with mailto, a mailto: address).
func checkAbsoluteURL(s string, mailto bool) string {
	if msg := uriChars(s); msg != "" {
		return msg
	}
	if _, ok := httplex.AbsoluteURL(s); ok {
		return ""
	}
	if !mailto {
		return httplex.NotAbsoluteURL
	}
	if u, err := url.Parse(s); err == nil && u.Scheme == "mailto" && u.Opaque != "" {
		return ""
	}
	return httplex.NotAbsoluteURL + " or a mailto: address"
}

// uriChars refuses what a URI cannot hold unencoded (RFC 3986 section 2): control
// characters, spaces, non-ASCII, and the delimiters that would end an attribute or a link.
func uriChars(s string) string {
	if msg := syntax.TextProblem(s); msg != "" {
		return msg
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(syntax.URIExcludedChars, c) >= 0 {
			return fmt.Sprintf("%q must be percent-encoded in a URL (RFC 3986 section 2)", c)
		}
	}
	return ""
}

package tagemit

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/rsl"
)

// Licenses are RSL license links for HTML pages: the URLs of RSL license documents, each
// written as <link rel="license" type="application/rsl+xml" href="URL"> (RSL 1.0, "HTML"
// association), the elements serialised once by NewLicenses so that a page costs no
// allocation. The zero value has none.
type Licenses struct {
	hrefs   []string // as configured: what a page's own link is compared with
	written []string // as written in href: a path resolved against the origin, if one was given
	html    []byte   // every element, HTML syntax
	xhtml   []byte   // every element, XML syntax ("/>")
}

// NewLicenses serialises the link elements of hrefs, in order, each written once. The hrefs
// are URLs as the config checks them; they are escaped as attribute values all the same, so
// nothing in one can end the element. A path is written as it is; NewLicensesAt resolves it.
func NewLicenses(hrefs []string) Licenses { return NewLicensesAt(hrefs, "") }

// NewLicensesAt is NewLicenses with each href that is a path written as the absolute URL of
// that path on origin ("https://example.com"), as RSL 1.0 asks license URLs to be; with an
// empty origin paths are written as they are. Hrefs still returns them as given.
func NewLicensesAt(hrefs []string, origin string) Licenses {
	var l Licenses
	for _, h := range hrefs {
		if h == "" || containsString(l.hrefs, h) {
			continue
		}
		l.hrefs = append(l.hrefs, h)
		if origin != "" && strings.HasPrefix(h, "/") {
			h = origin + h
		}
		l.written = append(l.written, h)
	}
	l.html = l.elements(nil, false)
	l.xhtml = l.elements(nil, true)
	return l
}

// IsEmpty reports whether there is no license link.
func (l Licenses) IsEmpty() bool { return len(l.hrefs) == 0 }

// Hrefs returns the license URLs as given, in order.
func (l Licenses) Hrefs() []string { return l.hrefs }

// Written returns the license URLs as the elements write them, in the order of Hrefs.
func (l Licenses) Written() []string { return l.written }

// Elements returns the link elements in HTML syntax.
func (l Licenses) Elements() []byte { return l.html }

// elements writes the link elements of the hrefs not in skip (nil: all), in XML syntax if
// xml is set.
func (l Licenses) elements(skip []bool, xml bool) []byte {
	var b []byte
	for i, h := range l.written {
		if skip != nil && skip[i] {
			continue
		}
		b = append(b, `<link rel="license" type="`+rsl.MediaType+`" href="`...)
		b = append(b, html.EscapeString(h)...)
		if xml {
			b = append(b, `" />`...)
		} else {
			b = append(b, `">`...)
		}
	}
	return b
}

// readLink notes which of the injector's license links a <link> element in the page's head
// already states: rel holding "license" (compared without case) and href naming the
// license's URL once surrounding whitespace is trimmed, as an HTML parser reads a URL
// attribute: written the same, or a path license as its absolute URL on the request's host
// (rsl.SameTarget, as a backend's Link field is read). The type attribute is not compared: a page's own license link to the same
// document is the same statement.
func (in *Injector) readLink(z *html.Tokenizer) {
	var rel, href string
	var hasRel, hasHref bool
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "rel":
			if !hasRel {
				rel, hasRel = string(v), true
			}
		case "href":
			if !hasHref {
				href, hasHref = strings.Trim(string(v), htmlSpace), true
			}
		}
		if !more {
			break
		}
	}
	if !hasRel || !hasHref {
		return
	}
	license := false
	for _, r := range strings.FieldsFunc(rel, func(c rune) bool { return strings.ContainsRune(htmlSpace, c) }) {
		license = license || strings.EqualFold(r, "license")
	}
	if !license {
		return
	}
	for i, h := range in.licenses.hrefs {
		if rsl.SameTarget(href, h, in.host) {
			if in.pageLicenses == nil {
				in.pageLicenses = make([]bool, len(in.licenses.hrefs))
			}
			in.pageLicenses[i] = true
		}
	}
}

// licenseElements returns the link elements to insert: all of them when full, else those the
// page's head does not state already.
func (in *Injector) licenseElements(full bool) []byte {
	if full || in.pageLicenses == nil {
		if in.xhtml {
			return in.licenses.xhtml
		}
		return in.licenses.html
	}
	return in.licenses.elements(in.pageLicenses, in.xhtml)
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

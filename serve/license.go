package serve

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// rslContentType is the Content-Type of a served RSL license document.
var rslContentType = []string{rsl.MediaType}

// licenseDoc is an RSL license document, rendered at load, served at its path.
type licenseDoc struct {
	path         string
	body         *robotsBody
	modTime      time.Time
	lastModified []string
}

// newLicenseDocs checks and renders the documents of rc; errors are at
// "license_documents[i]...". Two documents at one path are refused.
func newLicenseDocs(docs []rsl.Document) ([]licenseDoc, error) {
	var out []licenseDoc
	var errs []error
	now := time.Now().UTC().Truncate(time.Second)
	for i, d := range docs {
		at := configerr.Index("license_documents", i)
		body, err := d.Render()
		if err != nil {
			errs = append(errs, configerr.Prefix(at, err))
			continue
		}
		if j := slices.IndexFunc(docs[:i], func(o rsl.Document) bool { return o.Path == d.Path }); j >= 0 {
			errs = append(errs, configerr.New(at+".path", d.Path, fmt.Sprintf("license_documents[%d] is served there already", j)))
			continue
		}
		b := newRobotsBody(body)
		b.contentType = rslContentType
		out = append(out, licenseDoc{path: d.Path, body: b, modTime: now, lastModified: []string{now.Format(http.TimeFormat)}})
	}
	return out, errors.Join(errs...)
}

// withDocumentLicenses returns licenses with the path of each document not listed yet: a
// served document is announced in robots.txt as any license is.
func withDocumentLicenses(licenses []string, docs []licenseDoc) []string {
	out := licenses
	for _, d := range docs {
		if !slices.Contains(out, d.path) {
			out = append(slices.Clip(out), d.path)
		}
	}
	return out
}

// doc returns the license document r asks for, or nil. Documents are few (a config lists
// them): a scan costs less than a map lookup's hashing, and does not allocate.
func (c *Core) doc(r *http.Request) *licenseDoc {
	for i := range c.docs {
		if c.docs[i].path == r.URL.Path {
			return &c.docs[i]
		}
	}
	return nil
}

// serveDoc answers a request for a license document as robots.txt is answered: GET and
// HEAD, conditional requests, robots.txt's Cache-Control.
func (c *Core) serveDoc(w http.ResponseWriter, r *http.Request, d *licenseDoc) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header()["Allow"] = allowGetHead
		return &StatusError{http.StatusMethodNotAllowed, "the RSL license document answers GET and HEAD"}
	}
	return c.robots.serveBody(w, r, d.body, d.modTime, d.lastModified)
}

// docRouteWarnings warns about each license document whose path a robots_tag route names by
// a pattern of its own (any but "*"): that route means to tag what the site serves there,
// and the document replaces it (the Core answers the path itself, ahead of the site's
// handler and the route). A route at "*" covers every path and says nothing of this one.
func docRouteWarnings(docs []licenseDoc, routes []route) []*configerr.Error {
	var out []*configerr.Error
	for _, d := range docs {
		r := &http.Request{URL: &url.URL{Path: d.path}}
		reqPath := requestPath(r)
		for i := range routes {
			for _, pp := range routes[i].patterns {
				if pp.kind != matchAll && pp.Match(r, reqPath) {
					out = append(out, configerr.New(configerr.Index("robots_tag", i), "", fmt.Sprintf("path pattern %q names %s, where a license document is served: the document answers that path, not the site's handler, and this route does not tag it", pp.raw, d.path)))
				}
			}
		}
	}
	return out
}

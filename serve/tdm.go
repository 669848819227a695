package serve

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/tdmrep"
	"github.com/sitepolicy/caddy-robots/usage"
)

// newTDM checks a route's TDMRep declaration (field paths under "tdm") and resolves Derive
// against the route's Content-Usage preferences u.
func newTDM(t *policy.TDM, u usage.Prefs) (tdmrep.Declaration, error) {
	if t == nil {
		return tdmrep.Declaration{}, nil
	}
	var d tdmrep.Declaration
	var errs []error
	switch {
	case t.Derive && t.Reservation != nil:
		errs = append(errs, configerr.New("tdm.derive", "", "give either a reservation or derive, not both"))
	case t.Derive:
		if u.Get("train-ai") != usage.Disallow {
			errs = append(errs, configerr.New("tdm.derive", "", "derive reserves TDM rights where the route's content_usage says train-ai=n, and this route's does not: a permission is never derived from silence; add train-ai=n to content_usage, or give the reservation (1 or 0)"))
		}
		d.Reservation = tdmrep.Reserved
	case t.Reservation == nil:
		errs = append(errs, configerr.New("tdm.reservation", "", "a TDMRep declaration needs a reservation, 1 (TDM rights reserved) or 0 (not reserved), or derive"))
	case *t.Reservation == 1:
		d.Reservation = tdmrep.Reserved
	case *t.Reservation == 0:
		d.Reservation = tdmrep.NotReserved
	default:
		errs = append(errs, configerr.New("tdm.reservation", strconv.Itoa(*t.Reservation), "tdm-reservation is 1 (TDM rights reserved) or 0 (not reserved); the report calls any other value a protocol error"))
	}
	if t.Policy != "" {
		if msg := tdmrep.CheckPolicy(t.Policy); msg != "" {
			errs = append(errs, configerr.New("tdm.policy", t.Policy, msg))
		}
		d.Policy = t.Policy
	}
	if err := errors.Join(errs...); err != nil {
		return tdmrep.Declaration{}, err
	}
	return d, nil
}

// tdmOutput is a declaration's response fields, precomputed as single-element slices.
type tdmOutput struct {
	decl        tdmrep.Declaration
	reservation []string // nil when decl is empty
	policy      []string // nil without a policy
}

func newTDMOutput(d tdmrep.Declaration) tdmOutput {
	o := tdmOutput{decl: d}
	if !d.IsEmpty() {
		o.reservation = []string{d.Reservation.Value()}
	}
	if d.Policy != "" {
		o.policy = []string{d.Policy}
	}
	return o
}

// setTDM sets the routes' TDMRep fields on h, combined with what the handler sent, and
// returns the declaration the page's <meta> elements may state: none when the handler's own
// reservation outranks the routes' (its 1 over their 0), since a meta element supersedes the
// fields (report #sec-processing-priority) and must not weaken them. The handler's tdm-reservation is read as a
// TDM agent reads it: one line of "0" or "1", anything else unset (#sec-tdm-reservation), so a malformed one
// never removes the routes' reservation; but lines that hold a "1" anywhere (two lines of 1,
// "1, 1") count as the handler's reservation, left as they are, so a lenient agent's reading
// is never weakened to the routes' 0. Nothing allocates.
func setTDM(h http.Header, o *tdmOutput) tdmrep.Declaration {
	if o.reservation == nil {
		return tdmrep.Declaration{}
	}
	backend := tdmrep.Unset
	if own := h[tdmrep.ReservationField]; len(own) == 1 {
		backend = tdmrep.ParseReservation(own[0])
	}
	if backend != tdmrep.Reserved && mayReserve(h[tdmrep.ReservationField]) {
		// Repeated or malformed, which the report calls unset, but a lenient agent would read
		// the 1 in it: a route's 0 must not turn that into an explicit permission.
		backend = tdmrep.Reserved
	}
	switch {
	case backend > o.decl.Reservation:
		// The handler reserves where the routes do not: its declaration stands whole.
		return tdmrep.Declaration{}
	case backend == o.decl.Reservation && o.policy == nil:
		// The same reservation: the handler's policy, if any, goes with it.
		h[tdmrep.ReservationField] = o.reservation
		return o.decl
	}
	h[tdmrep.ReservationField] = o.reservation
	if o.policy != nil {
		h[tdmrep.PolicyField] = o.policy
	} else {
		// The handler's policy described its own (lesser or unreadable) declaration.
		delete(h, tdmrep.PolicyField)
	}
	return o.decl
}

// mayReserve reports whether a handler's tdm-reservation lines hold "1" as one of their
// comma-separated elements (around whitespace): what an agent that reads repeated or listed
// values leniently takes for a reservation. It does not allocate.
func mayReserve(lines []string) bool {
	for _, l := range lines {
		for l != "" {
			elem, rest, _ := strings.Cut(l, ",")
			if tdmrep.ParseReservation(elem) == tdmrep.Reserved {
				return true
			}
			l = rest
		}
	}
	return false
}

// tdmLocated is the rules of the served tdmrep.json, read as a TDM agent reads them: the
// first rule whose location matches the path (report #sec-tdm-file, locations as robots.txt
// patterns, #sec-tdm-file-regexp). Route paths match without case and a location with it,
// so for a path spelled otherwise than the routes the first matching rule may be another
// route's than the one whose policy the routes' combination names: the fields then state
// the file's policy, so that the file and the fields never name two policies for one path.
type tdmLocated struct {
	locs   []robotsgen.Pattern
	res    []tdmrep.Reservation
	policy [][]string // each rule's tdm-policy as a field value; nil without one
}

func newTDMLocated(rules []tdmrep.Rule) *tdmLocated {
	f := &tdmLocated{}
	for _, r := range rules {
		f.locs = append(f.locs, robotsgen.NewPattern(r.Location))
		f.res = append(f.res, tdmrep.ParseReservation(strconv.Itoa(r.Reservation)))
		var p []string
		if r.Policy != "" {
			p = []string{r.Policy}
		}
		f.policy = append(f.policy, p)
	}
	return f
}

// output returns o with the policy of the file's first rule matching r's path when that
// rule states o's reservation; o as it is when no rule matches (the file says nothing
// there) or the rule states another reservation. It does not allocate.
func (f *tdmLocated) output(o *tdmOutput, r *http.Request) tdmOutput {
	p := r.URL.RawPath
	if p == "" {
		p = r.URL.Path
	}
	for i, l := range f.locs {
		if !l.Match(p) {
			continue
		}
		if f.res[i] != o.decl.Reservation {
			break
		}
		out := *o
		out.policy = f.policy[i]
		out.decl.Policy = ""
		if out.policy != nil {
			out.decl.Policy = out.policy[0]
		}
		return out
	}
	return *o
}

// tdmFile is the generated /.well-known/tdmrep.json.
type tdmFile struct {
	body         *robotsBody
	cacheControl []string
	lastModified []string
	modTime      time.Time
}

// tdmRouteRules returns the rules of tdmrep.json for the routes, and a warning for each
// route with a declaration that no location can express, which the file then says nothing
// for. The routes' declarations combine with a reservation winning (tdmrep.Combine), and a
// TDM agent takes the first rule that matches (report #sec-tdm-file), so the rules are ordered:
// reservations with a policy, reservations without, then non-reservations (each in route
// order). A route's locations are written in the operator's case and in lower case
// (pathPattern.locations). The non-reservations are left out when some reserving route has
// no location, or one with a letter in it (route paths match without case, TDM agents with
// it, so the route reserves spellings no location writes): a rule of 0 could then answer for
// a path that a reservation covers.
func tdmRouteRules(cfg policy.Config, routes []route) ([]tdmrep.Rule, []*configerr.Error) {
	var withPolicy, without, zero []tdmrep.Rule
	var warnings []*configerr.Error
	zeroUnsafe := false
	for i := range routes {
		if routes[i].tagger == nil || routes[i].tagger.out.tdm.decl.IsEmpty() {
			continue
		}
		d := routes[i].tagger.out.tdm.decl
		at := configerr.Index("robots_tag", i)
		locs, problem := tdmLocations(cfg.RobotsTag[i], routes[i].patterns)
		if problem != "" {
			warnings = append(warnings, configerr.New(at, "", "tdmrep.json says nothing for this route: "+problem+"; its responses carry the tdm-reservation field all the same"))
			zeroUnsafe = zeroUnsafe || d.Reservation == tdmrep.Reserved
			continue
		}
		for _, l := range locs {
			r := tdmrep.Rule{Location: l, Policy: d.Policy}
			switch {
			case d.Reservation == tdmrep.NotReserved:
				zero = append(zero, r)
			case d.Policy != "":
				r.Reservation = 1
				withPolicy = append(withPolicy, r)
			default:
				r.Reservation = 1
				without = append(without, r)
			}
			if d.Reservation == tdmrep.Reserved && strings.ToUpper(l) != strings.ToLower(l) {
				// A letter: the route also reserves the spellings no location writes.
				zeroUnsafe = true
			}
		}
	}
	rules := append(withPolicy, without...)
	if len(zero) > 0 && zeroUnsafe {
		warnings = append(warnings, configerr.New("robots_tag", "", fmt.Sprintf("tdmrep.json leaves out the %d rule(s) of tdm-reservation 0: a reserving route has no location, or one with letters, which route paths match in any case and TDM agents in one, so a 0 could answer for a path a reservation covers; the responses carry their fields all the same", len(zero))))
		return rules, warnings
	}
	return append(rules, zero...), warnings
}

// tdmLocations writes a route's path patterns as tdmrep.json locations (robots.txt
// patterns, report #sec-tdm-file-regexp), or says why they cannot be.
func tdmLocations(r policy.Route, patterns []pathPattern) ([]string, string) {
	if r.Match != nil {
		return nil, "it has a match function, which no location can express"
	}
	if len(patterns) == 0 {
		return []string{"/"}, ""
	}
	var locs []string
	for j, pp := range patterns {
		l, ok := pp.locations()
		if !ok {
			return nil, fmt.Sprintf("path pattern %q (paths[%d]) cannot be written as a location (a glob, a percent escape, or a \"$\")", pp.raw, j)
		}
		locs = append(locs, l...)
	}
	return locs, ""
}

// locations are the tdmrep.json locations that match the paths pp matches as far as case
// allows: pp compares without case, a TDM agent with it, so the pattern is written as the
// operator wrote it and, when that differs, in lower case too (the spellings a site most
// likely links). "*" is any characters, "$" the end, non-ASCII bytes percent-encoded as agents
// compare them. Globs (whose "*" stops at "/"), patterns with a percent escape or a literal
// "$" have none.
func (pp *pathPattern) locations() ([]string, bool) {
	if pp.kind == matchGlob || pp.escaped || strings.Contains(pp.literal, "$") {
		return nil, false
	}
	if pp.kind == matchAll {
		return []string{"/"}, true
	}
	// The operator's literal: the kinds that reach here have their "*" only at the ends.
	lit := encodeNonASCII(strings.TrimSuffix(strings.TrimPrefix(pp.raw, "*"), "*"))
	var format string
	switch pp.kind {
	case matchExact:
		format = "%s$"
	case matchPrefix:
		format = "%s"
	case matchSuffix:
		format = "/*%s$"
	case matchSubstring:
		format = "/*%s"
	default:
		return nil, false
	}
	locs := []string{fmt.Sprintf(format, lit)}
	if lower := fmt.Sprintf(format, encodeNonASCII(pp.literal)); lower != locs[0] {
		locs = append(locs, lower)
	}
	return locs, true
}

func encodeNonASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

var applicationJSON = []string{"application/json"}

// newTDMFile renders the rules, served with robots.txt's validators and Cache-Control.
func newTDMFile(rules []tdmrep.Rule) *tdmFile {
	now := time.Now().UTC().Truncate(time.Second)
	return &tdmFile{
		body:         newRobotsBody(tdmrep.File(rules)),
		cacheControl: []string{"max-age=" + strconv.FormatInt(int64(policy.DefaultRobotsTxtMaxAge/time.Second), 10)},
		lastModified: []string{now.Format(http.TimeFormat)},
		modTime:      now,
	}
}

// serve answers GET and HEAD with the file (or 304), any other method with a 405
// StatusError.
func (f *tdmFile) serve(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h["Allow"] = allowGetHead
		return &StatusError{http.StatusMethodNotAllowed, "tdmrep.json answers GET and HEAD"}
	}
	h["Cache-Control"] = f.cacheControl
	h["Etag"] = f.body.etagValue
	h["Last-Modified"] = f.lastModified
	if notModified(r, f.body.etag, f.modTime) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h["Content-Type"] = applicationJSON
	h["Content-Length"] = f.body.contentLength
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(f.body.body)
	}
	return nil
}

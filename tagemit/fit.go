package tagemit

import (
	"slices"
	"strings"
)

// FitFieldSize returns p, or when p's Robots-Tag value is longer than MaxFieldSize (a parser
// may ignore everything past it), the most important part of p that fits, chosen as
// FitUnion chooses among declared members. dropped names each member dropped or cut, for a
// warning.
func (p Policy) FitFieldSize() (fitted Policy, dropped []string) {
	return FitUnion(p, Policy{}, false)
}

// FitUnion returns declared.Union(received) when its Robots-Tag value, and with legacy its
// X-Robots-Tag lines together (joined with ", ", as ParseXRobotsTag counts them), are within
// MaxFieldSize. Otherwise it returns the most important part that fits, and names what it
// left out (a token, or "token (rules)" for the rules cut from a kept member):
//
//   - declared's members come first (the configuration's own rules), then what received
//     adds to them and its other members (a backend's header);
//   - on each side, the member for "*" first, then the members with noindex, then those
//     with another restriction (nofollow, nosnippet, noarchive, ..., an unknown rule such
//     as noai), then those with limits only (max-snippet, unavailable_after, ...), then
//     those that only relax (indexifembedded, max-snippet=-1, max-image-preview=large),
//     each group in token order;
//   - a member that does not fit whole is cut rather than dropped: first its relaxing
//     rules go, then its limits, then its unknown rules, then everything but noindex and
//     nofollow.
//
// What is left out is never a restriction kept at the expense of a relaxation: the result
// restricts at least as much, for each token, as the part of the union it keeps.
func FitUnion(declared, received Policy, legacy bool) (fitted Policy, dropped []string) {
	all := declared.Union(received)
	f := fitter{legacy: legacy}
	if f.fits(all) {
		return all, nil
	}
	f.kept = map[string]ruleSet{}
	f.sf, f.xrt = -len(", "), -len(", ")
	for _, side := range []Policy{declared, received} {
		for _, i := range restrictiveFirst(side) {
			f.add(side.d.tokens[i], side.d.rules[i])
		}
	}
	return build(f.kept), f.dropped
}

type fitter struct {
	legacy  bool
	kept    map[string]ruleSet
	sf, xrt int // sizes of the kept members' Robots-Tag value and X-Robots-Tag lines
	dropped []string
}

func (f *fitter) fits(p Policy) bool {
	if len(p.RobotsTag()) > MaxFieldSize {
		return false
	}
	return !f.legacy || legacySize(p.XRobotsTag()) <= MaxFieldSize
}

func legacySize(lines []string) int {
	n := -len(", ")
	for _, l := range lines {
		n += len(l) + len(", ")
	}
	return max(n, 0)
}

// memberSize returns the size of tok's member with rules rs in each field.
func memberSize(tok string, rs ruleSet) (sf, xrt int) {
	p := build(map[string]ruleSet{tok: rs})
	return len(p.RobotsTag()), legacySize(p.XRobotsTag())
}

// add keeps as much of rs for tok, on top of what is kept for tok already, as fits.
func (f *fitter) add(tok string, rs ruleSet) {
	old, had := f.kept[tok]
	oldSF, oldXRT := 0, 0
	if had {
		oldSF, oldXRT = memberSize(tok, old)
		oldSF, oldXRT = oldSF+len(", "), oldXRT+len(", ")
	}
	candidates := []ruleSet{rs}
	for i := 0; i < len(candidates); i++ {
		r := candidates[i]
		next := r
		if had {
			next = old.union(r)
		}
		sf, xrt := memberSize(tok, next)
		sf, xrt = f.sf-oldSF+sf+len(", "), f.xrt-oldXRT+xrt+len(", ")
		if sf > MaxFieldSize || f.legacy && xrt > MaxFieldSize {
			if i == 0 {
				candidates = append(candidates, reductions(rs)...) // only when needed: most members fit whole
			}
			continue
		}
		f.kept[tok], f.sf, f.xrt = next, sf, xrt
		if i > 0 {
			f.dropped = append(f.dropped, tok+" ("+strings.Join(missing(rs, r), ", ")+")")
		}
		return
	}
	if had {
		// The declared rules stay; what received adds to them does not fit.
		f.dropped = append(f.dropped, tok+" ("+strings.Join(missing(rs, old), ", ")+")")
		return
	}
	f.dropped = append(f.dropped, tok)
}

// missing lists the rules of rs that its reduction r does not have.
func missing(rs, r ruleSet) []string {
	have := r.strings("=")
	var out []string
	for _, s := range rs.strings("=") {
		if !slices.Contains(have, s) {
			out = append(out, s)
		}
	}
	return out
}

// reductions returns the ever smaller parts of rs that add tries when rs does not fit: without
// the rules that only relax, then without limits, then without unknown rules, then noindex and
// nofollow alone. Empty parts and repeats are left out.
func reductions(rs ruleSet) []ruleSet {
	var out []ruleSet
	try := func(r ruleSet) {
		if r.isEmpty() || r.equal(rs) || len(out) > 0 && r.equal(out[len(out)-1]) {
			return
		}
		out = append(out, r)
	}
	r := rs
	r.flags &^= flagIndexifembedded
	if r.hasSnippet && r.maxSnippet == -1 {
		r.hasSnippet, r.maxSnippet = false, 0
	}
	if r.hasVideo && r.maxVideoPreview == -1 {
		r.hasVideo, r.maxVideoPreview = false, 0
	}
	if r.maxImagePreview == previewLarge {
		r.maxImagePreview = previewUnset
	}
	try(r)
	r.hasSnippet, r.hasVideo, r.maxImagePreview, r.hasUnavailable = false, false, previewUnset, false
	try(r)
	r.ext = nil
	try(r)
	r.flags &= flagNoindex | flagNofollow
	try(r)
	return out
}

func (r ruleSet) equal(q ruleSet) bool {
	return r.flags == q.flags && r.hasSnippet == q.hasSnippet && r.maxSnippet == q.maxSnippet &&
		r.hasVideo == q.hasVideo && r.maxVideoPreview == q.maxVideoPreview && r.maxImagePreview == q.maxImagePreview &&
		r.hasUnavailable == q.hasUnavailable && r.unavailableAfter.Equal(q.unavailableAfter) && slices.Equal(r.ext, q.ext)
}

// restrictiveFirst returns the indexes of p's members in the order FitUnion keeps them.
func restrictiveFirst(p Policy) []int {
	if p.d == nil {
		return nil
	}
	order := make([]int, len(p.d.tokens))
	for i := range order {
		order[i] = i
	}
	rank := func(i int) int {
		rs := p.d.rules[i]
		switch {
		case p.d.tokens[i] == GlobalToken:
			return 0
		case rs.flags&flagNoindex != 0:
			return 1
		case rs.flags&^flagIndexifembedded != 0 || len(rs.ext) > 0:
			return 2
		case rs.hasSnippet && rs.maxSnippet >= 0, rs.hasVideo && rs.maxVideoPreview >= 0,
			rs.maxImagePreview == previewNone, rs.maxImagePreview == previewStandard, rs.hasUnavailable:
			return 3
		}
		return 4
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank(a) - rank(b) })
	return order
}

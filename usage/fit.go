package usage

import (
	"maps"
	"slices"
	"strings"
)

// Fit returns p with its field within MaxFieldSize, and the preferences it left out
// ("+key=v"). Routes that match one request combine their preferences, and only extension
// keys can make the union long: it leaves out extension "y" values first (the key becomes
// unknown, which grants nothing), then extension "n" values, in key order; the vocabulary's
// own keys always stay.
func (p Prefs) Fit() (Prefs, []string) {
	size := len(p.String())
	if size <= MaxFieldSize {
		return p, nil
	}
	m := p.Map()
	keys := slices.Sorted(maps.Keys(m))
	var dropped []string
	for _, allow := range []bool{true, false} {
		for _, k := range keys {
			if size <= MaxFieldSize {
				break
			}
			v, ok := m[k]
			if !ok || !strings.HasPrefix(k, "+") || (v == p.Vocab().Value(Allow)) != allow {
				continue
			}
			size -= len(k) - 1 + 1 + len(v) + 2 // "key=v, " (the "+" is not written)
			delete(m, k)
			dropped = append(dropped, k+"="+v)
		}
	}
	fitted, err := p.Vocab().FromConfig(m)
	if err != nil || len(fitted.String()) > MaxFieldSize {
		return p, nil // cannot happen: the vocabulary's own keys are a few bytes
	}
	return fitted, dropped
}

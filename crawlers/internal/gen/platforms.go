package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// PlatformData is data/platforms.json: the platforms (operators of crawlers and the hosts
// their products send readers from) and the published method the ratio follows.
type PlatformData struct {
	Comment   string         `json:"comment"`
	Method    string         `json:"method"`
	Platforms []PlatformItem `json:"platforms"`
}

// PlatformItem is one platform of the data.
type PlatformItem struct {
	ID        string      `json:"id"`
	Name      string      `json:"name"`
	Operators []string    `json:"operators"`
	Bots      []string    `json:"bots"`
	Hosts     []HostGroup `json:"hosts"`
	Note      string      `json:"note"`
}

// HostGroup is hosts of one product with one source.
type HostGroup struct {
	Names      []string `json:"names"`
	Subdomains bool     `json:"subdomains"`
	Product    string   `json:"product"`
	Source     string   `json:"source"`
}

// ParsePlatforms reads platforms.json strictly (unknown fields are errors, as a misspelt
// "subdomain" would silently narrow a rule) and checks it: ids are lowercase words (they
// are metric label values), each operator, bot and host belongs to one platform, every
// host is a lowercase DNS name that is not a public suffix (so no rule can claim a whole
// TLD like co.uk), every group has a product and an http(s) source, and a platform without
// hosts says why (note). Platforms come out sorted by id, hosts as written.
func ParsePlatforms(data []byte) (PlatformData, error) {
	var d PlatformData
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, fmt.Errorf("platforms.json: %w", err)
	}
	if dec.More() {
		return d, errors.New("platforms.json: data after the object")
	}
	var errs []error
	if !isSource(d.Method) {
		errs = append(errs, errors.New("method: want the URL of the published method"))
	}
	ids, ops, bots, hosts := map[string]bool{}, map[string]string{}, map[string]string{}, map[string]string{}
	for i, p := range d.Platforms {
		at := fmt.Sprintf("platforms[%d] (%s)", i, p.ID)
		if !isLabelWord(p.ID) {
			errs = append(errs, fmt.Errorf("%s: id must be lowercase letters and digits", at))
		}
		if ids[p.ID] {
			errs = append(errs, fmt.Errorf("%s: duplicate id", at))
		}
		ids[p.ID] = true
		if p.Name == "" {
			errs = append(errs, fmt.Errorf("%s: needs a name", at))
		}
		if len(p.Operators) == 0 && len(p.Bots) == 0 {
			errs = append(errs, fmt.Errorf("%s: needs operators or bots: a platform is the operator of crawlers", at))
		}
		for _, o := range p.Operators {
			if other, ok := ops[o]; ok {
				errs = append(errs, fmt.Errorf("%s: operator %q is platform %s's already", at, o, other))
			}
			ops[o] = p.ID
		}
		for _, b := range p.Bots {
			if other, ok := bots[b]; ok {
				errs = append(errs, fmt.Errorf("%s: bot %q is platform %s's already", at, b, other))
			}
			bots[b] = p.ID
		}
		if len(p.Hosts) == 0 && p.Note == "" {
			errs = append(errs, fmt.Errorf("%s: a platform without hosts needs a note saying why it refers no readers", at))
		}
		for j, g := range p.Hosts {
			gat := fmt.Sprintf("%s.hosts[%d]", at, j)
			if g.Product == "" || !isSource(g.Source) {
				errs = append(errs, fmt.Errorf("%s: needs a product and an http(s) source", gat))
			}
			if len(g.Names) == 0 {
				errs = append(errs, fmt.Errorf("%s: no names", gat))
			}
			for _, h := range g.Names {
				if err := checkHost(h); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", gat, err))
				}
				if other, ok := hosts[h]; ok {
					errs = append(errs, fmt.Errorf("%s: host %q is in %s already", gat, h, other))
				}
				hosts[h] = p.ID
			}
		}
	}
	if len(errs) > 0 {
		return d, errors.Join(errs...)
	}
	slices.SortFunc(d.Platforms, func(a, b PlatformItem) int { return strings.Compare(a.ID, b.ID) })
	return d, nil
}

func isLabelWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('a' <= s[i] && s[i] <= 'z' || '0' <= s[i] && s[i] <= '9') {
			return false
		}
	}
	return true
}

func isSource(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// checkHost accepts a lowercase DNS name of letters, digits and '-' in dot-separated labels,
// with at least two labels, that is not itself a public suffix (publicsuffix list, ICANN and
// private sections): a rule for "co.uk" or "github.io" would claim every site under it.
func checkHost(h string) error {
	if len(h) > 253 || !strings.Contains(h, ".") {
		return fmt.Errorf("host %q: want a DNS name of two labels or more", h)
	}
	for _, l := range strings.Split(h, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("host %q: bad label %q", h, l)
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return fmt.Errorf("host %q: want lowercase letters, digits and '-'", h)
			}
		}
	}
	if _, err := publicsuffix.EffectiveTLDPlusOne(h); err != nil {
		return fmt.Errorf("host %q is a public suffix: %v", h, err)
	}
	return nil
}

// GeneratePlatforms returns the gofmt'd source of platforms_gen.go for platforms.json data.
// The data is the project's own (no licence to repeat: license is ignored); source is the
// path of the committed copy, named in the header.
func GeneratePlatforms(data, _ []byte, source string) ([]byte, error) {
	d, err := ParsePlatforms(data)
	if err != nil {
		return nil, err
	}
	q := func(ss []string) string {
		if len(ss) == 0 {
			return "nil"
		}
		parts := make([]string, len(ss))
		for i, s := range ss {
			parts[i] = strconv.Quote(s)
		}
		return "[]string{" + strings.Join(parts, ", ") + "}"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by crawlers/internal/gencrawlers from %s. DO NOT EDIT.\n\n", source)
	b.WriteString("package crawlers\n\n")
	fmt.Fprintf(&b, "// platformMethod is the published measurement method the platforms follow.\nconst platformMethod = %s\n\n", strconv.Quote(d.Method))
	fmt.Fprintf(&b, "// platforms holds the %d platforms of %s, sorted by id.\n", len(d.Platforms), source)
	b.WriteString("var platforms = [...]Platform{\n")
	for _, p := range d.Platforms {
		fmt.Fprintf(&b, "\t{ID: %s, Name: %s, Operators: %s, Bots: %s", strconv.Quote(p.ID), strconv.Quote(p.Name), q(p.Operators), q(p.Bots))
		if p.Note != "" {
			fmt.Fprintf(&b, ", Note: %s", strconv.Quote(p.Note))
		}
		if len(p.Hosts) > 0 {
			b.WriteString(", Hosts: []PlatformHosts{\n")
			for _, g := range p.Hosts {
				fmt.Fprintf(&b, "\t\t{Names: %s, Subdomains: %t, Product: %s, Source: %s},\n", q(g.Names), g.Subdomains, strconv.Quote(g.Product), strconv.Quote(g.Source))
			}
			b.WriteString("\t}")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting generated code: %w", err)
	}
	return out, nil
}

package identity_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
)

// formats are documents in the formats the operators of the bot catalogue publish (see
// testdata/README.md), by format and selector, with addresses each must and must not hold.
var formats = []struct {
	format, selector, file string
	in, out                []string
}{
	{"json", `$.prefixes[*][\"ipv6Prefix\",\"ipv4Prefix\"]`, "googlebot.json",
		[]string{"66.249.64.5", "66.249.64.63", "66.249.79.255", "2001:4860:4801:10::1", "2001:4860:4801:11:ffff::1", "::ffff:66.249.64.1"},
		[]string{"66.249.64.64", "66.249.65.1", "2001:4860:4801:12::1", "8.8.8.8", "::1"}},
	{"json", `$.prefixes[*][\"ipv6Prefix\",\"ipv4Prefix\"]`, "bingbot.json", []string{"157.55.39.7", "40.77.167.255"}, []string{"157.55.40.1"}},
	{"json", `$.prefixes[*][\"ipv6Prefix\",\"ipv4Prefix\"]`, "gptbot.json", []string{"20.171.206.9", "2603:1030:a02:8::5"}, []string{"20.171.207.1"}},
	{"json", `$.prefixes[*].ipv4Prefix`, "perplexitybot.json", []string{"107.20.236.150", "3.224.62.45"}, []string{"107.20.236.151"}},
	{"json", `$.prefixes[*][\"ipv4Prefix\"]`, "perplexitybot.json", []string{"3.224.62.45"}, []string{"3.224.62.44"}},
	{"json", `$.synthetics[\"prefixes_ipv4\",\"prefixes_ipv6\"][*]`, "datadog-synthetics.json", []string{"3.18.172.189", "2600:1f18:243e:e400::9"}, []string{"3.18.172.190"}},
	{"json", `$.prefixes[?(@.service=="ROUTE53_HEALTHCHECKS")].ip_prefix`, "aws-ip-ranges.json", []string{"15.177.63.1", "54.251.31.129"}, []string{"3.2.34.1", "52.95.75.1", "2600:1f14:7ff:f800::1"}},
	{"json", `$.*[*]`, "newrelic-ip-ranges.json", []string{"3.145.224.99", "34.247.4.218"}, []string{"3.145.224.101"}},
	{"json", `$.WEBHOOKS[*]`, "stripe-webhooks.json", []string{"3.18.12.63", "13.235.14.237"}, []string{"3.18.12.64"}},
	{"json", `$[*]`, "checkly-static-ips.json", []string{"3.101.26.118", "2600:1f18:4eb4:3200::1"}, []string{"3.101.26.119"}},
	{"json", `$[*]`, "cookiehub-scanner-ips.json", []string{"34.243.13.4"}, []string{"34.243.13.5"}},
	{"json", `$[*].ip`, "statuscake-locations.json", []string{"45.63.85.149", "178.62.78.199"}, []string{"2001:19f0:6401:a6e::1"}},
	{"text", "", "cloudflare-ips-v4.txt", []string{"104.16.0.1", "104.23.255.255", "131.0.75.1", "173.245.63.255"}, []string{"104.15.255.255", "131.0.76.0"}},
	{"text", "", "cloudflare-ips-v6.txt", []string{"2606:4700::1", "2a06:98c7:ffff::1"}, []string{"2a06:98c8::1"}},
	{"text", "", "pingdom-probes-ipv4.txt", []string{"23.22.2.46"}, []string{"23.22.2.47"}},
	{"text", "", "pingdom-probes-ipv6.txt", []string{"2a0d:5600:30:2::2"}, []string{"2a0d:5600:30:2::3"}},
	{"csv", "", "facebook-geofeed.csv", []string{"31.13.24.1", "66.220.159.255", "2a03:2880:f0ff::1"}, []string{"31.13.32.1", "2a03:2881::1"}},
}

func TestPublishedFormats(t *testing.T) {
	for _, f := range formats {
		body, err := os.ReadFile(filepath.Join("testdata", f.file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := identity.ParsePrefixes(f.format, f.selector, body)
		if err != nil {
			t.Errorf("%s: %v", f.file, err)
			continue
		}
		for _, a := range f.in {
			if !p.Contains(netip.MustParseAddr(a)) {
				t.Errorf("%s (%s): %s not in the list", f.file, f.selector, a)
			}
		}
		for _, a := range f.out {
			if p.Contains(netip.MustParseAddr(a)) {
				t.Errorf("%s (%s): %s in the list", f.file, f.selector, a)
			}
		}
		// CRLF line ends read the same.
		if f.format != "json" {
			q, err := identity.ParsePrefixes(f.format, "", []byte(strings.ReplaceAll(string(body), "\n", "\r\n")))
			if err != nil || q.Len() != p.Len() {
				t.Errorf("%s with CRLF: %v", f.file, err)
			}
		}
	}
}

// TestCatalogueSourcesReadable: every format and selector the bot catalogue names has a
// document above, so every operator's list can be read.
func TestCatalogueSourcesReadable(t *testing.T) {
	n := 0
	for _, b := range crawlers.Bots() {
		for _, s := range b.Verification.IPRanges {
			n++
			if !slices.ContainsFunc(formats, func(f struct {
				format, selector, file string
				in, out                []string
			}) bool {
				return f.format == s.Format && f.selector == s.Selector
			}) {
				t.Errorf("%s: %s (%s %q) has no test document", b.ID, s.URL, s.Format, s.Selector)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d sources in the catalogue", n)
	}
}

func TestRefusedLists(t *testing.T) {
	for _, c := range []struct{ format, selector, body, want string }{
		{"text", "", "0.0.0.0/0\n", "shorter than /8"},
		{"text", "", "66.249.64.0/27\n::/0\n", "shorter than /24"},
		{"text", "", "10.0.0.0/7\n", "shorter than /8"},
		{"text", "", "66.249.64.0/27\nnot-an-ip\n", `"not-an-ip" is neither`},
		{"text", "", "fe80::1%eth0\n", "neither"},
		{"text", "", "# only a comment\n\n", "no prefix"},
		{"csv", "", ",US\n", "no prefix in the first column"},
		{"json", `$.prefixes[*].ipv4Prefix`, `{"prefixes": []}`, "no prefix"},
		{"json", `$.prefixes[*].ipv4Prefix`, `{"prefixes": [{"ipv4Prefix": 7}]}`, "not a prefix string"},
		{"json", `$.prefixes[*].ipv4Prefix`, `<html>`, "not a JSON document"},
		{"json", `$[*]`, `["1.2.3.0/24"] {"garbage"`, "data after it"},
		{"json", `$[*]`, `["1.2.3.0/24"]]]]`, "data after it"},
		{"json", `prefixes`, `{}`, `must start with "$"`},
		{"json", `$.a[?(@.b=c)]`, `{}`, "a filter must be"},
		{"json", `$.a["b]`, `{}`, "unterminated member list"},
		{"xml", "", "", "unknown format"},
	} {
		_, err := identity.ParsePrefixes(c.format, c.selector, []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePrefixes(%s, %q, %q) = %v, want an error saying %q", c.format, c.selector, c.body, err, c.want)
		}
	}
}

// TestContainsIsLinearScan: Contains agrees with asking every prefix, over overlapping,
// nested and adjacent prefixes of both families.
func TestContainsIsLinearScan(t *testing.T) {
	prefixes := []string{"10.0.0.0/24", "10.0.1.0/24", "10.0.0.128/25", "10.0.3.0/30", "192.0.2.7/32", "2001:db8::/48", "2001:db8:0:1::/64", "2001:db8:1::/48"}
	p, err := identity.ParsePrefixes("text", "", []byte(strings.Join(prefixes, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if v4, v6 := p.Spans(); v4 != 3 || v6 != 1 {
		t.Errorf("spans %d, %d; want 10.0.0.0-10.0.1.255, 10.0.3.0/30, 192.0.2.7 and one IPv6 span", v4, v6)
	}
	var probes []netip.Addr
	for _, s := range prefixes {
		pf := netip.MustParsePrefix(s)
		a := pf.Addr()
		probes = append(probes, a, a.Prev(), a.Next())
		for a2 := a; pf.Contains(a2); a2 = a2.Next() {
			a = a2
			if a2.Is6() && a2.Compare(pf.Addr().Next().Next().Next()) > 0 {
				break
			}
		}
		probes = append(probes, a, a.Next())
	}
	probes = append(probes, netip.MustParseAddr("10.0.2.0"), netip.MustParseAddr("10.0.1.255"), netip.MustParseAddr("2001:db8:0:ffff:ffff:ffff:ffff:ffff"), netip.MustParseAddr("2001:db8:2::"))
	for _, a := range probes {
		if !a.IsValid() {
			continue
		}
		want := slices.ContainsFunc(prefixes, func(s string) bool { return netip.MustParsePrefix(s).Contains(a) })
		if got := p.Contains(a); got != want {
			t.Errorf("Contains(%s) = %v, want %v", a, got, want)
		}
	}
	if ll := mustParse(t, "text", "", "fe80::/64\n"); !ll.Contains(netip.MustParseAddr("fe80::1")) || ll.Contains(netip.MustParseAddr("fe80::1%eth0")) || (*identity.Prefixes)(nil).Contains(netip.MustParseAddr("10.0.0.1")) {
		t.Error("a zoned address, or a nil set, holds an address")
	}
	m := identity.Merge(p, mustParse(t, "text", "", "10.0.2.0/24\n"))
	// 10.0.2.0/24 joins 10.0.0.0-10.0.1.255 and 10.0.3.0/30 into one span.
	if v4, _ := m.Spans(); v4 != 2 || !m.Contains(netip.MustParseAddr("10.0.2.9")) || m.Len() != len(prefixes)+1 {
		t.Errorf("merged: %d spans, len %d", v4, m.Len())
	}
}

func mustParse(t *testing.T, format, selector, body string) *identity.Prefixes {
	t.Helper()
	p, err := identity.ParsePrefixes(format, selector, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func FuzzParsePrefixes(f *testing.F) {
	for _, x := range formats {
		body, err := os.ReadFile(filepath.Join("testdata", x.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(x.format, x.selector, string(body), "66.249.64.5")
	}
	f.Fuzz(func(t *testing.T, format, selector, body, addr string) {
		p, err := identity.ParsePrefixes(format, selector, []byte(body))
		if err != nil {
			return
		}
		a, err := netip.ParseAddr(addr)
		if err != nil {
			return
		}
		// Contains agrees with the prefixes read again one by one (text form of the set is
		// not kept, so compare with a parse of each line of a text list).
		if format == "text" {
			want := false
			for _, line := range strings.Split(body, "\n") {
				line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
				if line == "" || line[0] == '#' {
					continue
				}
				q, err := identity.ParsePrefixes("text", "", []byte(line))
				if err != nil {
					t.Fatalf("the list parsed but its line %q does not: %v", line, err)
				}
				want = want || q.Contains(a)
			}
			if got := p.Contains(a); got != want {
				t.Fatalf("Contains(%s) = %v, the lines one by one %v", a, got, want)
			}
		}
	})
}

// BenchmarkContains looks up addresses in a list of 10,000 prefixes of each family.
func BenchmarkContains(b *testing.B) {
	var lines []string
	for i := range 10000 {
		lines = append(lines, netip.AddrFrom4([4]byte{byte(20 + i>>8), byte(i), 0, 0}).String()+"/24")
		lines = append(lines, netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(i >> 8), byte(i)}).String()+"/48")
	}
	p, err := identity.ParsePrefixes("text", "", []byte(strings.Join(lines, "\n")))
	if err != nil {
		b.Fatal(err)
	}
	in, out, in6 := netip.MustParseAddr("30.7.0.9"), netip.MustParseAddr("30.7.1.9"), netip.MustParseAddr("2001:db8:1f:40::1")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if p.Contains(in) && !p.Contains(out) && p.Contains(in6) {
			n++
		}
	}
	if n == 0 {
		b.Fatal("the lookups answered wrong")
	}
}

// BenchmarkPrefixesMemory reports the memory a loaded list keeps (B/prefix): 10,000 IPv4
// and 10,000 IPv6 prefixes that do not merge, parsed and kept, heap measured after a GC.
func BenchmarkPrefixesMemory(b *testing.B) {
	var lines []string
	for i := range 10000 {
		lines = append(lines, netip.AddrFrom4([4]byte{byte(20 + i>>8), byte(i), 0, 0}).String()+"/24")
		lines = append(lines, netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(i >> 7), byte(i << 1)}).String()+"/48") // every other /48: no two merge
	}
	body := []byte(strings.Join(lines, "\n"))
	var kept *identity.Prefixes
	var perPrefix float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := identity.ParsePrefixes("text", "", body)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept = p
		perPrefix = float64(after.HeapAlloc-before.HeapAlloc) / float64(p.Len())
	}
	if v4, v6 := kept.Spans(); v4 != 10000 || v6 != 10000 {
		b.Fatalf("spans %d %d, want 10000 each", v4, v6)
	}
	b.ReportMetric(perPrefix, "B/prefix")
}

package webbotauth

import (
	"bufio"
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
)

// signedCase is a generated request with the signature base the generator expects, written
// by the test from the values it put in, not by Signature.Base.
type signedCase struct {
	raw    []string // request line and header lines, without CRLF
	input  string   // the Signature-Input member, label "wba"
	sig    []byte
	fields map[string]string // covered field names -> the header line name used
	comps  []string
}

// randCase builds a request with random covered components, header casing and line order,
// and signs the base it expects with priv.
func randCase(rng *rand.Rand, priv ed25519.PrivateKey, keyID string, created int64) signedCase {
	methods := []string{"GET", "POST", "HEAD", "PUT", "DELETE"}
	method := methods[rng.IntN(len(methods))]
	path := fmt.Sprintf("/p%d/%s", rng.IntN(1000), []string{"a", "b%20c", "d.html", ""}[rng.IntN(4)])
	type qp struct{ raw, name, enc string }
	qps := []qp{{"q=" + fmt.Sprint(rng.IntN(99)), "q", ""}, {"s=with+plus", "s", "with%20plus"}, {"t=a%2Fb", "t", "a%2Fb"}, {"u=x-y", "u", "x-y"}}
	rng.Shuffle(len(qps), func(i, j int) { qps[i], qps[j] = qps[j], qps[i] })
	nq := rng.IntN(len(qps) + 1)
	var rq []string
	for _, p := range qps[:nq] {
		rq = append(rq, p.raw)
	}
	query := strings.Join(rq, "&")
	target := path
	if query != "" {
		target += "?" + query
	}
	host := []string{"shop.example", "Shop.Example:443", "SHOP.example"}[rng.IntN(3)]
	values := map[string]string{
		`"@method"`:         method,
		`"@authority"`:      "shop.example",
		`"@scheme"`:         "https",
		`"@target-uri"`:     "https://shop.example" + target,
		`"@request-target"`: target,
		`"@path"`:           path,
		`"@query"`:          "?" + query,
	}
	for _, p := range qps[:nq] {
		enc := p.enc
		if p.name == "q" {
			enc = strings.TrimPrefix(p.raw, "q=")
		}
		values[`"@query-param";name="`+p.name+`"`] = enc
	}
	var lines []string
	fields := map[string]string{}
	for i := range 1 + rng.IntN(4) {
		name := fmt.Sprintf("x-field-%d", i)
		shown := casing(rng, name)
		v1 := fmt.Sprintf("v%d", rng.IntN(1e6))
		lines = append(lines, shown+": "+strings.Repeat(" ", rng.IntN(3))+v1+strings.Repeat(" ", rng.IntN(3)))
		value := v1
		if rng.IntN(3) == 0 {
			v2 := fmt.Sprintf("w%d", rng.IntN(1e6))
			lines = append(lines, casing(rng, name)+": "+v2)
			value += ", " + v2
		}
		values[`"`+name+`"`] = value
		fields[name] = shown
	}
	lines = append(lines, casing(rng, "signature-agent")+`: wba="https://agent.example"`)
	values[`"signature-agent";key="wba"`] = `"https://agent.example"`
	var comps []string
	for c := range values {
		if c == `"@authority"` || c == `"signature-agent";key="wba"` || rng.IntN(2) == 0 {
			comps = append(comps, c)
		}
	}
	// Map order is random; sorted first so that the rng alone decides the order.
	sortStrings(comps)
	rng.Shuffle(len(comps), func(i, j int) { comps[i], comps[j] = comps[j], comps[i] })
	params := fmt.Sprintf(`(%s);created=%d;expires=%d;keyid="%s";tag="web-bot-auth"`, strings.Join(comps, " "), created, created+300, keyID)
	if rng.IntN(2) == 0 {
		params += fmt.Sprintf(`;nonce="n%d"`, rng.Uint64())
	}
	var base strings.Builder
	for _, c := range comps {
		base.WriteString(c + ": " + values[c] + "\n")
	}
	base.WriteString(`"@signature-params": ` + params)
	// Fields in random order; the lines of one field keep theirs (their values join in order).
	var order []string
	groups := map[string][]string{}
	for _, l := range lines {
		n := fieldName(l)
		if groups[n] == nil {
			order = append(order, n)
		}
		groups[n] = append(groups[n], l)
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	lines = lines[:0]
	for _, n := range order {
		lines = append(lines, groups[n]...)
	}
	raw := append([]string{method + " " + target + " HTTP/1.1", "Host: " + host}, lines...)
	return signedCase{raw: raw, input: "wba=" + params, sig: ed25519.Sign(priv, []byte(base.String())), fields: fields, comps: comps}
}

func fieldName(line string) string { n, _, _ := strings.Cut(line, ":"); return strings.ToLower(n) }

func casing(rng *rand.Rand, s string) string {
	b := []byte(s)
	for i := range b {
		if rng.IntN(2) == 0 {
			b[i] = strings.ToUpper(string(b[i]))[0]
		}
	}
	return string(b)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (c signedCase) request(t *testing.T, input, sig string) *http.Request {
	t.Helper()
	all := append(append([]string{}, c.raw...), "Signature-Input: "+input, "Signature: wba=:"+sig+":")
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(strings.Join(all, "\r\n") + "\r\n\r\n")))
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(all, "\n"))
	}
	return r
}

// TestSignedProperty: thousands of generated requests verify; each, changed in one place (a
// covered component's value, a parameter, a byte of the signature, the clock), is refused
// with the status that change calls for.
func TestSignedProperty(t *testing.T) {
	n := 3000
	if raceEnabled || testing.Short() {
		n = 300
	}
	pub, priv, _ := ed25519.GenerateKey(nil)
	id := mustThumbprint(t, pub)
	const created = 1_800_000_000
	clock := int64(created + 10)
	v, err := NewVerifier(Options{
		Agents: []Agent{{URL: "https://agent.example", Bot: "example-bot", Keys: []Key{{ID: id, Public: pub}}}},
		Now:    func() time.Time { return time.Unix(clock, 0) },
	})
	if err != nil {
		t.Fatal(err)
	}
	tgt := Target{Scheme: "https"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		c := randCase(rng, priv, id, created)
		sig := b64(c.sig)
		fail := func(what string, res Result, want Status) {
			t.Fatalf("case %d, %s: %+v, want %v\ncomponents %v\n%s\nSignature-Input: %s", i, what, res, want, c.comps, strings.Join(c.raw, "\n"), c.input)
		}
		if res := v.Verify(c.request(t, c.input, sig), tgt); res.Status != Verified || res.Bot != "example-bot" {
			fail("as signed", res, Verified)
		}
		// A covered component's value.
		comp := c.comps[rng.IntN(len(c.comps))]
		r := c.request(t, c.input, sig)
		want := Impostor
		switch {
		case comp == `"@method"`:
			r.Method += "X"
		case comp == `"@authority"` || comp == `"@target-uri"`:
			r.Host = "other.example"
		case comp == `"@scheme"`:
			tgt := Target{Scheme: "http"}
			if res := v.Verify(r, tgt); res.Status != Impostor {
				fail("scheme changed", res, Impostor)
			}
			r = nil
		case comp == `"@path"` || comp == `"@request-target"`:
			r.URL.Path += "x"
			r.URL.RawPath = ""
			r.RequestURI = strings.Replace(r.RequestURI, "/p", "/P", 1)
		case comp == `"@query"`:
			r.URL.RawQuery += "&z=1"
		case strings.HasPrefix(comp, `"@query-param"`):
			name := strings.TrimSuffix(strings.TrimPrefix(comp, `"@query-param";name="`), `"`)
			q := r.URL.Query()
			q.Set(name, "changed")
			r.URL.RawQuery = q.Encode()
		case comp == `"signature-agent";key="wba"`:
			r.Header.Set("Signature-Agent", `wba="https://agent.example/other"`)
			want = UnknownKey // another agent, of which this verifier knows no key
		default:
			name := strings.Trim(comp, `"`)
			if rng.IntN(2) == 0 {
				r.Header.Add(c.fields[name], "extra")
			} else {
				r.Header.Set(name, r.Header.Get(name)+"0")
			}
		}
		if r != nil {
			if res := v.Verify(r, tgt); res.Status != want {
				fail("changed "+comp, res, want)
			}
		}
		// A parameter.
		for _, p := range []struct {
			from, to string
			want     Status
		}{
			{fmt.Sprintf("created=%d", created), fmt.Sprintf("created=%d", created-1), Impostor},
			{fmt.Sprintf("expires=%d", created+300), fmt.Sprintf("expires=%d", created+299), Impostor},
			{`tag="web-bot-auth"`, `tag="web-bot-auth";x=1`, Impostor},
			{`keyid="` + id, `keyid="x` + id, UnknownKey},
			{`tag="web-bot-auth"`, `tag="other"`, Unsigned},
			{"(", `("@method" `, Impostor},
		} {
			in := strings.Replace(c.input, p.from, p.to, 1)
			if p.from == "(" && strings.Contains(c.input, `"@method"`) {
				in = strings.Replace(c.input, `"@method" `, "", 1)
				if in == c.input {
					continue // "@method" was last
				}
			}
			if res := v.Verify(c.request(t, in, sig), tgt); res.Status != p.want {
				fail("parameter "+p.to, res, p.want)
			}
		}
		// A byte of the signature.
		bad := append([]byte(nil), c.sig...)
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
		if res := v.Verify(c.request(t, c.input, b64(bad)), tgt); res.Status != Impostor {
			fail("signature byte", res, Impostor)
		}
		// The clock: past expires and the skew, and before created less the skew.
		for _, now := range []int64{created + 300 + 61, created - 61} {
			clock = now
			res := v.Verify(c.request(t, c.input, sig), tgt)
			clock = created + 10
			if res.Status != Expired {
				fail(fmt.Sprintf("clock %d", now), res, Expired)
			}
		}
	}
}

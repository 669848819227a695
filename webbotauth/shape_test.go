package webbotauth

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

// TestFieldShapeProperty: on generated Dictionaries (inner lists and items, parameters and
// strings holding commas, parentheses, quotes and backslashes, split over several lines at
// random), fieldShape counts the members and the longest inner list that httpsfv parses,
// without parsing.
func TestFieldShapeProperty(t *testing.T) {
	cases := 1500
	if raceEnabled || testing.Short() {
		cases = 150
	}
	rng := rand.New(rand.NewPCG(3, 21))
	nasty := []string{"a", "x, y", "(p)", `q"uote`, `back\slash`, "", " sp ", "),(", ";k=1"}
	str := func() string { return nasty[rng.IntN(len(nasty))] + nasty[rng.IntN(len(nasty))] }
	params := func() *httpsfv.Params {
		p := httpsfv.NewParams()
		for j := range rng.IntN(4) {
			var v any
			switch rng.IntN(4) {
			case 0:
				v = str()
			case 1:
				v = int64(rng.IntN(1 << 30))
			case 2:
				v = []byte(str())
			default:
				v = true
			}
			p.Add("p"+itoa(int64(j)), v)
		}
		return p
	}
	for i := range cases {
		d := httpsfv.NewDictionary()
		members := 1 + rng.IntN(10)
		longest := 0
		for m := range members {
			if rng.IntN(3) == 0 {
				d.Add("m"+itoa(int64(m)), httpsfv.Item{Value: str(), Params: params()})
				continue
			}
			l := httpsfv.InnerList{Params: params()}
			for range rng.IntN(70) {
				l.Items = append(l.Items, httpsfv.Item{Value: str(), Params: params()})
			}
			longest = max(longest, len(l.Items))
			d.Add("m"+itoa(int64(m)), l)
		}
		field, err := httpsfv.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		// Split into lines at some of the members' boundaries, as a client may send it.
		parsed, err := httpsfv.UnmarshalDictionary([]string{field})
		if err != nil || len(parsed.Names()) != members {
			t.Fatalf("case %d: %v", i, err)
		}
		var lines []string
		var line []string
		for _, name := range parsed.Names() {
			m, _ := parsed.Get(name)
			one := httpsfv.NewDictionary()
			one.Add(name, m)
			s, _ := httpsfv.Marshal(one)
			line = append(line, s)
			if rng.IntN(3) == 0 {
				lines = append(lines, strings.Join(line, ", "))
				line = nil
			}
		}
		if line != nil {
			lines = append(lines, strings.Join(line, ", "))
		}
		if again, err := httpsfv.UnmarshalDictionary(lines); err != nil || len(again.Names()) != members {
			t.Fatalf("case %d: the lines do not parse back: %v", i, err)
		}
		size, gotMembers, gotItems := fieldShape(lines, math.MaxInt)
		if size != len(strings.Join(lines, ", ")) {
			t.Fatalf("case %d: size %d, want %d", i, size, len(strings.Join(lines, ", ")))
		}
		if gotMembers != members || gotItems != longest {
			t.Fatalf("case %d: %d members, %d items; httpsfv %d and %d\n%q", i, gotMembers, gotItems, members, longest, lines)
		}
	}
}

// TestSignatureFieldBounds: each bound refuses exactly past it, before parsing, with a
// Reason naming the field; a field within every bound is parsed as before.
func TestSignatureFieldBounds(t *testing.T) {
	member := func(label string, comps int, nonceLen int) string {
		var c []string
		for i := range comps {
			c = append(c, `"x-`+itoa(int64(i))+`"`)
		}
		return label + `=(` + strings.Join(c, " ") + `);created=1;nonce="` + strings.Repeat("n", nonceLen) + `";tag="web-bot-auth"`
	}
	sigOf := func(labels ...string) string {
		var s []string
		for _, l := range labels {
			s = append(s, l+"=:"+b64(make([]byte, 64))+":")
		}
		return strings.Join(s, ", ")
	}
	base := len(member("s", 1, 0))
	for _, tc := range []struct {
		name, input, sig, want string
	}{
		{"at the size", member("s", 1, MaxFieldSize-base), sigOf("s"), ""},
		{"past the size", member("s", 1, MaxFieldSize-base+1), sigOf("s"), "Signature-Input of 4097 bytes, more than 4096"},
		{"at the members", strings.Repeat(member("s", 1, 0)+", ", MaxSignatures-1) + member("t", 1, 0), sigOf("s", "t"), ""},
		{"past the members", strings.Repeat(member("s", 1, 0)+", ", MaxSignatures) + member("t", 1, 0), sigOf("s", "t"), "Signature-Input has 9 members, more than 8"},
		{"at the components", member("s", MaxComponents, 0), sigOf("s"), ""},
		{"past the components", member("s", MaxComponents+1, 0), sigOf("s"), "Signature-Input covers 65 components in one signature, more than 64"},
		{"signature size", member("s", 1, 0), "s=:" + b64(make([]byte, MaxFieldSize)) + ":", "Signature of 5468 bytes, more than 4096"},
		{"signature members", member("s", 1, 0), sigOf("s", "a", "b", "c", "d", "e", "f", "g", "h"), "Signature has 9 members, more than 8"},
	} {
		h := http.Header{"Signature-Input": {tc.input}, "Signature": {tc.sig}}
		_, err := parseSignatures(h)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// Signature-Agent: refused past the size or the members, before it is parsed.
	s := Signature{Label: "sig1", Components: []Component{{Name: "signature-agent", Key: "sig1"}}}
	long := `sig1="https://agent.example/` + strings.Repeat("a", MaxFieldSize-len(`sig1="https://agent.example/"`)) + `"`
	if got, err := s.SignatureAgent(http.Header{"Signature-Agent": {long}}); err != nil || len(got) != MaxFieldSize-7 {
		t.Errorf("at the size: %q %v", got, err)
	}
	if _, err := s.SignatureAgent(http.Header{"Signature-Agent": {long + " "}}); err == nil || !strings.Contains(err.Error(), "4097 bytes") {
		t.Errorf("past the size: %v", err)
	}
	many := strings.Repeat(`a="https://a.example/", `, MaxSignatures) + `sig1="https://agent.example/"`
	if _, err := s.SignatureAgent(http.Header{"Signature-Agent": {many}}); err == nil || !strings.Contains(err.Error(), "9 members") {
		t.Errorf("past the members: %v", err)
	}
}

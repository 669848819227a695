package webbotauth

import (
	"net/http"
	"strings"
	"testing"
)

// hugeHeaders are requests whose signature fields are 16 KB, as anyone may send: many
// members, one long parameter, many components, a long Signature-Agent.
func hugeHeaders(tb testing.TB) map[string]*http.Request {
	const size = 16 << 10
	valid := `("@authority" "signature-agent";key="sig1");created=1800000000;expires=1800000300;keyid="k";tag="web-bot-auth"`
	mk := func(input, sig, agent string) *http.Request {
		r, _ := http.NewRequest("GET", "https://shop.example/", nil)
		r.Header.Set("Signature-Input", input)
		r.Header.Set("Signature", sig)
		r.Header.Set("Signature-Agent", agent)
		return r
	}
	var members []string
	for i := 0; len(strings.Join(members, ", ")) < size; i++ {
		members = append(members, "s"+itoa(int64(i))+"="+valid)
	}
	var comps []string
	for i := 0; len(strings.Join(comps, " ")) < size; i++ {
		comps = append(comps, `"x-h`+itoa(int64(i))+`"`)
	}
	sig := "sig1=:" + b64(make([]byte, 64)) + ":"
	agent := `sig1="https://agent.example/"`
	return map[string]*http.Request{
		"members":    mk(strings.Join(members, ", "), sig, agent),
		"nonce":      mk("sig1="+valid+`;nonce="`+strings.Repeat("n", size)+`"`, sig, agent),
		"components": mk("sig1=("+strings.Join(comps, " ")+`);tag="web-bot-auth"`, sig, agent),
		"agent":      mk("sig1="+valid, sig, `sig1="https://agent.example/`+strings.Repeat("a", size)+`"`),
		"signature":  mk("sig1="+valid, "sig1=:"+b64(make([]byte, size*3/4))+":", agent),
	}
}

// BenchmarkVerifyHugeHeader: a request with a 16 KB signature field is refused for what it
// weighs, before it is parsed.
func BenchmarkVerifyHugeHeader(b *testing.B) {
	v, err := NewVerifier(Options{Agents: []Agent{rfcAgent(b)}, AllowTestKeys: true, Nonces: NewNonces(0), Now: at(1_800_000_000)})
	if err != nil {
		b.Fatal(err)
	}
	for name, r := range hugeHeaders(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v.Verify(r, Target{})
			}
		})
	}
}

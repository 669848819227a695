package webbotauth

import (
	"bufio"
	"crypto/ed25519"
	"net/http"
	"strings"
	"testing"
	"time"
)

// raceEnabled is set when the tests are built with the race detector (race_test.go): the
// property test runs at a tenth of its size there.
var raceEnabled bool

func rfcAgent(t testing.TB) Agent {
	return Agent{URL: "https://signature-agent.test", Bot: "test-agent",
		Keys: []Key{{ID: rfc9421Thumbprint, Public: rfc9421Ed25519(t)}}}
}

func at(sec int64) func() time.Time { return func() time.Time { return time.Unix(sec, 0) } }

// TestDraftVectors are the Ed25519 test vectors of draft-ietf-webbotauth-httpsig-protocol-01
// ("Test Vectors", "EdDSA Using Curve edwards25519") over RFC 9421's test request: the
// Dictionary Signature-Agent and the legacy String form, each verified with the RFC 9421 key,
// then refused once the agent's member or the authority is changed.
func TestDraftVectors(t *testing.T) {
	for _, tc := range []struct {
		name, agent, input, sig, base string
	}{
		{"dictionary", `agent2="https://signature-agent.test"`,
			`sig2=("@authority" "signature-agent";key="agent2");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"`,
			`sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:`,
			`"@authority": example.com
"signature-agent";key="agent2": "https://signature-agent.test"
"@signature-params": ("@authority" "signature-agent";key="agent2");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"`},
		{"legacy string", `"https://signature-agent.test"`,
			`sig2=("@authority" "signature-agent");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"`,
			`sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:`,
			`"@authority": example.com
"signature-agent": "https://signature-agent.test"
"@signature-params": ("@authority" "signature-agent");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rfc9421Request(t, "Signature-Agent: "+tc.agent+"\r\n", "Signature-Input: "+tc.input+"\r\n", "Signature: "+tc.sig+"\r\n")
			sigs, err := ParseSignatures(r.Header)
			if err != nil {
				t.Fatal(err)
			}
			base, err := sigs[0].Base(r, Target{})
			if err != nil || string(base) != tc.base {
				t.Fatalf("base %v:\n%s\nwant:\n%s", err, base, tc.base)
			}
			if _, err := NewVerifier(Options{Agents: []Agent{rfcAgent(t)}}); err == nil {
				t.Fatal("the RFC's test key is accepted in a configuration")
			}
			v, err := NewVerifier(Options{Agents: []Agent{rfcAgent(t)}, Now: at(1735689600 + 30), MaxValidity: 100 * 365 * 24 * time.Hour, AllowTestKeys: true})
			if err != nil {
				t.Fatal(err)
			}
			res := v.Verify(r, Target{})
			if res.Status != Verified || res.Bot != "test-agent" || res.Agent != "https://signature-agent.test/" || res.KeyID != rfc9421Thumbprint || res.Label != "sig2" {
				t.Fatalf("%+v", res)
			}
			if res := v.Verify(r, Target{Authority: "example.org"}); res.Status != Impostor {
				t.Errorf("another authority: %+v", res)
			}
			r.Header.Set("Signature-Agent", strings.Replace(tc.agent, "signature-agent.test", "signature-agent.test/x", 1))
			if res := v.Verify(r, Target{}); res.Status != UnknownKey {
				t.Errorf("another agent: %+v", res)
			}
			// Under the default 24 h bound the dictionary vector (expires in 2124) is refused.
			v, _ = NewVerifier(Options{Agents: []Agent{rfcAgent(t)}, Now: at(1735689600 + 30), AllowTestKeys: true})
			r.Header.Set("Signature-Agent", tc.agent)
			want := Verified
			if tc.name == "dictionary" {
				want = Expired
			}
			if res := v.Verify(r, Target{}); res.Status != want {
				t.Errorf("default bounds: %+v, want %v", res, want)
			}
		})
	}
}

// TestVerifyStatuses: each outcome of Verify on one signed request, changed in one way.
func TestVerifyStatuses(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	id := mustThumbprint(t, pub)
	const now = 1_800_000_000
	sign := func(input string, agent string) *http.Request {
		r, _ := http.NewRequest("GET", "https://shop.example/items?id=7", nil)
		if agent != "" {
			r.Header.Set("Signature-Agent", agent)
		}
		r.Header.Set("Signature-Input", "sig="+input)
		r.Header.Set("Signature", "sig=:AAAA:")
		sigs, err := ParseSignatures(r.Header)
		if err != nil {
			t.Fatal(err)
		}
		base, err := sigs[0].Base(r, Target{})
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Signature", "sig=:"+b64(ed25519.Sign(priv, base))+":")
		return r
	}
	params := func(created, expires int64, extra string) string {
		return `("@authority" "@path" "signature-agent";key="sig");created=` + itoa(created) + `;expires=` + itoa(expires) + `;keyid="` + id + `";tag="web-bot-auth"` + extra
	}
	good := params(now-10, now+300, "")
	agent := `sig="https://agent.example"`
	v, err := NewVerifier(Options{Agents: []Agent{{URL: "https://agent.example/", Bot: "example-bot", Keys: []Key{{ID: id, Public: pub}}}}, Now: at(now)})
	if err != nil {
		t.Fatal(err)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	for _, tc := range []struct {
		name string
		r    *http.Request
		want Status
	}{
		{"verified", sign(good, agent), Verified},
		{"unsigned", func() *http.Request { r, _ := http.NewRequest("GET", "https://shop.example/", nil); return r }(), Unsigned},
		{"other tag", sign(strings.Replace(good, "web-bot-auth", "other", 1), agent), Unsigned},
		{"untrusted agent", sign(good, `sig="https://other.example"`), UnknownKey},
		{"expired", sign(params(now-1000, now-100, ""), agent), Expired},
		{"future", sign(params(now+100, now+400, ""), agent), Expired},
		{"too long", sign(params(now-10, now+25*3600, ""), agent), Expired},
		{"no expires", sign(`("@authority" "signature-agent";key="sig");created=`+itoa(now)+`;keyid="`+id+`";tag="web-bot-auth"`, agent), Expired},
		{"no authority", sign(`("@path" "signature-agent";key="sig");created=`+itoa(now)+`;expires=`+itoa(now+60)+`;keyid="`+id+`";tag="web-bot-auth"`, agent), Malformed},
		{"rsa", sign(params(now-10, now+300, `;alg="rsa-pss-sha512"`), agent), Malformed},
		{"agent not covered", sign(`("@authority");created=`+itoa(now)+`;expires=`+itoa(now+60)+`;keyid="`+id+`";tag="web-bot-auth"`, agent), Malformed},
		{"unknown keyid", sign(strings.Replace(good, id, mustThumbprint(t, other), 1), agent), UnknownKey},
		{"no agent, configured key", sign(`("@authority");created=`+itoa(now)+`;expires=`+itoa(now+60)+`;keyid="`+id+`";tag="web-bot-auth"`, ""), Signed},
		{"malformed field", func() *http.Request { r := sign(good, agent); r.Header.Set("Signature-Input", "sig=("); return r }(), Malformed},
		{"impostor", func() *http.Request { r := sign(good, agent); r.URL.Path = "/other"; return r }(), Impostor},
	} {
		got := v.Verify(tc.r, Target{})
		if got.Status != tc.want {
			t.Errorf("%s: %+v, want %v", tc.name, got, tc.want)
		} else if (got.Status == Verified) != (got.Reason == "") {
			t.Errorf("%s: %+v", tc.name, got)
		}
		// The bot is the trusted agent's whenever the signature names it.
		if wantBot := tc.r.Header.Get("Signature-Agent") == agent && got.Agent != ""; (got.Bot == "example-bot") != wantBot {
			t.Errorf("%s: bot %q", tc.name, got.Bot)
		}
	}
}

// TestNonces: a nonce verifies once within its validity; the store stays bounded.
func TestNonces(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	id := mustThumbprint(t, pub)
	const now = 1_800_000_000
	n := NewNonces(2)
	v, _ := NewVerifier(Options{Agents: []Agent{{URL: "https://agent.example", Bot: "b", Keys: []Key{{ID: id, Public: pub}}}}, Now: at(now), Nonces: n, RequireNonce: true})
	req := func(nonce string) *http.Request {
		r, _ := http.NewRequest("GET", "https://shop.example/", nil)
		r.Header.Set("Signature-Agent", `sig="https://agent.example"`)
		in := `("@authority" "signature-agent";key="sig");created=` + itoa(now) + `;expires=` + itoa(now+60) + `;keyid="` + id + `";tag="web-bot-auth"`
		if nonce != "" {
			in += `;nonce="` + nonce + `"`
		}
		r.Header.Set("Signature-Input", "sig="+in)
		r.Header.Set("Signature", "sig=:AA==:")
		sigs, _ := ParseSignatures(r.Header)
		base, _ := sigs[0].Base(r, Target{})
		r.Header.Set("Signature", "sig=:"+b64(ed25519.Sign(priv, base))+":")
		return r
	}
	for i, tc := range []struct {
		nonce string
		want  Status
	}{{"a", Verified}, {"a", Replayed}, {"b", Verified}, {"c", Replayed}, {"", Malformed}} {
		if got := v.Verify(req(tc.nonce), Target{}); got.Status != tc.want {
			t.Errorf("%d %q: %+v, want %v", i, tc.nonce, got, tc.want)
		}
	}
	if n.Len() != 2 {
		t.Errorf("%d nonces kept", n.Len())
	}
}

// TestVerifyOtherSigners: a member of another signer that this package cannot read (a
// component it does not compute, a parameter of the wrong type) does not spoil the
// web-bot-auth signature beside it; a web-bot-auth member it cannot read is Malformed.
func TestVerifyOtherSigners(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	id := mustThumbprint(t, pub)
	const now = 1_800_000_000
	v, _ := NewVerifier(Options{Agents: []Agent{{URL: "https://agent.example", Bot: "b", Keys: []Key{{ID: id, Public: pub}}}}, Now: at(now)})
	for _, tc := range []struct {
		other    string
		want     Status
		parseErr bool // ParseSignatures refuses the member
	}{
		{`other=("@authority";tr);created=1`, Verified, true},
		{`other=("@method");created="x"`, Verified, true},
		{`other=("@method" "@method");tag="web-bot-auth"`, Verified, true}, // the best result wins
		{`other=("@status");tag="web-bot-auth"`, Verified, false},          // an error of the base only
	} {
		r, _ := http.NewRequest("GET", "https://shop.example/", nil)
		r.Header.Set("Signature-Agent", `sig="https://agent.example"`)
		r.Header.Set("Signature-Input", `sig=("@authority" "signature-agent";key="sig");created=`+itoa(now)+`;expires=`+itoa(now+60)+`;keyid="`+id+`";tag="web-bot-auth"`)
		r.Header.Set("Signature", "sig=:AA==:")
		sigs, _ := ParseSignatures(r.Header)
		base, _ := sigs[0].Base(r, Target{})
		r.Header.Set("Signature", "sig=:"+b64(ed25519.Sign(priv, base))+":, other=:AA==:")
		r.Header.Add("Signature-Input", tc.other)
		if res := v.Verify(r, Target{}); res.Status != tc.want || res.Label != "sig" {
			t.Errorf("%s: %+v", tc.other, res)
		}
		if _, err := ParseSignatures(r.Header); (err != nil) != tc.parseErr {
			t.Errorf("%s: ParseSignatures: %v", tc.other, err)
		}
		// Alone, the unreadable web-bot-auth member is Malformed.
		r.Header.Set("Signature-Input", tc.other)
		if res := v.Verify(r, Target{}); tc.parseErr && strings.Contains(tc.other, Tag) && res.Status != Malformed {
			t.Errorf("%s alone: %+v", tc.other, res)
		}
	}
}

// TestTargetURIAbsoluteForm: a request to a proxy names the absolute URI in its request
// line; "@target-uri" is still scheme, authority, path and query once.
func TestTargetURIAbsoluteForm(t *testing.T) {
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET https://shop.example/a?b=c HTTP/1.1\r\nHost: shop.example\r\n\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	s := oneSignature(t, `s=("@target-uri" "@request-target")`, "s=:AA==:")
	base, err := s.Base(r, Target{Scheme: "https"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\"@target-uri\": https://shop.example/a?b=c\n\"@request-target\": https://shop.example/a?b=c\n"; !strings.HasPrefix(string(base), want) {
		t.Errorf("%q", base)
	}
}

// TestVerifyOffline: an Offline verifier trusts an agent configured without keys, fetches
// nothing, and says its signatures' keys come from its directory; a configured key still
// verifies; Offline with a Directory is refused.
func TestVerifyOffline(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	id := mustThumbprint(t, pub)
	const now = 1_800_000_000
	v, err := NewVerifier(Options{Offline: true, Now: at(now), Agents: []Agent{
		{URL: "https://dir.example", Bot: "d"},
		{URL: "https://keys.example", Bot: "k", Keys: []Key{{ID: id, Public: pub}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sign := func(agent string) *http.Request {
		r, _ := http.NewRequest("GET", "https://shop.example/", nil)
		r.Header.Set("Signature-Agent", `sig="`+agent+`"`)
		r.Header.Set("Signature-Input", `sig=("@authority" "signature-agent";key="sig");created=`+itoa(now)+`;expires=`+itoa(now+60)+`;keyid="`+id+`";tag="web-bot-auth"`)
		r.Header.Set("Signature", "sig=:AA==:")
		sigs, _ := ParseSignatures(r.Header)
		base, _ := sigs[0].Base(r, Target{})
		r.Header.Set("Signature", "sig=:"+b64(ed25519.Sign(priv, base))+":")
		return r
	}
	if res := v.Verify(sign("https://dir.example"), Target{}); res.Status != UnknownKey || res.Bot != "d" || !strings.Contains(res.Reason, "key directory") {
		t.Errorf("directory agent: %+v", res)
	}
	if res := v.Verify(sign("https://keys.example"), Target{}); res.Status != Verified || res.Bot != "k" {
		t.Errorf("configured key: %+v", res)
	}
	if _, err := NewVerifier(Options{Offline: true, Directory: NewDirectory(DirectoryOptions{})}); err == nil {
		t.Error("Offline with a Directory accepted")
	}
}

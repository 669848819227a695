package webbotauth

import (
	"errors"
	"net/http"
	"testing"
)

func TestNormalizeAgent(t *testing.T) {
	for in, want := range map[string]string{
		"https://Agent.Example":                   "https://agent.example/",
		"HTTPS://agent.example:443/":              "https://agent.example/",
		"https://agent.example:8443/keys?x=1":     "https://agent.example:8443/keys",
		"https://agent.example/jwks.json":         "https://agent.example/jwks.json",
		"https://signature-agent.test":            "https://signature-agent.test/",
		"https://agent.example/.well-known/x?y#z": "",
		"http://agent.example":                    "",
		"https://user@agent.example":              "",
		"/relative":                               "",
		"data:application/json,{}":                "",
	} {
		got, err := NormalizeAgent(in)
		if want == "" {
			if !errors.Is(err, ErrAgent) {
				t.Errorf("%s: %q %v, want ErrAgent", in, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
}

// TestSignatureAgent: the Dictionary member a signature covers, the String form, and the
// refusals.
func TestSignatureAgent(t *testing.T) {
	for _, tc := range []struct{ input, agent, want string }{
		{`sig2=("@authority" "signature-agent";key="agent2")`, `agent2="https://a.example"`, "https://a.example/"},
		{`sig=("@authority" "signature-agent";key="sig")`, `other="https://b.example", sig="https://a.example"`, "https://a.example/"},
		{`sig=("@authority" "signature-agent")`, `"https://a.example"`, "https://a.example/"},
		{`sig=("@authority" "signature-agent")`, `sig="https://a.example", x="https://b.example"`, "https://a.example/"},
		{`sig=("@authority")`, ``, ""},
		// Refused:
		{`sig=("@authority")`, `sig="https://a.example"`, "!"},
		{`sig=("@authority" "signature-agent";key="sig")`, `"https://a.example"`, "!"},
		{`sig=("@authority" "signature-agent";key="sig")`, `sig="http://a.example"`, "!"},
		{`sig=("@authority" "signature-agent";key="sig")`, `sig="https://a.example";p=1`, "!"},
		{`sig=("@authority" "signature-agent";key="sig")`, `sig=a`, "!"},
		{`sig=("@authority" "signature-agent";key="sig")`, `other="https://a.example"`, "!"},
		{`sig=("@authority" "signature-agent";key="a" "signature-agent";key="b")`, `a="https://a.example", b="https://b.example"`, "!"},
		{`sig=("@authority" "signature-agent")`, `a="https://a.example"`, "!"},
	} {
		h := http.Header{"Signature-Input": {tc.input}, "Signature": {"sig=:AA==:, sig2=:AA==:"}}
		if tc.agent != "" {
			h.Set("Signature-Agent", tc.agent)
		}
		sigs, err := ParseSignatures(h)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sigs[0].SignatureAgent(h)
		if tc.want == "!" {
			if !errors.Is(err, ErrAgent) {
				t.Errorf("%s / %s: %q %v, want ErrAgent", tc.input, tc.agent, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s / %s: %q %v, want %q", tc.input, tc.agent, got, err, tc.want)
		}
	}
}

package webbotauth

import (
	"testing"

	"github.com/dunglas/httpsfv"
)

// TestAcceptSignature: the value reads back, with httpsfv, as the request for a signature it
// stands for.
func TestAcceptSignature(t *testing.T) {
	v := AcceptSignature("sig1")
	if want := `sig1=("@authority" "signature-agent";key="sig1");created;expires;tag="web-bot-auth"`; v != want {
		t.Errorf("AcceptSignature = %s, want %s", v, want)
	}
	d, err := httpsfv.UnmarshalDictionary([]string{v})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := d.Get("sig1")
	il, isList := m.(httpsfv.InnerList)
	if !ok || !isList || len(il.Items) != 2 || il.Items[0].Value != "@authority" || il.Items[1].Value != "signature-agent" {
		t.Fatalf("members %#v", m)
	}
	if tag, _ := il.Params.Get("tag"); tag != Tag {
		t.Errorf("tag %v", tag)
	}
	for _, p := range []string{"created", "expires"} {
		if b, _ := il.Params.Get(p); b != true {
			t.Errorf("%s not asked for", p)
		}
	}
}

package webbotauth

import "github.com/dunglas/httpsfv"

// AcceptSignature is the value of an Accept-Signature field (RFC 9421 section 5.1) asking a
// client for a Web Bot Auth signature under label: over "@authority" and the Signature-Agent
// member of that label, with created and expires, tagged web-bot-auth. A server sends it with
// a refusal, so that a signing agent knows what to send.
func AcceptSignature(label string) string {
	agent := httpsfv.NewItem("signature-agent")
	agent.Params = httpsfv.NewParams()
	agent.Params.Add("key", label)
	list := httpsfv.InnerList{Items: []httpsfv.Item{httpsfv.NewItem("@authority"), agent}, Params: httpsfv.NewParams()}
	list.Params.Add("created", true)
	list.Params.Add("expires", true)
	list.Params.Add("tag", Tag)
	d := httpsfv.NewDictionary()
	d.Add(label, list)
	v, err := httpsfv.Marshal(d)
	if err != nil {
		panic("webbotauth: AcceptSignature: " + err.Error()) // only a label that is no key
	}
	return v
}

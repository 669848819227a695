package identity

import "github.com/sitepolicy/caddy-robots/webbotauth"

// WithSignature is the identity of a request whose User-Agent (and address) gave ua and whose
// Web Bot Auth signature was judged res (webbotauth.Verifier.Verify), and whether the
// signature decided it: a valid signature of a trusted agent verifies the agent's bot; one
// that fails against the agent's key makes the request an impostor, even one its address
// verified (the failure wins); a valid one from an agent the config does not know is Signed.
// Expired, malformed and replayed signatures, unknown keys and unreachable directories prove
// nothing either way: ua stands.
//
// A failing signature's identity is the claim it refutes: the bot of the trusted agent it
// names, or no bot ("") for an agent the config does not trust, whatever the User-Agent
// says (the User-Agent's claim is not what was checked); Failed is CheckSignature.
func WithSignature(ua Identity, res webbotauth.Result) (Identity, bool) {
	switch res.Status {
	case webbotauth.Verified:
		return Identity{Bot: res.Bot, Name: nameIf(ua, res.Bot), Status: Verified, By: "signature"}, true
	case webbotauth.Impostor:
		return Identity{Bot: res.Bot, Name: nameIf(ua, res.Bot), Status: Impostor, By: "signature", Failed: CheckSignature}, true
	case webbotauth.Signed:
		return Identity{Bot: ua.Bot, Name: ua.Name, Status: Signed, By: "signature"}, true
	}
	return ua, false
}

// nameIf is the name ua's User-Agent carries if it names bot: the crawler a signature
// decides for is the one the request names, or else none by name.
func nameIf(ua Identity, bot string) string {
	if ua.Bot == bot {
		return ua.Name
	}
	return ""
}

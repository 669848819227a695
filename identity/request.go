package identity

import (
	"net/http"
	"net/netip"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// Identifier assembles the crawler identity of a request, the one way every front end does:
// the crawler of the bot catalogue its User-Agent names (crawlers.IdentifyBotNameIndex),
// verified from the client's address, then judged by its Web Bot Auth signature
// (WithSignature). The zero value identifies nothing.
type Identifier struct {
	// Verifier, if set, verifies the crawler the User-Agent names (an identity.Service's
	// Verifier); nil: the User-Agent is not read, only a signature identifies.
	Verifier *Verifier
	// Signatures, if set, judges the request's Web Bot Auth signature.
	Signatures *webbotauth.Verifier
	// ClientAddr is the client's address as the front end trusts it (behind a reverse proxy,
	// the address the proxy reports, never a forwarding header a client can write); nil means
	// the connection's address (Request.RemoteAddr). It is asked only for a request whose
	// User-Agent names a crawler.
	ClientAddr func(*http.Request) netip.Addr
}

// Identify returns r's identity; ok is false when r's User-Agent names no crawler of the
// catalogue (or there is no Verifier) and no signature decides: a browser's request, which
// costs the header's scan and no allocation. name is the index in crawlers.BotNames of the
// name the identity carries (Identity.Name), for a caller keeping something per crawler in a
// slice; -1 when Name is "" (no name, or a signature decided for a bot the User-Agent does
// not name).
func (f *Identifier) Identify(r *http.Request) (id Identity, name int, ok bool) {
	name = -1
	if f.Verifier != nil {
		if bot, n, i, named := crawlers.IdentifyBotNameIndex(r.Header["User-Agent"]); named {
			id, name, ok = f.Verifier.VerifyName(bot, n, f.clientAddr(r)), i, true
		}
	}
	if f.Signatures != nil && len(r.Header["Signature-Input"]) > 0 {
		if sid, decided := WithSignature(id, f.Signatures.Verify(r, webbotauth.Target{})); decided {
			id, ok = sid, true
			if sid.Name == "" {
				name = -1
			}
		}
	}
	return id, name, ok
}

func (f *Identifier) clientAddr(r *http.Request) netip.Addr {
	if f.ClientAddr != nil {
		return f.ClientAddr(r)
	}
	return remoteAddr(r)
}

// remoteAddr is the address of r's connection (Request.RemoteAddr, "host:port" or a bare
// address), the zero Addr when it is neither.
func remoteAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		a, _ := netip.ParseAddr(r.RemoteAddr)
		return a
	}
	return ap.Addr()
}

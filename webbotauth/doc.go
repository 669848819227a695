// Package webbotauth verifies Web Bot Auth: HTTP Message Signatures (RFC 9421) as the IETF
// webbotauth working group profiles them for automated clients.
//
// It follows:
//
//   - RFC 9421, HTTP Message Signatures: sections 2 (components, the signature base of 2.5),
//     3 (verifying), 4 (the Signature-Input and Signature fields) and the Appendix B
//     examples, which the tests reproduce;
//   - draft-ietf-webbotauth-httpsig-protocol-01 (29 October 2026; it replaced
//     draft-meunier-webbotauth-httpsig-protocol and took in the key directory of
//     draft-meunier-webbotauth-httpsig-directory-00 / draft-meunier-http-message-signatures-directory):
//     the web-bot-auth tag, created and expires, the keyid as a JWK thumbprint, the
//     Signature-Agent Dictionary (and the earlier String form it still allows a verifier to
//     read), the JWK Set directory and its well-known URI, and its test vectors (read from the
//     working group's source, webbotauth/draft-ietf-webbotauth-httpsig-protocol at commit
//     5a71ee1f);
//   - RFC 7638 (JWK thumbprint) and RFC 8037 (OKP keys, Ed25519).
//
// Only Ed25519 is verified: it is what the deployed agents use, and a verifier that accepts
// fewer algorithms has fewer ways to be wrong.
//
// A request is read by ParseSignatures (httpsfv does all Structured Field parsing), its
// signature base built by Signature.Base exactly as RFC 9421 section 2.5 says, and judged by a
// Verifier, which knows the agents it trusts and their keys. docs/webbotauth.md says what is
// checked and what is not yet.
//
// The package never imports Caddy; the Caddy module and the net/http middleware are to call
// Verifier.Verify.
package webbotauth

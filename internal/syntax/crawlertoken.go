package syntax

// CrawlerToken reports whether s is a name a configuration may give a crawler: an RFC 9309
// product token, or one word of A-Z, a-z, 0-9, "_" and "-" with digits (AI2Bot, 360Spider),
// which operators document and their own parsers read whole. "*" is not one.
func CrawlerToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !IsTokenByte(c) && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// CrawlerTokenProblem is what every front end says about a value that is not a CrawlerToken.
const CrawlerTokenProblem = `a product token may contain only A-Z, a-z, 0-9, "_" and "-" (RFC 9309 product tokens have no digits; a name with digits is accepted with a warning), or be "*"`

// DigitTokenWarning is the warning for a CrawlerToken that is not a ProductToken: it holds a
// digit.
const DigitTokenWarning = `this name has digits, which RFC 9309 product tokens do not allow: a strict parser (Google's robots.txt library) reads it only up to the first digit ("AI" of "AI2Bot"), so only crawlers that read the whole name obey it`

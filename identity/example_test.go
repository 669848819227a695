package identity_test

import (
	"fmt"
	"net/netip"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
)

// A request claims Googlebot: the catalogue says where Google publishes its crawler's
// addresses and in which format; the list, once fetched, answers whether the request's
// address is Google's.
func ExampleParsePrefixes() {
	id, _ := crawlers.IdentifyBot("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
	bot, _ := crawlers.BotByID(id)
	src := bot.Verification.IPRanges[0]
	// The document at src.URL, fetched beforehand:
	body := []byte(`{"creationTime": "2026-11-20T14:46:03.000000", "prefixes": [{"ipv6Prefix": "2001:4860:4801:10::/64"}, {"ipv4Prefix": "66.249.64.0/27"}]}`)
	google, err := identity.ParsePrefixes(src.Format, src.Selector, body)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bot.ID, src.Format)
	fmt.Println(google.Contains(netip.MustParseAddr("66.249.64.7")), google.Contains(netip.MustParseAddr("203.0.113.9")))
	// Output:
	// google-crawler json
	// true false
}

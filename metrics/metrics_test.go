package metrics

import (
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// Every crawler crawlers.IdentifyBotName can name has a slot of its own, labelled with its
// bot's ID or, for a crawler only the AI catalogue knows, its name; a robots.txt group naming
// it (CrawlerNamed) counts in the same slot as a request whose header names it, in any case.
func TestEveryNamedCrawlerHasItsSlot(t *testing.T) {
	for _, bn := range crawlers.BotNames() {
		id, name, ok := crawlers.IdentifyBotName(bn.Name)
		if !ok {
			t.Errorf("%q names no crawler", bn.Name)
			continue
		}
		c := CrawlerIdentified(id, name)
		want := id
		if id == "" {
			want = name
		}
		if c == Other || c.Name() != want {
			t.Errorf("%q (%q, %q): slot %d %q", bn.Name, id, name, c, c.Name())
		}
		if got := CrawlerNamed(strings.ToUpper(bn.Name)); got != c {
			t.Errorf("CrawlerNamed(%q) = %q, a header naming it %q", strings.ToUpper(bn.Name), got.Name(), c.Name())
		}
	}
	if CrawlerNamed("NoSuchCrawlerAnywhere") != Other || CrawlerIdentified("", "NoSuchCrawlerAnywhere") != Other {
		t.Error("an unknown name has a slot")
	}
}

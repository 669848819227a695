package identity

import (
	"net/netip"
	"strings"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// Status is what is known of a request's claim to be a bot.
type Status uint8

const (
	// None: the User-Agent names no bot of the catalogue.
	None Status = iota
	// Unverifiable: it names a bot whose operator publishes no way to verify it; the claim
	// is all there is.
	Unverifiable
	// Pending: the answer is not known yet (the lists are not fetched, a reverse-DNS lookup
	// is in progress).
	Pending
	// Verified: the request comes from an address the operator publishes, or whose host
	// name is the operator's.
	Verified
	// Impostor: it names a bot whose operator publishes a way to verify it, and fails it;
	// or it carries a Web Bot Auth signature that fails against its agent's key.
	Impostor
	// Signed: it carries a valid Web Bot Auth signature from an agent the config does not
	// map to a bot of the catalogue: someone signs, who is not known.
	Signed
)

// MaxStatus is the last Status.
const MaxStatus = Signed

func (s Status) String() string {
	return [...]string{"none", "unverifiable", "pending", "verified", "impostor", "signed"}[s]
}

// Identity is who a request says it is and what is known of the claim.
type Identity struct {
	// Bot is the catalogue ID of the bot the User-Agent names ("" for none, and for a
	// crawler only the AI catalogue knows): the entry whose verification applies.
	Bot string
	// Name is the crawler's name the User-Agent carries, as the catalogue spells it
	// ("YandexBot"; crawlers.IdentifyBotName): what the request is, with that name's
	// categories (crawlers.LookupBotName), where Bot's entry may hold several crawlers. ""
	// when the User-Agent names none (a Signed request, or one a signature verified for a
	// bot it does not name).
	Name string
	// Status is what is known of the claim.
	Status Status
	// By says how a Verified status was reached: "ip" (an address the catalogue lists),
	// "ip-list" (the operator's published list), "reverse-dns" or "signature" (Web Bot Auth,
	// also for the Impostor and Signed a signature decided).
	By string
	// Failed, for an Impostor, is what was checked and failed: the checks that answered no
	// (Failure says it in words). 0 for any other status.
	Failed Checks
}

// Checks is a set of the ways a claim is checked, named as Identity.By names them.
type Checks uint8

const (
	// CheckIP: the catalogue's own addresses for the bot ("ip").
	CheckIP Checks = 1 << iota
	// CheckIPList: the operator's published address lists ("ip-list").
	CheckIPList
	// CheckReverseDNS: forward-confirmed reverse DNS against the operator's host names
	// ("reverse-dns").
	CheckReverseDNS
	// CheckSignature: the request's Web Bot Auth signature against its agent's key
	// ("signature").
	CheckSignature

	// AllChecks is every check.
	AllChecks = CheckIP | CheckIPList | CheckReverseDNS | CheckSignature
)

// String names the checks as Identity.By does, comma-separated ("ip-list,reverse-dns").
func (c Checks) String() string {
	return checkNames[c&AllChecks]
}

// checkNames are the Strings of every set, made once so that String allocates nothing.
var checkNames = func() (names [AllChecks + 1]string) {
	words := [...]string{"ip", "ip-list", "reverse-dns", "signature"}
	for c := range names {
		var ws []string
		for i, w := range words {
			if c&(1<<i) != 0 {
				ws = append(ws, w)
			}
		}
		names[c] = strings.Join(ws, ",")
	}
	return names
}()

// Failure says, for an Impostor, what was checked and failed, in words that name the claim
// checked: the bot the User-Agent names and its operator's addresses or host names, or the
// Web Bot Auth signature and its agent. It is the one text the refusal, its log line and
// `robots check` give. "" for any other status.
func (id Identity) Failure() string {
	if id.Status != Impostor {
		return ""
	}
	b, _ := crawlers.BotByID(id.Bot)
	name, operator := id.Name, "its operator's"
	if name == "" && len(b.Names) > 0 {
		name = b.Names[0]
	} else if name == "" {
		name = id.Bot
	}
	if b.Operator != "" {
		operator = b.Operator + "'s"
	}
	if id.Failed&CheckSignature != 0 {
		if id.Bot == "" {
			return "its Web Bot Auth signature, from an agent the config does not trust, does not verify against that agent's key"
		}
		return "its Web Bot Auth signature, from the agent trusted for " + name + ", does not verify against that agent's key"
	}
	var not []string
	switch id.Failed & (CheckIP | CheckIPList) {
	case CheckIP:
		not = append(not, "its address is not one of the catalogue's addresses for "+name)
	case CheckIPList:
		not = append(not, "its address is not in "+operator+" published address lists")
	case CheckIP | CheckIPList:
		not = append(not, "its address is neither one of the catalogue's addresses for "+name+" nor in "+operator+" published address lists")
	}
	if id.Failed&CheckReverseDNS != 0 {
		not = append(not, "its reverse DNS gives no host name of "+operator+" that resolves back to it")
	}
	if len(not) == 0 {
		// Not made by this package: say no more than the status.
		return "its User-Agent names " + name + ", which it failed to prove"
	}
	return "its User-Agent names " + name + ", but " + strings.Join(not, ", and ")
}

// botCheck is how one bot is verified.
type botCheck struct {
	inline  *Prefixes // the catalogue's fixed addresses; nil if none
	sources []string  // URLs of its published lists
	lists   []*list   // their state in the Verifier's Lists, by source (nil: not in them)
	masks   []string  // reverse-DNS host masks
}

// Verifier identifies requests: the crawler their User-Agent names (crawlers.IdentifyBotName) and,
// from the client address, whether the claim holds. Identify allocates nothing.
type Verifier struct {
	lists *Lists
	dns   *ReverseDNS
	bots  map[string]*botCheck
}

// Sources returns the published lists the catalogue names for bots (IDs; none means every
// bot), for NewLists: each URL once (several of an operator's bots share a list).
func Sources(bots ...string) []Source {
	var out []Source
	seen := map[string]bool{}
	for _, b := range crawlers.Bots() {
		if len(bots) > 0 && !contains(bots, b.ID) {
			continue
		}
		for _, s := range b.Verification.IPRanges {
			if !seen[s.URL] {
				seen[s.URL] = true
				out = append(out, Source{URL: s.URL, Format: s.Format, Selector: s.Selector})
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// NewVerifier returns a Verifier that reads the published lists from lists and checks host
// names with dns; either may be nil (that way of verifying is then not used, and a bot only
// it could verify stays Pending).
func NewVerifier(lists *Lists, dns *ReverseDNS) *Verifier {
	v := &Verifier{lists: lists, dns: dns, bots: map[string]*botCheck{}}
	for _, b := range crawlers.Bots() {
		c := &botCheck{masks: b.Verification.HostMasks}
		for _, s := range b.Verification.IPRanges {
			c.sources = append(c.sources, s.URL)
			if lists != nil {
				c.lists = append(c.lists, lists.lists[s.URL]) // found once, not per request
			}
		}
		if len(b.Verification.IPs) > 0 {
			if p, err := fromEntries(b.Verification.IPs); err == nil {
				c.inline = p
			}
		}
		if c.inline != nil || len(c.sources) > 0 || len(c.masks) > 0 {
			v.bots[b.ID] = c
		}
	}
	return v
}

// Identify returns the identity of a request with the given User-Agent header from client,
// the address of the client as the server trusts it (Caddy's client IP, never a raw
// forwarding header).
func (v *Verifier) Identify(userAgent string, client netip.Addr) Identity {
	id, name, ok := crawlers.IdentifyBotName(userAgent)
	if !ok {
		return Identity{}
	}
	return v.VerifyName(id, name, client)
}

// VerifyName is Verify for a request whose User-Agent carries name, a name of bot as
// crawlers.IdentifyBotName found them: the identity names the crawler it is. A crawler only
// the AI catalogue knows (bot "") is Unverifiable.
func (v *Verifier) VerifyName(bot, name string, client netip.Addr) Identity {
	id := v.Verify(bot, client)
	id.Name = name
	return id
}

// Verify returns the identity of a request from client that claims the bot of the catalogue
// whose ID is bot (as crawlers.IdentifyBot found it): Identify for a caller that has
// identified the bot already, and finds the client address only for requests that claim one.
func (v *Verifier) Verify(bot string, client netip.Addr) Identity {
	id := bot
	c := v.bots[id]
	if c == nil {
		return Identity{Bot: id, Status: Unverifiable}
	}
	client = client.Unmap()
	if !client.IsValid() {
		// No address the server trusts (a TLS early-data request, say): nothing is proven
		// either way.
		return Identity{Bot: id, Status: Pending}
	}
	if c.inline != nil && c.inline.Contains(client) {
		return Identity{Bot: id, Status: Verified, By: "ip"}
	}
	// Impostor needs an answer: the host names checked (the operator says its machines have
	// such names), or every published list of the bot trusted and without the address (one
	// missing list could hold it: an operator's IPv6 list, a list whose fetch failed), or the
	// catalogue's own addresses. failed is what answered no.
	var failed Checks
	if c.inline != nil {
		failed = CheckIP
	}
	missing := false
	if v.lists != nil {
		for _, li := range c.lists {
			p, ok := v.lists.prefixesOf(li)
			switch {
			case !ok:
				missing = true
			case p.Contains(client):
				return Identity{Bot: id, Status: Verified, By: "ip-list"}
			default:
				failed |= CheckIPList
			}
		}
	}
	if v.dns != nil && len(c.masks) > 0 {
		switch v.dns.Verify(client, c.masks) {
		case DNSVerified:
			return Identity{Bot: id, Status: Verified, By: "reverse-dns"}
		case DNSPending:
			return Identity{Bot: id, Status: Pending}
		case DNSFailed:
			return Identity{Bot: id, Status: Impostor, Failed: failed | CheckReverseDNS}
		}
	}
	if failed != 0 && !missing {
		return Identity{Bot: id, Status: Impostor, Failed: failed}
	}
	return Identity{Bot: id, Status: Pending}
}

// IdentifyWait is Identify for a one-off question (a check), never for a request: where the
// answer waits on a reverse-DNS lookup, it waits for the lookup (bounded by
// DNSOptions.Timeout) and answers from it, where Identify would answer Pending until a later
// request. The answer is then cached, so that Identify gives it too.
func (v *Verifier) IdentifyWait(userAgent string, client netip.Addr) Identity {
	id := v.Identify(userAgent, client)
	if id.Status == Pending && v.dns != nil {
		v.dns.Wait()
		id = v.Identify(userAgent, client)
	}
	return id
}

// ReverseDNS reports whether the Verifier checks host names (it has a ReverseDNS).
func (v *Verifier) ReverseDNS() bool { return v.dns != nil }

// ParseStatus reads a Status from its name (as String writes it).
func ParseStatus(s string) (Status, bool) {
	for st := None; st <= MaxStatus; st++ {
		if strings.EqualFold(st.String(), s) {
			return st, true
		}
	}
	return None, false
}

package policycheck

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
)

// Verification is what the site's crawler verification (Site.Crawlers) says of the request,
// and the state of what it verifies with.
type Verification struct {
	// ClientIP is the client address the request was verified from; "" when none was given.
	ClientIP string `json:"client_ip"`
	// Identity is the request's crawler identity.
	Identity Identity `json:"identity"`
	// ReverseDNS is true when the verification checks host names (forward-confirmed reverse
	// DNS); the check waits for the lookup where a server answers pending until it is in.
	ReverseDNS bool `json:"reverse_dns"`
	// Lists are the operators' published address lists the verification reads, as the check
	// found them; [] when the lists are off.
	Lists []CrawlerList `json:"lists"`
	// Signature is the account of the request's Web Bot Auth signature, when its header
	// lines carry one and the site verifies signatures (Site.Signatures).
	Signature *Signature `json:"signature,omitempty"`

	// signaturesOnly: the site verifies signatures and no crawlers (no lists to show).
	signaturesOnly bool
}

// Identity is the crawler identity of the request: the bot of the catalogue its User-Agent
// names (package crawlers) and what is known of the claim (package identity).
type Identity struct {
	// Bot is the catalogue ID of the bot ("google-crawler"); "" when the User-Agent names none.
	Bot string `json:"bot"`
	// Name is the crawler's name the User-Agent carries, as the catalogue spells it
	// ("YandexBot"; identity.Identity.Name): one entry may hold several crawlers.
	Name string `json:"name,omitempty"`
	// Operator is who runs the crawler ("Google"), if either catalogue says.
	Operator string `json:"operator,omitempty"`
	// Categories are the crawler's categories in the bot catalogue and that name's in the
	// AI catalogue, as the crawler matcher reads them ("search-engine"; "ai", "ai-training";
	// crawlers.BotName).
	Categories []string `json:"categories,omitempty"`
	// Status is "none", "unverifiable", "pending", "verified" or "impostor"
	// (identity.Status).
	Status string `json:"status"`
	// By says how a verified status was reached: "ip" (an address the catalogue lists),
	// "ip-list" (the operator's published list), "reverse-dns" or "signature" (also for an
	// impostor or signed status a signature decided).
	By string `json:"by,omitempty"`
	// Failed, for an impostor, names the checks that failed, comma-separated, in By's words
	// ("ip-list,reverse-dns", "signature"): what the refusal's log line gives after
	// "impostor: " (identity.Identity.Failed).
	Failed string `json:"failed,omitempty"`
	// Reason says why, in a few words.
	Reason string `json:"reason"`
}

// CrawlerList is the state of one published address list (identity.ListStatus).
type CrawlerList struct {
	// URL is where the operator publishes the list, as the bot catalogue names it.
	URL string `json:"url"`
	// Local is true when the list is read from a local file instead of fetched.
	Local bool `json:"local,omitempty"`
	// File is the local file, or where the list's copy is kept on disk; "" for neither.
	File string `json:"file,omitempty"`
	// Prefixes is the number of prefixes of the list in use; 0 when there is none.
	Prefixes int `json:"prefixes"`
	// Size is the size in bytes of its document.
	Size int `json:"size"`
	// Fetched is when the list in use was fetched (read, for a local file) or last confirmed
	// unchanged; absent when there is none.
	Fetched time.Time `json:"fetched,omitzero"`
	// AgeSeconds is how old the list in use is; 0 when there is none.
	AgeSeconds int64 `json:"age_seconds"`
	// Trusted is false when there is no list or it is older than the verification's maximum
	// age: it then verifies no one and proves no one an impostor.
	Trusted bool `json:"trusted"`
	// LastError is the last failure to fetch or read the list, if any.
	LastError string `json:"last_error,omitempty"`
}

// ClientAddr returns the address of ClientIP: the zero Addr (no address) for "", and a
// *RequestError for the field ClientIP when it is not an IP address.
func (r Request) ClientAddr() (netip.Addr, error) {
	if r.ClientIP == "" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(r.ClientIP)
	if err != nil {
		return netip.Addr{}, &RequestError{Field: "ClientIP", Value: r.ClientIP, Problem: "give the client's IP address as the server sees it (after its trusted proxies), e.g. 66.249.66.1 or 2001:db8::1"}
	}
	return a.WithZone(""), nil
}

// verify asks the site's verification who the request is, waiting for a reverse-DNS answer
// where a server would answer pending until it is in (identity.Verifier.IdentifyWait).
func verify(svc *identity.Service, req Request, addr netip.Addr) (*Verification, identity.Identity) {
	id := svc.IdentifyWait(req.Agent, addr)
	v := &Verification{ClientIP: req.ClientIP, ReverseDNS: svc.ReverseDNS(), Lists: []CrawlerList{}}
	for _, st := range svc.Lists() {
		v.Lists = append(v.Lists, CrawlerList{URL: st.Source.URL, Local: st.Local, File: st.File, Prefixes: st.Prefixes, Size: st.Size,
			Fetched: st.Fetched.UTC().Truncate(time.Second), AgeSeconds: int64(st.Age / time.Second), Trusted: st.Trusted, LastError: st.LastError})
	}
	v.describe(id, addr)
	return v, id
}

// describe makes id the verification's identity, with the bot's names and why.
func (v *Verification) describe(id identity.Identity, addr netip.Addr) {
	v.Identity = Identity{Bot: id.Bot, Status: id.Status.String(), By: id.By, Failed: id.Failed.String()}
	bot, _ := crawlers.BotByID(id.Bot)
	name := id.Name
	if name == "" && len(bot.Names) > 0 {
		name = bot.Names[0] // a signature's bot the User-Agent does not name
	}
	if bn, ok := crawlers.LookupBotName(id.Bot, name); ok {
		v.Identity.Name, v.Identity.Operator = bn.Name, bn.Operator
		if len(bn.Categories) > 0 {
			v.Identity.Categories = bn.Categories
		}
	}
	v.Identity.Reason = v.reason(id, bot, addr)
}

// byDNS reports whether reverse DNS answered for the bot: the check looked the address up,
// where a server answers pending until its own lookup is in.
func (v *Verification) byDNS(id identity.Identity, bot crawlers.Bot) bool {
	return v.ReverseDNS && len(bot.Verification.HostMasks) > 0 &&
		(id.Failed&identity.CheckReverseDNS != 0 || id.Status == identity.Verified && id.By == "reverse-dns")
}

// reason says why the verification answered id for addr.
func (v *Verification) reason(id identity.Identity, bot crawlers.Bot, addr netip.Addr) string {
	operator, list := "its operator", possessive(bot.Operator)+" published list"
	if v.Identity.Operator != "" {
		operator = v.Identity.Operator // a crawler only the AI catalogue knows has no bot
	}
	lists := map[string]CrawlerList{}
	for _, l := range v.Lists {
		lists[l.URL] = l
	}
	switch id.Status {
	case identity.None:
		return "the User-Agent names no bot of the catalogue"
	case identity.Unverifiable:
		return operator + " publishes no addresses or host names to verify it by"
	case identity.Verified:
		switch id.By {
		case "ip":
			return addr.String() + " is one of the catalogue's addresses for " + v.Identity.Name
		case "ip-list":
			return addr.String() + " is in " + list
		}
		return addr.String() + "'s host name is " + possessive(bot.Operator) + " and resolves back to it"
	case identity.Impostor:
		// The refusal's own words (serve.Block.Message), so that check and the server agree.
		return id.Failure()
	}
	// Pending: say what is missing.
	if !addr.IsValid() {
		return "no client address: the claim cannot be verified without one"
	}
	var why []string
	for _, s := range bot.Verification.IPRanges {
		l, ok := lists[s.URL]
		switch {
		case !ok:
			why = append(why, list+" is not read (the lists are off, or offline without it)")
		case l.Prefixes == 0:
			why = append(why, list+" is missing")
		case !l.Trusted:
			why = append(why, list+" is too old to be trusted")
		}
	}
	if len(bot.Verification.HostMasks) > 0 {
		if v.ReverseDNS {
			why = append(why, "the reverse-DNS lookup did not answer")
		} else {
			why = append(why, "reverse DNS is off")
		}
	}
	return strings.Join(why, "; ")
}

// possessive is "Google's", or "its operator's" when the catalogue names no operator.
func possessive(operator string) string {
	if operator == "" {
		return "its operator's"
	}
	return operator + "'s"
}

// identityLine is the text report's line on the request's identity, e.g. "Googlebot
// (google-crawler, Google; search-engine) from 66.249.64.5: verified by ip-list (...)".
func (rep *Report) identityLine() string {
	v := rep.Verification
	id := v.Identity
	from := ""
	if v.ClientIP != "" {
		from = " from " + v.ClientIP
	}
	if id.Bot == "" && id.Name == "" {
		return fmt.Sprintf("%s%s (%s)", id.Status, from, id.Reason)
	}
	var who []string
	if id.Bot != "" {
		who = append(who, id.Bot) // none for a crawler only the AI catalogue knows
	}
	if id.Operator != "" {
		who = append(who, id.Operator)
	}
	bot := id.Name + " (" + strings.Join(who, ", ")
	if len(id.Categories) > 0 {
		bot += "; " + strings.Join(id.Categories, ", ")
	}
	bot += ")"
	if id.Status == identity.Verified.String() {
		return fmt.Sprintf("%s%s: verified by %s (%s)", bot, from, id.By, id.Reason)
	}
	why := id.Reason
	if e := rep.Enforcement; e.Impostor {
		why += fmt.Sprintf("; enforce answers %d", e.Status)
	}
	return fmt.Sprintf("claims %s%s: %s (%s)", bot, from, id.Status, why)
}

// writeLists writes the state of the lists, one line each.
func (v *Verification) writeLists(p func(format string, args ...any)) {
	dns := "off"
	if v.ReverseDNS {
		dns = "on (check waits for the lookup a server answers pending until it is in)"
	}
	// The copies are kept in one directory: said once.
	dir := ""
	for _, l := range v.Lists {
		if !l.Local && l.File != "" {
			dir = filepath.Dir(l.File)
		}
	}
	kept := ""
	if dir != "" {
		kept = "; copies of the lists kept in " + dir
	}
	p("Crawler verification: reverse DNS %s%s", dns, kept)
	if len(v.Lists) == 0 {
		p("  no published address lists (they are off)")
		return
	}
	for _, l := range v.Lists {
		src := l.URL
		if l.Local {
			src += " (local file " + l.File + ")"
		}
		state, what := "trusted", fmt.Sprintf("%d prefixes, %d bytes, %s old", l.Prefixes, l.Size, age(l.AgeSeconds))
		switch {
		case l.Prefixes == 0 && l.Local:
			state, what = "missing", "the file is not read"
		case l.Prefixes == 0:
			state, what = "missing", "no copy kept"
		case !l.Trusted:
			state, what = "stale", what+", too old to be trusted"
		}
		if l.LastError != "" {
			what += "; last error: " + l.LastError
		}
		p("  %-8s %s: %s", state, src, what)
	}
}

// age writes a list's age in its largest unit: "less than a minute", "5m", "3h", "2d".
func age(seconds int64) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dd", d/(24*time.Hour))
}

package identity_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/identity/dnstest"
)

// knownAddrs are addresses the operators' crawlers are seen from, for the bots verified by
// reverse DNS alone (the catalogue has no list of theirs to take one from). Reverse DNS does
// not depend on the address: a bot missing here gets an address of its own all the same.
var knownAddrs = map[string]string{
	"apple-crawler":             "17.241.75.7",
	"baidu-crawler":             "220.181.108.75",
	"yandex-crawler":            "5.255.253.90",
	"yandex-crawler-javascript": "213.180.203.1",
	"ccbot-crawler":             "18.97.9.168",
	"pinterest-crawler":         "54.236.1.11",
	"uptimerobot-monitor":       "69.162.124.226",
}

// listFault is what the operators' test server does with a list's request.
type listFault uint8

const (
	listOK listFault = iota
	list500
	list503
	listHang     // no answer within the Lists' Timeout
	listReset    // the connection closed without an answer
	listGarbage  // 200 with a document that is not the list (refused)
	listTruncate // 200 with half the document, then the connection closed
)

var listFaults = []listFault{list500, list503, listHang, listReset, listGarbage, listTruncate}

// operators serves every published list of the catalogue (documents from testdata) from one
// local TLS server, by the host and path of the list's URL, with a fault per list.
type operators struct {
	srv    *httptest.Server
	mu     sync.Mutex
	docs   map[string][]byte // by host + request URI
	faults map[string]listFault
}

func listKey(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	return u
}

func newOperators(t *testing.T) *operators {
	o := &operators{docs: map[string][]byte{}, faults: map[string]listFault{}}
	o.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Host + r.URL.RequestURI()
		o.mu.Lock()
		doc, fault := o.docs[key], o.faults[key]
		o.mu.Unlock()
		if doc == nil {
			http.NotFound(w, r)
			return
		}
		switch fault {
		case list500:
			http.Error(w, "oops", http.StatusInternalServerError)
		case list503:
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
		case listHang:
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case listReset:
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				c.Close()
			}
		case listGarbage:
			io.WriteString(w, "<html>maintenance</html>")
		case listTruncate:
			w.Header().Set("Content-Length", fmt.Sprint(len(doc)))
			w.Write(doc[:len(doc)/2])
		default:
			w.Write(doc)
		}
	}))
	o.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	o.srv.StartTLS()
	t.Cleanup(o.srv.Close)
	return o
}

// client fetches every list URL from the test server (the real host names and paths, over
// real TLS, verified against the test server's certificate).
func (o *operators) client() *http.Client {
	tr := o.srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "example.com" // the test certificate's name
	addr := o.srv.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
	return &http.Client{Transport: tr}
}

func (o *operators) set(key string, f listFault) {
	o.mu.Lock()
	o.faults[key] = f
	o.mu.Unlock()
}

// documentFor is the testdata document in a source's format, the one named like the URL's
// file when there is one, and the addresses it holds.
func documentFor(t *testing.T, s crawlers.IPRangeSource) ([]byte, []string) {
	t.Helper()
	base := path.Base(strings.SplitN(s.URL, "?", 2)[0])
	found := -1
	for i, f := range formats {
		if f.format != s.Format || f.selector != s.Selector {
			continue
		}
		if found < 0 || strings.TrimSuffix(f.file, filepath.Ext(f.file)) == strings.TrimSuffix(base, filepath.Ext(base)) {
			found = i
		}
	}
	if found < 0 {
		t.Fatalf("%s: no test document in format %s %q", s.URL, s.Format, s.Selector)
	}
	body, err := os.ReadFile(filepath.Join("testdata", formats[found].file))
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, a := range formats[found].in {
		if !netip.MustParseAddr(a).Is4In6() {
			in = append(in, a)
		}
	}
	return body, in
}

// nameFor is a host name matching mask: "@" a label, each run of stars up to as many
// digits.
func nameFor(rng *rand.Rand, mask string) string {
	var b strings.Builder
	if rest, ok := strings.CutPrefix(mask, "@."); ok {
		fmt.Fprintf(&b, "crawl-%d.", rng.IntN(1000))
		mask = rest
	}
	for i := 0; i < len(mask); {
		if mask[i] != '*' {
			b.WriteByte(mask[i])
			i++
			continue
		}
		k := 0
		for i < len(mask) && mask[i] == '*' {
			k++
			i++
		}
		for range 1 + rng.IntN(k) {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	return b.String()
}

// catalogueCase is a bot of the catalogue verified by reverse DNS or by list, from one of
// its real addresses.
type catalogueCase struct {
	bot  string
	addr netip.Addr
}

// TestCatalogueFailsSafe: for every bot of the catalogue verified by reverse DNS or by a
// published list, from one of its real addresses (from its list's document, or a host name
// of its operator's), under random sequences of resolver faults (a real DNS server on
// loopback: timeouts, SERVFAIL, REFUSED, truncated and slow answers, per query type or per
// query) and of list faults (errors, hangs, resets, refused and truncated documents, lists
// never fetched or expired past MaxAge), the request is never an impostor; once the resolver
// and the operators answer, it is verified.
func TestCatalogueFailsSafe(t *testing.T) {
	rounds, phases := 4, 4
	if raceEnabled || testing.Short() {
		rounds, phases = 2, 3
	}
	for round := range rounds {
		seed := uint64(time.Now().UnixNano())
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			catalogueRound(t, rand.New(rand.NewPCG(seed, uint64(round))), phases)
		})
	}
}

func catalogueRound(t *testing.T, rng *rand.Rand, phases int) {
	dns := dnstest.NewServer(t)
	dns.SetDelay(time.Second)
	ops := newOperators(t)
	var cases []catalogueCase
	ptr := map[netip.Addr][]string{}
	forward := map[string][]netip.Addr{}
	taken := map[netip.Addr]bool{} // addresses given to a bot
	var sources []string
	for _, b := range crawlers.Bots() {
		v := b.Verification
		if len(v.HostMasks) == 0 && len(v.IPRanges) == 0 {
			continue
		}
		var addr netip.Addr
		for _, s := range v.IPRanges {
			doc, in := documentFor(t, s)
			key := listKey(s.URL)
			if ops.docs[key] == nil {
				ops.docs[key] = doc
				sources = append(sources, key)
			}
			if !addr.IsValid() || rng.IntN(2) == 0 {
				// An address no other bot was given, where the list has one: the bots of one
				// operator share lists, and one address with the host names of many bots
				// would pass the PTR names ReverseDNS reads.
				for try := 0; try < 32; try++ {
					a := netip.MustParseAddr(in[rng.IntN(len(in))])
					if addr = a; len(ptr[a]) == 0 && !taken[a] {
						break
					}
				}
			}
		}
		if !addr.IsValid() {
			if a, ok := knownAddrs[b.ID]; ok {
				addr = netip.MustParseAddr(a)
			} else {
				h := fnv.New32a()
				h.Write([]byte(b.ID))
				addr = netip.AddrFrom4([4]byte{198, 51, 100, byte(h.Sum32())})
			}
		}
		if len(v.HostMasks) > 0 {
			mask := v.HostMasks[rng.IntN(len(v.HostMasks))]
			name := nameFor(rng, mask)
			if !identity.MatchHostMask(mask, name) {
				t.Fatalf("%s: %s does not match %s", b.ID, name, mask)
			}
			ptr[addr] = append(ptr[addr], name)
			forward[name] = append(forward[name], addr)
		}
		taken[addr] = true
		cases = append(cases, catalogueCase{bot: b.ID, addr: addr})
	}
	if len(cases) < 50 || len(sources) < 20 {
		t.Fatalf("only %d bots and %d lists to verify: the catalogue shrank, or this test misreads it", len(cases), len(sources))
	}
	for a, names := range ptr {
		if len(names) > 8 {
			t.Fatalf("%s: %d PTR names, more than ReverseDNS reads", a, len(names))
		}
		dns.SetPTR(a, names...)
	}
	for n, addrs := range forward {
		dns.SetAddrs(n, addrs...)
	}

	c := newClock()
	const maxAge, maxRetry = 48 * time.Hour, 4 * time.Second
	lists := identity.NewLists(identity.Sources(), identity.ListsOptions{Client: ops.client(), Log: quiet, Now: c.Now, MaxAge: maxAge, Timeout: 250 * time.Millisecond})
	rdns := identity.NewReverseDNS(identity.DNSOptions{Resolver: dns.Resolver(), Now: c.Now, Timeout: 300 * time.Millisecond, Retry: time.Second, MaxRetry: maxRetry, MaxInFlight: 128})
	v := identity.NewVerifier(lists, rdns)

	check := func(when string) {
		t.Helper()
		for _, cc := range cases {
			if id := v.Verify(cc.bot, cc.addr); id.Status == identity.Impostor || id.Bot != cc.bot {
				t.Errorf("%s: %s from %s: %+v", when, cc.bot, cc.addr, id)
			}
		}
	}
	// Where the lists start: some fetched, the others failing; in some rounds every list
	// fetched then grown older than MaxAge.
	for _, s := range sources {
		f := listOK
		if rng.IntN(2) == 0 {
			f = listFaults[rng.IntN(len(listFaults))]
		}
		ops.set(s, f)
	}
	lists.Refresh(context.Background())
	if rng.IntN(2) == 0 {
		c.Add(maxAge + time.Hour)
	}
	check("start")

	for p := range phases {
		// The operators: some lists fail (a hang rarely: each costs the fetch timeout).
		for _, s := range sources {
			f := listOK
			if rng.IntN(3) > 0 {
				f = listFaults[rng.IntN(len(listFaults))]
				if f == listHang && rng.IntN(4) > 0 {
					f = list500
				}
			}
			ops.set(s, f)
		}
		// The resolver: one fault for PTR queries and one for forward ones, or a fault drawn
		// for each query.
		ptrFault, fwdFault := dnstest.Faults[rng.IntN(len(dnstest.Faults))], dnstest.Faults[rng.IntN(len(dnstest.Faults))]
		perQuery := rng.IntN(3) == 0
		var mu sync.Mutex
		qrng := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		dns.SetFault(func(q dnstest.Query) dnstest.Fault {
			if perQuery {
				mu.Lock()
				defer mu.Unlock()
				if qrng.IntN(2) == 0 {
					return dnstest.Answer
				}
				return dnstest.Faults[qrng.IntN(len(dnstest.Faults))]
			}
			if q.Type == 12 { // PTR
				return ptrFault
			}
			return fwdFault
		})
		when := fmt.Sprintf("phase %d (PTR %v, forward %v, per query %v)", p, ptrFault, fwdFault, perQuery)
		check(when + ", before the lookups")
		lists.Refresh(context.Background())
		rdns.Wait()
		check(when + ", after the lookups")
		c.Add(maxRetry) // the retries are due
	}

	// Recovery: the resolver and the operators answer.
	dns.SetFault(nil)
	for _, s := range sources {
		ops.set(s, listOK)
	}
	lists.Refresh(context.Background())
	var left []string
	for range 10 {
		left = left[:0]
		for _, cc := range cases {
			v.Verify(cc.bot, cc.addr)
		}
		rdns.Wait()
		for _, cc := range cases {
			if id := v.Verify(cc.bot, cc.addr); id.Status != identity.Verified {
				left = append(left, fmt.Sprintf("%s from %s: %v", cc.bot, cc.addr, id.Status))
			}
		}
		if len(left) == 0 {
			return
		}
		// A lookup or a list fetch the load made time out (on a loaded 2-core machine, a
		// fetch can take longer than the test's 250 ms timeout) is tried again.
		c.Add(maxRetry)
		lists.Refresh(context.Background())
	}
	t.Errorf("not verified once the resolver and the operators answer:\n%s", strings.Join(left, "\n"))
}

// Package dnstest runs a DNS server on loopback for the tests of reverse-DNS verification:
// it answers PTR, A and AAAA queries from a table, over UDP and TCP on one port, and fails
// the queries it is told to (no answer, SERVFAIL, REFUSED, a truncated answer, a slow one),
// so that a real resolver (Resolver: Go's, speaking the wire format) meets real failures.
// Only tests use it; it never touches the network beyond 127.0.0.1.
package dnstest

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// Fault is what the server does with a query instead of answering it from its table.
type Fault uint8

const (
	// Answer: no fault, the table's answer (NXDOMAIN for a name it does not hold, no record
	// for a type it holds none of).
	Answer Fault = iota
	// Drop: no answer at all; the client times out.
	Drop
	// ServFail answers SERVFAIL.
	ServFail
	// Refused answers REFUSED.
	Refused
	// Truncate answers over UDP with the TC bit and no record, and closes a TCP query's
	// connection without an answer: the client cannot get the answer.
	Truncate
	// TruncateUDP answers over UDP with the TC bit and no record, and over TCP from the
	// table: a client that retries over TCP gets the answer.
	TruncateUDP
	// Slow answers from the table after Server.Delay.
	Slow
)

var faultNames = [...]string{"answer", "drop", "servfail", "refused", "truncate", "truncate-udp", "slow"}

func (f Fault) String() string { return faultNames[f] }

// Faults are every Fault but Answer.
var Faults = []Fault{Drop, ServFail, Refused, Truncate, TruncateUDP, Slow}

// Query is a question the server received.
type Query struct {
	Name string          // lower case, with the final dot
	Type dnsmessage.Type // TypePTR, TypeA, TypeAAAA, ...
	TCP  bool            // asked over TCP
	Addr netip.Addr      // for a PTR query, the address its name reverses; else invalid
}

// Server is a DNS server on 127.0.0.1, UDP and TCP on one port.
type Server struct {
	// Addr is its address, "127.0.0.1:port".
	Addr string

	udp *net.UDPConn
	tcp *net.TCPListener

	mu    sync.Mutex
	ptr   map[string][]string     // reverse name -> PTR names
	addrs map[string][]netip.Addr // name -> addresses
	fault func(Query) Fault       // nil: Answer
	delay time.Duration

	queries atomic.Int64
	ptrAsks map[netip.Addr]int // PTR queries by the address they reverse
	done    chan struct{}
	wg      sync.WaitGroup
}

// NewServer starts a server with an empty table (every name NXDOMAIN), closed when the test
// ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{ptr: map[string][]string{}, addrs: map[string][]netip.Addr{}, ptrAsks: map[netip.Addr]int{}, delay: time.Second, done: make(chan struct{})}
	var err error
	for range 20 { // the TCP port of the UDP one may be taken: try another
		if s.udp, err = net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
			t.Fatal(err)
		}
		port := s.udp.LocalAddr().(*net.UDPAddr).Port
		if s.tcp, err = net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}); err == nil {
			break
		}
		s.udp.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = s.udp.LocalAddr().String()
	s.wg.Add(2)
	go s.serveUDP()
	go s.serveTCP()
	t.Cleanup(s.Close)
	return s
}

// Close stops the server and waits for the queries in progress.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.udp.Close()
	s.tcp.Close()
	s.wg.Wait()
}

// SetPTR makes names the PTR records of addr (none: the reverse name does not exist).
func (s *Server) SetPTR(addr netip.Addr, names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rev := ReverseName(addr)
	if len(names) == 0 {
		delete(s.ptr, rev)
		return
	}
	s.ptr[rev] = names
}

// SetHost makes name addr's host name, forward-confirmed: name is addr's PTR record, and addr
// name's address record, as an operator publishes its crawlers' names.
func (s *Server) SetHost(addr netip.Addr, name string) {
	s.SetPTR(addr, name)
	s.SetAddrs(name, addr)
}

// SetAddrs makes addrs the A and AAAA records of name (none: the name does not exist).
func (s *Server) SetAddrs(name string, addrs ...netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name = canonical(name)
	if len(addrs) == 0 {
		delete(s.addrs, name)
		return
	}
	s.addrs[name] = addrs
}

// SetFault makes f decide, for every query from now on, what the server does; nil answers
// every query from the table.
func (s *Server) SetFault(f func(Query) Fault) {
	s.mu.Lock()
	s.fault = f
	s.mu.Unlock()
}

// SetDelay sets how long a Slow answer waits (default 1s).
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// Queries returns how many queries the server received.
func (s *Server) Queries() int64 { return s.queries.Load() }

// PTRQueries returns how many PTR queries for addr's reverse name the server received.
func (s *Server) PTRQueries(addr netip.Addr) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ptrAsks[addr]
}

// Resolver returns Go's resolver asking this server only, over UDP and over TCP when an
// answer is truncated.
func (s *Server) Resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, s.Addr)
	}}
}

// ReverseName is the PTR query name of addr: "4.3.2.1.in-addr.arpa." or the ip6.arpa nibbles.
func ReverseName(addr netip.Addr) string {
	addr = addr.Unmap()
	var b strings.Builder
	if addr.Is4() {
		a := addr.As4()
		for i := 3; i >= 0; i-- {
			b.WriteString(itoa(int(a[i])))
			b.WriteByte('.')
		}
		b.WriteString("in-addr.arpa.")
		return b.String()
	}
	a := addr.As16()
	const hex = "0123456789abcdef"
	for i := 15; i >= 0; i-- {
		b.WriteByte(hex[a[i]&0xf])
		b.WriteByte('.')
		b.WriteByte(hex[a[i]>>4])
		b.WriteByte('.')
	}
	b.WriteString("ip6.arpa.")
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [3]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}

func canonical(name string) string {
	name = strings.ToLower(name)
	if !strings.HasSuffix(name, ".") {
		name += "."
	}
	return name
}

func (s *Server) serveUDP() {
	defer s.wg.Done()
	buf := make([]byte, 4096)
	for {
		n, from, err := s.udp.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		msg := append([]byte(nil), buf[:n]...)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if out, _ := s.respond(msg, false); out != nil {
				s.udp.WriteToUDPAddrPort(out, from)
			}
		}()
	}
}

func (s *Server) serveTCP() {
	defer s.wg.Done()
	for {
		c, err := s.tcp.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			go func() { // a closing server ends a connection held open (Drop)
				<-s.done
				c.Close()
			}()
			for {
				var l [2]byte
				if _, err := io.ReadFull(c, l[:]); err != nil {
					return
				}
				msg := make([]byte, binary.BigEndian.Uint16(l[:]))
				if _, err := io.ReadFull(c, msg); err != nil {
					return
				}
				out, fault := s.respond(msg, true)
				if out == nil {
					if fault == Drop {
						io.Copy(io.Discard, c) // hold the connection until the client gives up
					}
					return // Truncate over TCP: closed without an answer
				}
				binary.BigEndian.PutUint16(l[:], uint16(len(out)))
				if _, err := c.Write(append(l[:], out...)); err != nil {
					return
				}
			}
		}()
	}
}

func query(q dnsmessage.Question, tcp bool) Query {
	qq := Query{Name: strings.ToLower(q.Name.String()), Type: q.Type, TCP: tcp}
	if q.Type == dnsmessage.TypePTR {
		qq.Addr = parseReverse(qq.Name)
	}
	return qq
}

func (s *Server) faultOf(q Query) Fault {
	s.mu.Lock()
	f := s.fault
	s.mu.Unlock()
	if f == nil {
		return Answer
	}
	return f(q)
}

// respond is the answer to msg, nil for none (Drop, and Truncate over TCP), and the fault
// applied.
func (s *Server) respond(msg []byte, tcp bool) ([]byte, Fault) {
	s.queries.Add(1)
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil, Drop
	}
	q, err := p.Question()
	if err != nil {
		return nil, Drop
	}
	qq := query(q, tcp)
	if qq.Addr.IsValid() {
		s.mu.Lock()
		s.ptrAsks[qq.Addr]++
		s.mu.Unlock()
	}
	fault := s.faultOf(qq)
	return s.answer(h, q, qq, fault, tcp), fault
}

// answer is the answer to question q under fault; nil for none.
func (s *Server) answer(h dnsmessage.Header, q dnsmessage.Question, qq Query, fault Fault, tcp bool) []byte {
	rh := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired, RecursionAvailable: true, Authoritative: true}
	switch fault {
	case Drop:
		return nil
	case ServFail:
		rh.RCode = dnsmessage.RCodeServerFailure
		return build(rh, q, nil)
	case Refused:
		rh.RCode = dnsmessage.RCodeRefused
		return build(rh, q, nil)
	case Truncate, TruncateUDP:
		if !tcp {
			rh.Truncated = true
			return build(rh, q, nil)
		}
		if fault == Truncate {
			return nil
		}
	case Slow:
		s.mu.Lock()
		d := s.delay
		s.mu.Unlock()
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-s.done:
			t.Stop()
			return nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var answers []dnsmessage.Resource
	exists := false
	switch q.Type {
	case dnsmessage.TypePTR:
		names, ok := s.ptr[qq.Name]
		exists = ok
		for _, n := range names {
			answers = append(answers, dnsmessage.Resource{
				Header: dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET, TTL: 60},
				Body:   &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName(canonical(n))},
			})
		}
	default:
		addrs, ok := s.addrs[qq.Name]
		exists = ok
		for _, a := range addrs {
			rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
			switch {
			case q.Type == dnsmessage.TypeA && a.Unmap().Is4():
				rh.Type = dnsmessage.TypeA
				answers = append(answers, dnsmessage.Resource{Header: rh, Body: &dnsmessage.AResource{A: a.Unmap().As4()}})
			case q.Type == dnsmessage.TypeAAAA && a.Is6() && !a.Is4In6():
				rh.Type = dnsmessage.TypeAAAA
				answers = append(answers, dnsmessage.Resource{Header: rh, Body: &dnsmessage.AAAAResource{AAAA: a.As16()}})
			}
		}
	}
	if !exists {
		rh.RCode = dnsmessage.RCodeNameError
	}
	return build(rh, q, answers)
}

func build(h dnsmessage.Header, q dnsmessage.Question, answers []dnsmessage.Resource) []byte {
	m := dnsmessage.Message{Header: h, Questions: []dnsmessage.Question{q}, Answers: answers}
	out, err := m.Pack()
	if err != nil {
		return nil
	}
	return out
}

// parseReverse is the address a PTR query name reverses; invalid if it is none.
func parseReverse(name string) netip.Addr {
	labels := strings.Split(strings.TrimSuffix(name, "."), ".")
	switch {
	case strings.HasSuffix(name, ".in-addr.arpa.") && len(labels) == 6:
		var a [4]byte
		for i := range 4 {
			n := 0
			for _, c := range labels[3-i] {
				if c < '0' || c > '9' {
					return netip.Addr{}
				}
				n = n*10 + int(c-'0')
			}
			if n > 255 {
				return netip.Addr{}
			}
			a[i] = byte(n)
		}
		return netip.AddrFrom4(a)
	case strings.HasSuffix(name, ".ip6.arpa.") && len(labels) == 34:
		var a [16]byte
		for i := range 32 {
			l := labels[31-i]
			if len(l) != 1 {
				return netip.Addr{}
			}
			v := strings.IndexByte("0123456789abcdef", l[0])
			if v < 0 {
				return netip.Addr{}
			}
			a[i/2] |= byte(v) << (4 * (1 - i%2))
		}
		return netip.AddrFrom16(a)
	}
	return netip.Addr{}
}

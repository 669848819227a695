package logreport_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// TestParseLines reads lines as nginx and Apache write them, and Caddy's forms of "ts".
func TestParseLines(t *testing.T) {
	at := time.Date(2026, 11, 20, 17, 55, 36, 0, time.UTC)
	for _, c := range []struct {
		line                         string
		format                       string
		ip, method, target, ua, host string
		status                       int
		size                         int64
		t                            time.Time
	}{
		{`2001:db8::1 - frank [20/Nov/2026:10:55:36 -0700] "GET /a?b=c HTTP/1.1" 200 2326 "http://ref/" "Mozilla/5.0 (compatible; Googlebot/2.1)"`, "combined", "2001:db8::1", "GET", "/a?b=c", "Mozilla/5.0 (compatible; Googlebot/2.1)", "", 200, 2326, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET / HTTP/1.0" 304 -`, "common", "1.2.3.4", "GET", "/", "", "", 304, 0, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "-" 400 0 "-" "-"`, "combined", "1.2.3.4", "", "", "", "", 400, 0, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "\x16\x03\x01\x02\x00\x01" 400 150 "-" "-"`, "combined", "1.2.3.4", "", "", "", "", 400, 150, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET http://example.com/p/q HTTP/1.1" 200 1 "-" "say \"hi\" \\ bot"`, "combined", "1.2.3.4", "GET", "/p/q", `say "hi" \ bot`, "", 200, 1, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /x HTTP/1.1" 200 1 "-" "nginx \x22escapes\x22"`, "combined", "1.2.3.4", "GET", "/x", `nginx "escapes"`, "", 200, 1, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /x HTTP/1.1" 200 1 "-" "ua" "extra" 0.005`, "combined", "1.2.3.4", "GET", "/x", "ua", "", 200, 1, at},
		{`{"level":"info","ts":1795197336,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"10.0.0.1","client_ip":"66.249.66.1","method":"GET","host":"example.com","uri":"/r?x","headers":{"User-Agent":["Googlebot"]}},"status":200,"size":5}`, "caddy", "66.249.66.1", "GET", "/r?x", "Googlebot", "example.com", 200, 5, at},
		{`{"ts":"2026-11-20T17:55:36.000Z","request":{"remote_ip":"10.0.0.1","method":"GET","host":"h","uri":"/","headers":{"user-agent":["x"]}},"status":404,"size":0}`, "caddy", "10.0.0.1", "GET", "/", "x", "h", 404, 0, at},
		{`{"ts":"2026/11/20 17:55:36.000","request":{"remote_ip":"10.0.0.1","method":"GET","uri":"/"},"status":200,"size":0}`, "caddy", "10.0.0.1", "GET", "/", "", "", 200, 0, at},
		{`{"ts":1795197336000,"request":{"remote_ip":"10.0.0.1","method":"GET","uri":"/"},"status":200,"size":0}`, "caddy", "10.0.0.1", "GET", "/", "", "", 200, 0, at},
		// Request lines are unescaped as the agent is: nginx's \xHH (bytes outside ASCII),
		// Apache's \" and \\.
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /caf\xC3\xA9/menu HTTP/1.1" 200 1 "-" "x"`, "combined", "1.2.3.4", "GET", "/café/menu", "x", "", 200, 1, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /a\"b\\c HTTP/1.1" 200 1 "-" "x"`, "combined", "1.2.3.4", "GET", `/a"b\c`, "x", "", 200, 1, at},
		// A raw space in the target (nginx logs it as it came): up to the last space before
		// the protocol.
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /a b/x HTTP/1.1" 200 1 "-" "x"`, "combined", "1.2.3.4", "GET", "/a b/x", "x", "", 200, 1, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /a b/x" 200 1 "-" "x"`, "combined", "1.2.3.4", "GET", "/a b/x", "x", "", 200, 1, at},
		// Absolute-form targets, with the scheme in any case.
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET HTTP://EXAMPLE.COM/x HTTP/1.1" 200 1 "-" "x"`, "combined", "1.2.3.4", "GET", "/x", "x", "", 200, 1, at},
		{`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET Https://example.com?q=1 HTTP/1.1" 200 1 "-" "x"`, "combined", "1.2.3.4", "GET", "/?q=1", "x", "", 200, 1, at},
		{`{"ts":1795197336,"request":{"remote_ip":"::1","method":"GET","host":"localhost:18471","uri":"http://localhost:18471/abs?x"},"status":200,"size":0}`, "caddy", "::1", "GET", "/abs?x", "", "localhost:18471", 200, 0, at},
		{`{"ts":1795197336,"request":{"remote_ip":"::1","method":"GET","uri":"HTTPS://h"},"status":200,"size":0}`, "caddy", "::1", "GET", "/", "", "", 200, 0, at},
		{`{"ts":1795197336,"request":{"remote_ip":"::1","method":"OPTIONS","uri":"*"},"status":200,"size":0}`, "caddy", "::1", "", "", "", "", 200, 0, at},
	} {
		var e logreport.Entry
		f, err := logreport.Parse([]byte(c.line), &e)
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		got := fmt.Sprintf("%s %s %s %s %q %s %d %d %v", f, e.ClientIP, e.Method, e.Target, e.Agent, e.Host, e.Status, e.Size, e.Time.UTC())
		want := fmt.Sprintf("%s %s %s %s %q %s %d %d %v", c.format, c.ip, c.method, c.target, c.ua, c.host, c.status, c.size, c.t)
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.line, got, want)
		}
	}
}

// TestParseRefuses: numbers and times no server writes are unreadable lines, not requests
// (a negative size, a time centuries away, a day a month lacks, a zone no place has).
func TestParseRefuses(t *testing.T) {
	for _, line := range []string{
		`{"ts":1795197336,"request":{"method":"GET","uri":"/"},"status":200,"size":-1}`,
		`{"ts":1795197336,"request":{"method":"GET","uri":"/"},"status":200,"size":-9223372036854775808}`,
		`{"ts":1e300,"request":{"method":"GET","uri":"/"},"status":200,"size":1}`,
		`{"ts":1e19,"request":{"method":"GET","uri":"/"},"status":200,"size":1}`,
		`{"ts":1.5,"request":{"method":"GET","uri":"/"},"status":200,"size":1}`,
		`{"ts":7258118400,"request":{"method":"GET","uri":"/"},"status":200,"size":1}`,
		`{"ts":"1900-01-01T00:00:00Z","request":{"method":"GET","uri":"/"},"status":200,"size":1}`,
		`{"ts":"9999-01-01T00:00:00Z","request":{"method":"GET","uri":"/"},"status":200,"size":1}`,
		`1.2.3.4 - - [31/Feb/2026:17:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`1.2.3.4 - - [29/Feb/2026:17:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`1.2.3.4 - - [31/Apr/2026:17:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`1.2.3.4 - - [20/Nov/2026:17:55:36 +9999] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`1.2.3.4 - - [20/Nov/2026:17:55:36 -1500] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`1.2.3.4 - - [20/Nov/2026:17:55:36 +0160] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`1.2.3.4 - - [20/Nov/1066:17:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "x"`,
	} {
		var e logreport.Entry
		if _, err := logreport.Parse([]byte(line), &e); err == nil {
			t.Errorf("%s: read as %+v, want an unreadable line", line, e)
		}
	}
	// Their neighbours that are times are read.
	for _, line := range []string{
		`1.2.3.4 - - [29/Feb/2028:17:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`1.2.3.4 - - [31/Dec/2026:17:55:36 +1400] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`1.2.3.4 - - [30/Apr/2026:17:55:36 -1200] "GET / HTTP/1.1" 200 1 "-" "x"`,
		`{"ts":1795197336123456789,"request":{"method":"GET","uri":"/"},"status":200,"size":0}`,
	} {
		var e logreport.Entry
		if _, err := logreport.Parse([]byte(line), &e); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// FuzzParseLogLine: no line makes Parse panic; what it reads is consistent (a target is a path, a
// status three digits at most), and a Combined line written back from an entry reads as it.
func FuzzParseLogLine(f *testing.F) {
	for _, l := range malformed {
		f.Add([]byte(l))
	}
	f.Add([]byte(`1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /a HTTP/1.1" 200 1 "-" "x \"y\""`))
	f.Add([]byte(`{"ts":1.5,"request":{"method":"GET","uri":"/"},"status":200}`))
	f.Add([]byte(`{"ts":1795197336,"request":{"method":"GET","uri":"/"},"status":200,"size":-1}`))
	f.Add([]byte(`{"ts":1e300,"request":{"method":"GET","uri":"HTTP://h/x"},"status":200,"size":9223372036854775807}`))
	f.Add([]byte(`1.2.3.4 - - [31/Feb/2026:17:55:36 +9999] "GET /caf\xC3\xA9/a\"b HTTP/1.1" 200 1 "-" "x"`))
	f.Add([]byte(`[2001:db8::1] - - [20/Nov/2026:17:55:36 +0000] "GET /a b/x HTTP/1.1" 200 1 "-" "x"`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var e logreport.Entry
		format, err := logreport.Parse(line, &e)
		if err != nil {
			return
		}
		if (e.Target == nil) != (e.Method == nil) || (e.Target != nil && e.Target[0] != '/') || e.Status < 0 || e.Status > 999 || e.Size < 0 ||
			e.Time.Year() < 1990 || e.Time.Year() >= 2200 {
			t.Fatalf("%q: read as %+v", line, e)
		}
		if format != logreport.FormatCombined || e.Target == nil || bytes.ContainsAny(e.Agent, "\"\\\n\r") || bytes.ContainsAny(e.Target, " \"\\") || bytes.ContainsAny(e.ClientIP, " ") {
			return
		}
		again := fmt.Sprintf(`%s - - [%s] "%s %s HTTP/1.1" %03d %d "-" "%s"`, e.ClientIP, e.Time.UTC().Format("02/Jan/2006:15:04:05 -0700"), e.Method, e.Target, e.Status, e.Size, e.Agent)
		var e2 logreport.Entry
		if _, err := logreport.Parse([]byte(again), &e2); err != nil {
			t.Fatalf("%q written back as %q: %v", line, again, err)
		}
		if !e2.Time.Equal(e.Time) || string(e2.Target) != string(e.Target) || string(e2.Agent) != string(e.Agent) || e2.Status != e.Status || e2.Size != e.Size {
			t.Fatalf("%q written back as %q reads %+v", line, again, e2)
		}
	})
}

// FuzzReadLog: any bytes (plain, or starting as gzip) read into a report without panic, every
// line counted once (a request, an unreadable line, or a blank one) when the log is read to
// its end, a log starting as gzip either decompressed or refused with an error (never read as
// text), an error always said in the Input and in the text, and the report's JSON and HTML
// written.
func FuzzReadLog(f *testing.F) {
	f.Add([]byte("1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"GPTBot\"\n\ngarbage\r\n"))
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"))
	f.Add([]byte(`{"ts":"2026-11-20T17:55:36Z","request":{"method":"GET","host":"example.com","uri":"/robots.txt","headers":{"User-Agent":["Googlebot"]}},"status":200,"size":1}`))
	rp, err := policycheck.NewReplay(loadSite(f, false), "https://example.com")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := logreport.NewBuilder(rp, logreport.Options{Host: "example.com"})
		err := b.ReadLog("fuzz", bytes.NewReader(data))
		rep := b.Report()
		in := rep.Inputs[0]
		if (err != nil) != (in.Error != "") {
			t.Fatalf("ReadLog returned %v, the input says %q", err, in.Error)
		}
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) && !in.Gzip && in.Error == "" {
			t.Fatalf("%q: starts as gzip, read as text without an error", data)
		}
		readToEnd := in.Error == "" || strings.HasPrefix(in.Error, "no line is")
		if rep.Totals.Requests+rep.Totals.OtherHosts+rep.Unreadable.Count > in.Lines {
			t.Fatalf("%d requests, %d other hosts and %d unreadable of %d lines", rep.Totals.Requests, rep.Totals.OtherHosts, rep.Unreadable.Count, in.Lines)
		}
		if readToEnd && !in.Gzip && in.Lines != int64(bytes.Count(data, []byte("\n"))) && !(len(data) > 0 && data[len(data)-1] != '\n' && in.Lines == int64(bytes.Count(data, []byte("\n")))+1) {
			t.Fatalf("%d lines read of %q", in.Lines, data)
		}
		var out bytes.Buffer
		if err := rep.WriteJSON(&out); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteHTML(&out); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := rep.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		if in.Error != "" && !strings.Contains(out.String(), "ERROR:") {
			t.Fatalf("the text does not show the error %q", in.Error)
		}
	})
}

package logreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Entry is one request of an access log. Its byte slices point into the line read (they are
// valid until the next line is read): the report copies only what it keeps.
type Entry struct {
	// Time is when the request was logged.
	Time time.Time
	// Host is the Host of the request, when the log records it (Caddy's does; the Common and
	// Combined formats do not): nil otherwise.
	Host []byte
	// ClientIP is the client's address as the server trusted it.
	ClientIP []byte
	// Method and Target are the request line's method and target (path and query); nil both
	// when the request line is not one ("-", garbage, a TLS handshake on a plain port).
	Method, Target []byte
	// Agent is the User-Agent header; nil when there was none ("-").
	Agent []byte
	// referer is the Referer header as logged (Referer unescapes it); nil when there was
	// none ("-", or a Common line). refererEscaped says it holds a Combined line's escapes.
	referer        []byte
	refererEscaped bool
	// ContentType is the response's Content-Type field values, when the log records the
	// response's headers (Caddy's "resp_headers"), and HasContentType says whether it does: a
	// logged response without one has HasContentType and no ContentType.
	ContentType    []string
	HasContentType bool
	// Status is the response status.
	Status int
	// Size is the size of the response body in bytes; 0 for "-".
	Size int64
	// PaymentResponse is true when the response carried an x402 PAYMENT-RESPONSE header (a
	// settlement's result). Only Caddy's JSON log records response headers: false for the
	// Common and Combined formats.
	PaymentResponse bool
	// scratch holds the unescaped Referer of a Combined line, reused from line to line.
	scratch []byte
}

// Referer returns the Referer header, unescaped as the User-Agent is; nil when there was none
// ("-", or a Common line) or, in Caddy's log, more than one. Like the fields, it is valid until the next line is read.
func (e *Entry) Referer() []byte {
	if e.refererEscaped {
		e.scratch = appendUnescaped(e.scratch[:0], e.referer)
		e.referer, e.refererEscaped = e.scratch, false
	}
	return e.referer
}

// Formats of the lines of a log; Parse tells them apart by their first byte.
const (
	FormatCaddy    = "caddy"    // Caddy's JSON access log (one JSON object per line)
	FormatCombined = "combined" // the Combined Log Format (nginx's and Apache's default)
	FormatCommon   = "common"   // the Common Log Format (no Referer, no User-Agent)
)

// ParseError is a line that is no access log entry.
type ParseError struct{ Reason string }

func (e *ParseError) Error() string { return e.Reason }

func bad(reason string) error { return &ParseError{Reason: reason} }

// Parse reads one line of an access log into e, overwriting it, and returns its format: a
// line starting with "{" is Caddy's JSON, any other the Common or Combined Log Format.
func Parse(line []byte, e *Entry) (format string, err error) {
	*e = Entry{scratch: e.scratch[:0]}
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > 0 && line[0] == '{' {
		return FormatCaddy, parseCaddy(line, e)
	}
	return parseCLF(line, e)
}

// parseCLF reads the Common or Combined Log Format:
//
//	host ident user [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 2326 "referer" "agent"
//
// Fields after the agent (nginx's and Apache's extended formats) are ignored.
func parseCLF(line []byte, e *Entry) (string, error) {
	var f []byte
	var ok bool
	if f, line, ok = word(line); !ok || len(f) == 0 {
		return FormatCombined, bad("no client address")
	}
	e.ClientIP = f
	if _, line, ok = word(line); !ok { // ident
		return FormatCombined, bad("no ident field")
	}
	if _, line, ok = word(line); !ok { // user
		return FormatCombined, bad("no user field")
	}
	if len(line) == 0 || line[0] != '[' {
		return FormatCombined, bad("no [time]")
	}
	end := bytes.IndexByte(line, ']')
	if end < 0 {
		return FormatCombined, bad("no [time]")
	}
	t, err := clfTime(line[1:end])
	if err != nil {
		return FormatCombined, err
	}
	e.Time = t
	line = skipSpace(line[end+1:])
	req, line, ok := quoted(line)
	if !ok {
		return FormatCombined, bad(`no "request line"`)
	}
	// The request line is escaped as the agent is (nginx's \xHH for bytes outside ASCII,
	// Apache's \" and \\): read unescaped, it is the target the client sent.
	e.Method, e.Target = requestLine(unescape(req))
	line = skipSpace(line)
	if f, line, ok = word(line); !ok {
		return FormatCombined, bad("no status")
	}
	// Read as a JSON line's status is: a number from 0 to 999.
	st, ok := atoi(f)
	if !ok {
		return FormatCombined, bad("status is not a number")
	}
	if st > 999 {
		return FormatCombined, bad("status out of range")
	}
	e.Status = int(st)
	if f, line, ok = word(line); !ok {
		return FormatCombined, bad("no size")
	}
	if !(len(f) == 1 && f[0] == '-') {
		if e.Size, ok = atoi(f); !ok {
			return FormatCombined, bad("size is not a number")
		}
	}
	line = skipSpace(line)
	if len(line) == 0 {
		return FormatCommon, nil
	}
	ref, line, ok := quoted(line)
	if !ok {
		return FormatCombined, bad(`no "referer"`)
	}
	ua, _, ok := quoted(skipSpace(line))
	if !ok {
		return FormatCombined, bad(`no "user-agent"`)
	}
	if !(len(ua) == 1 && ua[0] == '-') && len(ua) > 0 {
		e.Agent = unescape(ua)
	}
	if !(len(ref) == 1 && ref[0] == '-') && len(ref) > 0 {
		// Unescaped when read (Referer): most lines' Referer is never read.
		e.referer, e.refererEscaped = ref, bytes.IndexByte(ref, '\\') >= 0
	}
	return FormatCombined, nil
}

// word returns the field up to the next space and the rest after the spaces; ok is false at
// the end of the line.
func word(b []byte) (w, rest []byte, ok bool) {
	if len(b) == 0 {
		return nil, nil, false
	}
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return b, nil, true
	}
	return b[:i], skipSpace(b[i+1:]), true
}

func skipSpace(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	return b
}

// quoted returns the contents of the quoted string at the start of b (escapes left as they
// are: a backslash escapes the next byte) and the rest after it.
func quoted(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return b[1:i], b[i+1:], true
		}
	}
	return nil, nil, false
}

// unescape undoes the escapes servers write in quoted fields: Apache's \" \\ \xHH and
// nginx's \xHH. It allocates only when there is one.
func unescape(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	return appendUnescaped(make([]byte, 0, len(b)), b)
}

// appendUnescaped appends b to out with its escapes undone (unescape).
func appendUnescaped(out, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 == len(b) {
			out = append(out, c)
			continue
		}
		i++
		switch b[i] {
		case 'x':
			if i+2 < len(b) {
				if v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
					out = append(out, byte(v))
					i += 2
					continue
				}
			}
			out = append(out, '\\', 'x')
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		default:
			out = append(out, b[i])
		}
	}
	return out
}

// requestLine splits "GET /path HTTP/1.1" (or "GET /path", HTTP/0.9); nil both when it is
// not a request line. The target runs from after the method to the last space before the
// protocol, so that a raw space nginx logs as it came ("GET /a b/x HTTP/1.1") stays in it.
func requestLine(r []byte) (method, target []byte) {
	sp := bytes.IndexByte(r, ' ')
	if sp <= 0 {
		return nil, nil
	}
	method, rest := r[:sp], r[sp+1:]
	for _, c := range method {
		if c < 'A' || c > 'Z' {
			return nil, nil
		}
	}
	if sp := bytes.LastIndexByte(rest, ' '); sp >= 0 && hasPrefixFold(rest[sp+1:], "HTTP/") {
		rest = rest[:sp]
	}
	if target = targetPath(rest); target == nil {
		return nil, nil
	}
	return method, target
}

// targetPath is the origin-form target of a request-target: itself when it is one ("/a?b"),
// the path and query of an absolute-form one ("http://host/a?b", scheme in any case, as a
// proxy request has it), nil otherwise ("*", garbage).
func targetPath(t []byte) []byte {
	if len(t) > 0 && t[0] == '/' {
		return t
	}
	var i int
	switch {
	case hasPrefixFold(t, "http://"):
		i = len("http://")
	case hasPrefixFold(t, "https://"):
		i = len("https://")
	default:
		return nil
	}
	j := bytes.IndexAny(t[i:], "/?")
	if j < 0 {
		return []byte("/")
	}
	if t[i+j] == '?' {
		return append([]byte("/"), t[i+j:]...)
	}
	return t[i+j:]
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.EqualFold(string(b[:len(prefix)]), prefix)
}

// atoi reads a decimal number of any length up to the largest int64, the range a number
// of Caddy's JSON log is read in (a Combined line's size and a JSON line's agree).
func atoi(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// clfTime reads "10/Oct/2000:13:55:36 -0700" without time.Parse (which costs more than the
// rest of the line).
func clfTime(b []byte) (time.Time, error) {
	// dd/Mon/yyyy:hh:mm:ss +zzzz
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' {
		return time.Time{}, bad("time is not dd/Mon/yyyy:hh:mm:ss +zzzz")
	}
	num := func(s []byte) int {
		n, ok := atoi(s)
		if !ok {
			return -1
		}
		return int(n)
	}
	day, year, hh, mm, ss := num(b[0:2]), num(b[7:11]), num(b[12:14]), num(b[15:17]), num(b[18:20])
	mon := -1
	for i, m := range months {
		if string(b[3:6]) == m {
			mon = i + 1
		}
	}
	zh, zm := num(b[22:24]), num(b[24:26])
	if day < 1 || day > 31 || year < 0 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 60 || mon < 0 || zh < 0 || zm < 0 || (b[21] != '+' && b[21] != '-') {
		return time.Time{}, bad("time is not dd/Mon/yyyy:hh:mm:ss +zzzz")
	}
	// A day the month does not have (31/Feb) and a zone no place has (beyond ±14:00) are no
	// time a server wrote.
	if day > daysIn(time.Month(mon), year) || zh > 14 || zm > 59 || (zh == 14 && zm > 0) {
		return time.Time{}, bad("time is no date: no such day or zone")
	}
	off := zh*3600 + zm*60
	if b[21] == '-' {
		off = -off
	}
	t := time.Date(year, time.Month(mon), day, hh, mm, ss, 0, time.UTC)
	return saneTime(t.Add(-time.Duration(off) * time.Second))
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// The times a report takes: a time outside them (year 1677 of a "ts" of 1e300, year 0) is
// no time a server logged, and would stretch the timeline over centuries.
var (
	minTime = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

func saneTime(t time.Time) (time.Time, error) {
	if t.Before(minTime) || !t.Before(maxTime) {
		return time.Time{}, bad("time out of range (1990 to 2200)")
	}
	return t, nil
}

// caddyLine is the part of Caddy's access log entry (modules/caddyhttp's logRequest) the
// report reads.
type caddyLine struct {
	TS      json.RawMessage `json:"ts"`
	Request *struct {
		RemoteIP string              `json:"remote_ip"`
		ClientIP string              `json:"client_ip"`
		Method   string              `json:"method"`
		Host     string              `json:"host"`
		URI      string              `json:"uri"`
		Headers  map[string][]string `json:"headers"`
	} `json:"request"`
	Status int   `json:"status"`
	Size   int64 `json:"size"`
	// RespHeaders are the response's headers; only Content-Type and PAYMENT-RESPONSE are read
	// (a struct, not a map: the other headers are skipped without being kept; Caddy logs
	// names canonical, "Payment-Response", and the decoder matches names without case).
	RespHeaders *struct {
		ContentType     []string `json:"Content-Type"`
		PaymentResponse []string `json:"Payment-Response"`
	} `json:"resp_headers"`
}

// parseCaddy reads Caddy's JSON access log entry.
func parseCaddy(line []byte, e *Entry) error {
	var c caddyLine
	if err := json.Unmarshal(line, &c); err != nil {
		return bad("not JSON: " + jsonProblem(err))
	}
	if c.Request == nil {
		return bad("a JSON line without a request (not an access log entry)")
	}
	t, err := caddyTime(c.TS)
	if err != nil {
		return err
	}
	e.Time = t
	e.Host = []byte(c.Request.Host)
	e.ClientIP = []byte(c.Request.ClientIP)
	if len(e.ClientIP) == 0 {
		e.ClientIP = []byte(c.Request.RemoteIP)
	}
	if t := targetPath([]byte(c.Request.URI)); c.Request.Method != "" && t != nil {
		// An absolute-form target (Caddy logs "uri" as the request line had it) is read as
		// its path, as in a Combined line.
		e.Method, e.Target = []byte(c.Request.Method), t
	}
	for k, v := range c.Request.Headers {
		switch {
		case len(v) == 0:
		case strings.EqualFold(k, "User-Agent"):
			e.Agent = []byte(v[0])
		case strings.EqualFold(k, "Referer") && len(v) == 1:
			// Several Referer fields name no one page: none, as the live counter reads them.
			e.referer = []byte(v[0])
		}
	}
	if rh := c.RespHeaders; rh != nil {
		e.HasContentType, e.ContentType = true, rh.ContentType
	}
	e.Status, e.Size = c.Status, c.Size
	e.PaymentResponse = c.RespHeaders != nil && len(c.RespHeaders.PaymentResponse) > 0 && c.RespHeaders.PaymentResponse[0] != ""
	if e.Status < 0 || e.Status > 999 {
		return bad("status out of range")
	}
	if e.Size < 0 {
		return bad("size is negative")
	}
	return nil
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	return "unexpected field types"
}

// caddyTimeLayouts are the string forms of "ts" that Caddy's time_format offers (iso8601,
// rfc3339, rfc3339_nano, wall, wall_milli, wall_nano, common_log).
var caddyTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.000Z0700",
	"2006/01/02 15:04:05.000000000",
	"2006/01/02 15:04:05.000",
	"2006/01/02 15:04:05",
	"02/Jan/2006:15:04:05 -0700",
}

// caddyTime reads "ts": seconds since the epoch as a number (the default; milliseconds or
// nanoseconds for unix_milli_float and unix_nano, told apart by size), or a string in one of
// caddyTimeLayouts (wall clock forms are read as UTC).
func caddyTime(raw json.RawMessage) (time.Time, error) {
	if len(raw) == 0 {
		return time.Time{}, bad(`no "ts"`)
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			for _, l := range caddyTimeLayouts {
				if t, err := time.Parse(l, s); err == nil {
					return saneTime(t.UTC())
				}
			}
		}
		return time.Time{}, bad(`"ts" is not a time`)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 {
		return time.Time{}, bad(`"ts" is not a time`)
	}
	switch {
	case f > 1e17: // nanoseconds
		f /= 1e9
	case f > 1e11: // milliseconds
		f /= 1e3
	}
	// Checked before converting: a float beyond int64 converts to anything.
	if f < float64(minTime.Unix()) || f >= float64(maxTime.Unix()) {
		return time.Time{}, bad("time out of range (1990 to 2200)")
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), nil
}

// printable returns at most n bytes of a line as valid, printable UTF-8, to show it: bytes
// that are no UTF-8 and the characters hidden says are escaped (\xHH below U+0100, \uHHHH
// above), so that what is shown is what the log holds, readable.
func printable(b []byte, n int) string {
	var sb strings.Builder
	for len(b) > 0 && sb.Len() < n {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		case hidden(r) && r < 0x100:
			fmt.Fprintf(&sb, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteRune(r)
		}
		b = b[size:]
	}
	if len(b) > 0 {
		sb.WriteString("…")
	}
	return sb.String()
}

// hidden reports whether r changes how text around it is shown rather than showing itself:
// C0 and C1 controls and DEL; bidi controls (embeddings, overrides, isolates, marks), which
// reorder what follows them (U+202E shows "/gpj.exe" as "/exe.jpg"); line and paragraph
// separators, which break the line.
func hidden(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f || r == 0x061c
}

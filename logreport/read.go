package logreport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxLine is the longest line read; a longer one is unreadable (and skipped to its end).
const maxLine = 64 << 10

// ReadLog reads the log r, named name ("-" for standard input), line by line into the
// report. A gzip-compressed log (told by its magic bytes, whatever its name) is
// decompressed; several concatenated gzip members are read as one log. A log that ends
// early (a truncated or corrupt gzip stream) keeps what was read before the end, and its
// Input says why it stopped; so does a read error, a log that starts as gzip but whose
// header is none (nothing of it is read: decompressed bytes are not a text log), and a log
// none of whose lines is an access log entry (not a log, or not one of the formats read).
// The error returned is that one, nil when the log was read to its end.
func (b *Builder) ReadLog(name string, r io.Reader) error {
	in := &Input{Name: name, Formats: map[string]int64{}}
	b.rep.Inputs = append(b.rep.Inputs, in)
	b.input = in
	b.inputUnreadable = 0
	fail := func(msg string) error {
		in.Error = msg
		return fmt.Errorf("%s: %s", name, in.Error)
	}
	br := bufio.NewReaderSize(r, maxLine)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fail("corrupt gzip: " + strings.TrimPrefix(err.Error(), "gzip: ") + "; nothing of it is read")
		}
		in.Gzip = true
		br = bufio.NewReaderSize(zr, maxLine)
	}
	var long bool // in the middle of a line longer than maxLine
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !long {
				in.Lines++
				b.unreadable(line, fmt.Sprintf("line longer than %d KiB", maxLine>>10))
			}
			long = true
			continue
		case long:
			long = false
		case err == nil:
			in.Lines++
			b.line(line)
		case len(line) > 0 && err == io.EOF:
			in.Lines++
			b.line(line)
		case len(line) > 0:
			in.Lines++
			b.unreadable(line, "cut off where the log ends early")
		}
		if err == io.EOF {
			if b.inputUnreadable > 0 && len(in.Formats) == 0 {
				return fail("no line is an access log entry (Caddy JSON, Combined or Common)")
			}
			return nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return fail("truncated: the gzip stream ends early; the lines before are counted")
			}
			if in.Gzip {
				return fail("corrupt gzip: " + strings.TrimPrefix(err.Error(), "gzip: ") + "; the lines before are counted")
			}
			return fail(err.Error())
		}
	}
}

// line reads one line into the report.
func (b *Builder) line(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	format, err := Parse(line, &b.entry)
	if err != nil {
		b.unreadable(line, err.Error())
		return
	}
	b.input.Formats[format]++
	b.Add(&b.entry)
}

func (b *Builder) unreadable(line []byte, reason string) {
	u := &b.rep.Unreadable
	u.Count++
	b.inputUnreadable++
	if len(u.Examples) < MaxExamples {
		u.Examples = append(u.Examples, Unreadable{Input: b.input.Name, Line: b.input.Lines, Reason: reason, Text: printable(bytes.TrimRight(line, "\r\n"), 200)})
	}
}

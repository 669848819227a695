package logreport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// maxLine is the longest line read; a longer one is unreadable (and skipped to its end).
const maxLine = 64 << 10

// readSize is how much of a log is read at once, and chunkSize how many bytes of whole lines
// a chunk holds (all but a log's last hold at least as many): the unit of work handed to a
// worker. Variables for the tests, which cut small logs into many chunks.
var (
	readSize  = 64 << 10
	chunkSize = 128 << 10
)

// ReadLog reads the log r, named name ("-" for standard input), line by line into the
// report. A gzip-compressed log (told by its magic bytes, whatever its name) is
// decompressed; several concatenated gzip members are read as one log. A log that ends
// early (a truncated or corrupt gzip stream) keeps what was read before the end, and its
// Input says why it stopped; so does a read error, a log that starts as gzip but whose
// header is none (nothing of it is read: decompressed bytes are not a text log), and a log
// none of whose lines is an access log entry (not a log, or not one of the formats read).
// The error returned is that one, nil when the log was read to its end.
//
// ReadLog is ReadLogs of one log with one worker: the sequential run.
func (b *Builder) ReadLog(name string, r io.Reader) error {
	errs := b.ReadLogs([]Log{{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}}, 1)
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// logState is one log being read: its Input, whose lines, gzip and error the reader fills
// in, and whose formats and unreadable lines the workers count, once per chunk.
type logState struct {
	log Log
	in  *Input
	mu  sync.Mutex
	// unreadable are its unreadable lines.
	unreadable int64
	// err is why it was not read to its end; nil when it was.
	err error
}

func (ls *logState) fail(msg string) {
	ls.in.Error = msg
	ls.err = fmt.Errorf("%s: %s", ls.in.Name, msg)
}

// finish says, once every chunk of the log is counted, whether it had no entry at all.
func (ls *logState) finish() {
	if ls.err == nil && ls.unreadable > 0 && len(ls.in.Formats) == 0 {
		ls.fail("no line is an access log entry (Caddy JSON, Combined or Common)")
	}
}

// chunk is a piece of one log for one worker: whole lines, each ending in '\n' (the reader
// ends a log's last line with one). Of a line longer than maxLine (with its '\n') it holds
// the first maxLine bytes and a '\n': its start, which is shown, and a line too long.
type chunk struct {
	log  *logState
	data []byte
	// first is the number of the line before its first one, in its log.
	first int64
	// cut says its last line is cut off where the log ended early.
	cut bool
}

// chunkPool holds chunks for reuse: their number is bounded by the readers and workers
// holding them and the queue between them, not by the pool.
var chunkPool = sync.Pool{New: func() any { return &chunk{data: make([]byte, 0, chunkSize+readSize+maxLine+2)} }}

func newChunk(ls *logState) *chunk {
	c := chunkPool.Get().(*chunk)
	*c = chunk{log: ls, data: c.data[:0]}
	return c
}

// splitter cuts the bytes of a log into whole lines.
type splitter struct {
	part []byte // the start of a line that has not ended yet, at most maxLine bytes
	skip bool   // in a line longer than maxLine, whose rest is skipped
}

// feed appends the lines p ends to c and keeps the line it starts: lines are copied whole,
// but for a line longer than maxLine, of which maxLine bytes are kept (and a '\n').
func (s *splitter) feed(p []byte, c *chunk) {
	for len(p) > 0 {
		if s.skip {
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				return
			}
			p, s.skip = p[i+1:], false
			continue
		}
		if len(s.part) > 0 {
			// The line begun in an earlier read.
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				s.part = append(s.part, p...)
				if len(s.part) > maxLine {
					c.data = append(append(c.data, s.part[:maxLine]...), '\n')
					s.part, s.skip = s.part[:0], true
				}
				return
			}
			if len(s.part)+i+1 > maxLine {
				s.part = append(s.part, p[:min(i+1, maxLine)]...)
				c.data = append(append(c.data, s.part[:maxLine]...), '\n')
			} else {
				c.data = append(append(c.data, s.part...), p[:i+1]...)
			}
			s.part, p = s.part[:0], p[i+1:]
			continue
		}
		// Whole lines (one longer than maxLine among them is told by its length), then the
		// start of the next.
		i := bytes.LastIndexByte(p, '\n')
		c.data = append(c.data, p[:i+1]...)
		p = p[i+1:]
		if len(p) > 0 {
			s.part = append(s.part, p...)
			if len(s.part) > maxLine {
				c.data = append(append(c.data, s.part[:maxLine]...), '\n')
				s.part, s.skip = s.part[:0], true
			}
			return
		}
	}
}

// read reads the log of ls from r (decompressed when it is gzip) into chunks of whole lines,
// handing each to emit in order, and fills in the Input's lines, gzip and error.
func (ls *logState) read(r io.Reader, emit func(*chunk)) {
	in := ls.in
	br := bufio.NewReaderSize(r, readSize)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			ls.fail("corrupt gzip: " + strings.TrimPrefix(err.Error(), "gzip: ") + "; nothing of it is read")
			return
		}
		in.Gzip = true
		src = zr
	}
	var s splitter
	buf := make([]byte, readSize)
	send := func(c *chunk) {
		c.first = in.Lines
		in.Lines += int64(bytes.Count(c.data, []byte{'\n'}))
		emit(c)
	}
	c := newChunk(ls)
	for {
		n, err := src.Read(buf)
		s.feed(buf[:n], c)
		if err == nil {
			if len(c.data) >= chunkSize {
				send(c)
				c = newChunk(ls)
			}
			continue
		}
		if !s.skip && len(s.part) > 0 {
			// The last line, without its '\n': whole at the end of the log, cut off where it
			// ends early.
			c.data = append(append(c.data, s.part...), '\n')
			c.cut = err != io.EOF
		}
		if len(c.data) > 0 {
			send(c)
		} else {
			chunkPool.Put(c)
		}
		switch {
		case err == io.EOF:
		case errors.Is(err, io.ErrUnexpectedEOF):
			ls.fail("truncated: the gzip stream ends early; the lines before are counted")
		case in.Gzip:
			ls.fail("corrupt gzip: " + strings.TrimPrefix(err.Error(), "gzip: ") + "; the lines before are counted")
		default:
			ls.fail(err.Error())
		}
		return
	}
}

// format indexes a Builder's counts of lines by format.
var formats = [...]string{FormatCaddy, FormatCombined, FormatCommon}

// readChunk reads the lines of c into the report, and counts them in their log's Input.
func (b *Builder) readChunk(c *chunk) {
	b.cur = chunkCounts{name: c.log.in.Name, line: c.first}
	data := c.data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data[:i+1]
		data = data[i+1:]
		b.cur.line++
		switch {
		case len(line) > maxLine:
			b.unreadable(line[:maxLine], fmt.Sprintf("line longer than %d KiB", maxLine>>10))
		case c.cut && len(data) == 0:
			b.unreadable(line, "cut off where the log ends early")
		default:
			b.line(line)
		}
	}
	ls := c.log
	ls.mu.Lock()
	for i, n := range b.cur.formats {
		if n > 0 {
			ls.in.Formats[formats[i]] += n
		}
	}
	ls.unreadable += b.cur.unreadable
	ls.mu.Unlock()
	c.log = nil
	chunkPool.Put(c)
}

// chunkCounts are what a Builder counts of the chunk it reads.
type chunkCounts struct {
	name       string // its log's
	line       int64  // the number of the line read
	formats    [len(formats)]int64
	unreadable int64
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
	switch format {
	case FormatCaddy:
		b.cur.formats[0]++
	case FormatCombined:
		b.cur.formats[1]++
	default:
		b.cur.formats[2]++
	}
	b.Add(&b.entry)
}

// unreadable counts an unreadable line; the report shows the first MaxExamples by log name
// and line number, whatever the order they are read in.
func (b *Builder) unreadable(line []byte, reason string) {
	u := &b.rep.Unreadable
	u.Count++
	b.cur.unreadable++
	ex := Unreadable{Input: b.cur.name, Line: b.cur.line}
	if len(u.Examples) == MaxExamples && !exampleBefore(ex, u.Examples[MaxExamples-1]) {
		return
	}
	ex.Reason, ex.Text = reason, printable(bytes.TrimRight(line, "\r\n"), 200)
	u.Examples = addExample(u.Examples, ex)
}

// exampleBefore orders the unreadable lines shown: by log name, then line number.
func exampleBefore(a, b Unreadable) bool {
	if a.Input != b.Input {
		return a.Input < b.Input
	}
	return a.Line < b.Line
}

// addExample adds ex to the examples, kept in order and at most MaxExamples.
func addExample(examples []Unreadable, ex Unreadable) []Unreadable {
	i := len(examples)
	for i > 0 && exampleBefore(ex, examples[i-1]) {
		i--
	}
	if i >= MaxExamples {
		return examples
	}
	examples = append(examples[:i], append([]Unreadable{ex}, examples[i:]...)...)
	if len(examples) > MaxExamples {
		examples = examples[:MaxExamples]
	}
	return examples
}

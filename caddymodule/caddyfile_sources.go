package caddymodule

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/command"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// The "caddy robots" commands name Caddyfile lines in their findings. The Caddyfile adapter
// keeps no lines in the JSON it produces, so while a command adapts a config, the directive
// parsers leave a note of each handler they build and the lines of its fields (the positions
// that name lines in config errors); the command then pairs the handlers of the adapted JSON
// with the notes by their JSON. The problems of a directive that fails are noted too, so that
// the command can report them with their lines (Caddy passes on only the message).
//
// The notes of one adaptation are one recording, which no other adaptation writes to. Caddy's
// adapter hands the directive parsers the options of the call (httpcaddyfile.Helper.Option),
// but the commands adapt through caddycmd.LoadConfig, to load exactly as "caddy run" does (the
// same choice of file and adapter, the same messages, the warnings logged), and LoadConfig
// makes those options itself: only {"filename": the config file}. Nothing of the caller
// reaches the parsers, so the recording is reached through the package: recordSources
// creates it, installs it for exactly the duration of its one adaptation, and holds
// recordMu meanwhile, so that two adaptations that record (two loads at once) take turns,
// each with its own recording. A parser notes into the recording only when its adaptation
// is of the recording's file (the "filename" option): a Caddyfile adapted at the same time
// by someone else (a config loaded through the admin API, which passes no file name) is not
// noted. Outside a recording nothing is noted.

// recording is the record of one adaptation.
type recording struct {
	file string // the config file adapted, as the adapter's "filename" option names it
	mu   sync.Mutex
	// notes are the handlers' sources by the handler's canonical JSON, in Caddyfile order.
	notes map[string][]policycheck.Source
	// problems are those of the directive that failed (adaptation stops at the first).
	problems []cli.Problem
}

var (
	// recordMu is held by recordSources for the whole of one recorded adaptation.
	recordMu sync.Mutex
	// recordingNow is the recording of the adaptation under way, if one records.
	recordingNow atomic.Pointer[recording]
)

// positionsKey is the key of a directive's positions in the context of its dispenser, from
// which the parser's caller takes them for the recording.
const positionsKey = "github.com/sitepolicy/caddy-robots/caddymodule.positions"

// notePositions keeps p, the positions of the handler whose parsing starts on d, for
// noteHandler.
func notePositions(d *caddyfile.Dispenser, p *positions) {
	d.SetContext(positionsKey, p)
}

// noteHandler records the handler just parsed by a directive of h, with the positions of its
// fields, or the problems that refused it, when h's adaptation is the one recording.
func noteHandler(h httpcaddyfile.Helper, handler any, err error) {
	rec := recordingNow.Load()
	if rec == nil {
		return
	}
	if file, _ := h.Option("filename").(string); file != rec.file {
		return
	}
	p, _ := h.Dispenser.GetContext(positionsKey).(*positions)
	rec.note(handler, p, err)
}

func (rec *recording) note(handler any, p *positions, err error) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if err != nil {
		rec.problems = append(rec.problems, problemsOf(err)...)
		return
	}
	if p == nil {
		return
	}
	b, err := json.Marshal(handler)
	if err != nil {
		return
	}
	key := command.CanonicalJSON(b)
	src := policycheck.Source{File: p.file, Line: p.line, Lines: map[string]int{}}
	for path, pos := range p.byPath {
		src.Lines[path] = pos.line
	}
	rec.notes[key] = append(rec.notes[key], src)
}

// recordSources runs adapt, the adaptation of file (as the adapter's "filename" option
// names it), with a recording of its own, and returns the notes taken. An error of adapt
// comes back as a *cli.FileError with the problems the directives noted, or, for an error of
// Caddy's own, the place its message names.
func recordSources(file string, adapt func() error) (map[string][]policycheck.Source, error) {
	rec := &recording{file: file, notes: map[string][]policycheck.Source{}}
	err := func() error {
		recordMu.Lock()
		defer recordMu.Unlock()
		recordingNow.Store(rec)
		defer recordingNow.Store(nil)
		return adapt()
	}()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	problems := rec.problems
	if err != nil {
		if len(problems) == 0 {
			if p, ok := caddyLocation(err.Error()); ok {
				problems = []cli.Problem{p}
			}
		}
		if len(problems) > 0 {
			err = &cli.FileError{Err: err, Problems: problems}
		}
	}
	return rec.notes, err
}

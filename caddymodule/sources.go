package caddymodule

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// The "caddy robots" commands name Caddyfile lines in their findings. The Caddyfile adapter
// keeps no lines in the JSON it produces, so while a command adapts a config, the directive
// parsers leave a note of each handler they build and the lines of its fields (the positions
// that name lines in config errors); the command then pairs the handlers of the adapted JSON
// with the notes by their JSON. The problems of a directive that fails are noted too, so that
// the command can report them with their lines (Caddy passes on only the message). Outside a
// command nothing is recorded.

// sourceNotes is the record; on is set only while a command adapts its config (adaptation
// runs the parsers one after another).
var sourceNotes struct {
	sync.Mutex
	on    bool
	last  *positions
	notes map[string][]policycheck.Source // by the handler's canonical JSON, in Caddyfile order
	// problems are those of the directive that failed (adaptation stops at the first).
	problems []cli.Problem
}

// notePositions is called for each handler's positions as its parsing starts.
func notePositions(p *positions) {
	sourceNotes.Lock()
	defer sourceNotes.Unlock()
	if sourceNotes.on {
		sourceNotes.last = p
	}
}

// noteHandler records the handler just parsed with the positions of its fields, or the
// problems that refused it.
func noteHandler(h any, err error) {
	sourceNotes.Lock()
	defer sourceNotes.Unlock()
	p := sourceNotes.last
	sourceNotes.last = nil
	if sourceNotes.on && err != nil {
		sourceNotes.problems = append(sourceNotes.problems, problemsOf(err)...)
	}
	if !sourceNotes.on || err != nil || p == nil {
		return
	}
	b, err := json.Marshal(h)
	if err != nil {
		return
	}
	key := canonicalJSON(b)
	src := policycheck.Source{File: p.file, Line: p.line, Lines: map[string]int{}}
	for path, pos := range p.byPath {
		src.Lines[path] = pos.line
	}
	sourceNotes.notes[key] = append(sourceNotes.notes[key], src)
}

// recordSources runs adapt with the record on and returns the notes taken. An error of adapt
// comes back as a *cli.FileError with the problems the directives noted, or, for an
// error of Caddy's own, the place its message names.
func recordSources(adapt func() error) (map[string][]policycheck.Source, error) {
	sourceNotes.Lock()
	sourceNotes.on, sourceNotes.notes, sourceNotes.problems = true, map[string][]policycheck.Source{}, nil
	sourceNotes.Unlock()
	err := adapt()
	sourceNotes.Lock()
	defer sourceNotes.Unlock()
	notes, problems := sourceNotes.notes, sourceNotes.problems
	sourceNotes.on, sourceNotes.notes, sourceNotes.last, sourceNotes.problems = false, nil, nil, nil
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
	return notes, err
}

// canonicalJSON re-encodes a JSON object with sorted keys and without its "handler" member, so
// that a handler marshalled by the parser and the same handler in the adapted config compare
// equal.
func canonicalJSON(b []byte) string {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return string(b)
	}
	delete(v, "handler")
	out, err := json.Marshal(v)
	if err != nil {
		return string(b)
	}
	return string(out)
}

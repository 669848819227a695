package caddymodule

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/sitepolicy/caddy-robots/policycheck"
)

// The "caddy robots" commands name Caddyfile lines in their findings. The Caddyfile adapter
// keeps no lines in the JSON it produces, so while a command adapts a config, the directive
// parsers leave a note of each handler they build and the lines of its fields (the positions
// that name lines in config errors); the command then pairs the handlers of the adapted JSON
// with the notes by their JSON. Outside a command nothing is recorded.

// sourceNotes is the record; on is set only while a command adapts its config (adaptation
// runs the parsers one after another).
var sourceNotes struct {
	sync.Mutex
	on    bool
	last  *positions
	notes map[string][]policycheck.Source // by the handler's canonical JSON, in Caddyfile order
}

// notePositions is called for each handler's positions as its parsing starts.
func notePositions(p *positions) {
	sourceNotes.Lock()
	defer sourceNotes.Unlock()
	if sourceNotes.on {
		sourceNotes.last = p
	}
}

// noteHandler records the handler just parsed with the positions of its fields.
func noteHandler(h any, err error) {
	sourceNotes.Lock()
	defer sourceNotes.Unlock()
	p := sourceNotes.last
	sourceNotes.last = nil
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

// recordSources runs adapt with the record on and returns the notes taken.
func recordSources(adapt func() error) (map[string][]policycheck.Source, error) {
	sourceNotes.Lock()
	sourceNotes.on, sourceNotes.notes = true, map[string][]policycheck.Source{}
	sourceNotes.Unlock()
	err := adapt()
	sourceNotes.Lock()
	defer sourceNotes.Unlock()
	notes := sourceNotes.notes
	sourceNotes.on, sourceNotes.notes, sourceNotes.last = false, nil, nil
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

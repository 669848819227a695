package logreport

import (
	"cmp"
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// Log is a log to read: its name ("-" for standard input) and how to open it.
type Log struct {
	Name string
	// Open opens it; ReadLogs closes it when it is read.
	Open func() (io.ReadCloser, error)
}

// ReadLogs reads logs into the report (as ReadLog reads one) with workers goroutines, and
// returns the errors of the logs not read to their end, by log name. A log is read by one
// reader (which decompresses it) and cut into chunks of whole lines, which the workers
// parse and replay, each into a Builder of its own; these are merged at the end (merge).
// Everything a report counts merges exactly and none of it depends on the order lines are
// read in (the examples of unreadable lines are the first by log name and line number), so
// the report is the same for any number of workers, any order of the logs, and any
// scheduling: byte for byte that of workers = 1, the sequential run, which reads in the
// calling goroutine. Memory is bounded per worker: a Builder's (see the package's limits),
// and a few chunks in flight.
func (b *Builder) ReadLogs(logs []Log, workers int) []error {
	logs = slices.Clone(logs)
	slices.SortStableFunc(logs, func(x, y Log) int { return cmp.Compare(x.Name, y.Name) })
	states := make([]*logState, len(logs))
	for i, l := range logs {
		in := &Input{Name: l.Name, Formats: map[string]int64{}}
		b.rep.Inputs = append(b.rep.Inputs, in)
		states[i] = &logState{log: l, in: in}
	}
	if workers <= 1 {
		for _, ls := range states {
			ls.open(b.readChunk)
		}
	} else {
		b.readParallel(states, workers)
	}
	var errs []error
	for _, ls := range states {
		ls.finish()
		if ls.err != nil {
			errs = append(errs, ls.err)
		}
	}
	return errs
}

// open opens the log and reads it, handing its chunks to emit.
func (ls *logState) open(emit func(*chunk)) {
	r, err := ls.log.Open()
	if err != nil {
		ls.fail(err.Error())
		return
	}
	defer r.Close()
	ls.read(r, emit)
}

// readParallel reads the logs with as many readers as there are workers (or logs), each
// reading one log at a time, and workers goroutines reading their chunks, batched: one
// channel send per chunk, no lock per line.
func (b *Builder) readParallel(states []*logState, workers int) {
	chunks := make(chan *chunk, workers)
	var next atomic.Int64
	var readers sync.WaitGroup
	for range min(workers, len(states)) {
		readers.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(states)); i = next.Add(1) - 1 {
				states[i].open(func(c *chunk) { chunks <- c })
			}
		})
	}
	go func() {
		readers.Wait()
		close(chunks)
	}()
	parts := make([]*Builder, workers)
	var wg sync.WaitGroup
	for w := range parts {
		parts[w] = NewBuilder(b.rp, b.opts)
		wg.Go(func() {
			for c := range chunks {
				parts[w].readChunk(c)
			}
		})
	}
	wg.Wait()
	for _, p := range parts {
		b.merge(p)
	}
}

package serve

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// fileCheckInterval is how often, at most, a request for robots.txt checks whether merge_file
// has changed: a stat, and only when the file did change, reading and merging it again.
const fileCheckInterval = time.Second

// fileWatch is the merge_file of a RobotsTxt. A request for robots.txt checks it at most once
// per fileCheckInterval, so that an edited file takes effect without a config reload (Caddy
// skips a reload whose config is unchanged, and a file's contents are not part of it). A file
// that can no longer be read or merged leaves the last good merge served, with a warning.
type fileWatch struct {
	path     string
	declared robotsgen.File
	warn     func(string)

	checked atomic.Int64 // UnixNano of the last check
	mu      sync.Mutex   // one check at a time; guards the fields below
	info    os.FileInfo  // what the served merge was read from; nil if the stat failed
	failed  string       // the last problem warned about, not to repeat it on every check
}

// merge returns the state serving the declared file merged with data, the file's contents.
func (w *fileWatch) merge(data []byte) (*rtState, error) {
	other, diags := robotsgen.Parse(data)
	for _, d := range diags {
		w.warn(fmt.Sprintf("merge_file %s: line %d skipped or changed: %s: %q", w.path, d.Line, d.Reason, d.Text))
	}
	all, mdiags := robotsgen.MergeForMatching(&w.declared, other)
	for _, d := range mdiags {
		w.warn(fmt.Sprintf("merge_file %s: merged inexactly, erring towards disallow: %s: %s", w.path, d.Text, d.Reason))
	}
	served := all.Renderable()
	if err := served.Validate(); err != nil {
		return nil, err
	}
	return newState(*served, all)
}

// refresh reads merge_file again when it has changed since it was last read, and serves the
// new merge from then on (enforcement too). It returns at once when the file was checked less
// than fileCheckInterval ago or another request is checking it.
func (rt *robotsTxt) refresh() {
	w := rt.watch
	if w == nil {
		return
	}
	now := time.Now().UnixNano()
	if last := w.checked.Load(); now-last < int64(fileCheckInterval) || !w.checked.CompareAndSwap(last, now) {
		return
	}
	if !w.mu.TryLock() {
		return
	}
	defer w.mu.Unlock()
	info, err := os.Stat(w.path)
	if err != nil {
		w.problem(fmt.Sprintf("merge_file %s: cannot read it any more (%v): serving the last merge read", w.path, unwrapPath(err)))
		return
	}
	if w.info != nil && os.SameFile(info, w.info) && info.ModTime().Equal(w.info.ModTime()) && info.Size() == w.info.Size() {
		return
	}
	data, err := readMergeFile(w.path)
	if err != nil {
		w.problem(fmt.Sprintf("merge_file %s: %v: serving the last merge read", w.path, err))
		return
	}
	st, err := w.merge(data)
	w.info = info // a file that does not merge is not read again until it changes
	if err != nil {
		w.problem(fmt.Sprintf("merge_file %s changed, but merged with the declared file it is not a valid robots.txt (%v): serving the last merge read", w.path, err))
		return
	}
	w.failed = ""
	cur := rt.state.Load()
	if cur.fixed != nil && st.fixed != nil && bytes.Equal(cur.fixed.body, st.fixed.body) {
		return // the same file served: keep its Last-Modified and ETag
	}
	if rt.enforcing.Load() {
		st.enforce.Store(newEnforceState(st.matching, cur.enforce.Load()))
	}
	rt.state.Store(st)
	w.warn(fmt.Sprintf("merge_file %s changed: serving the declared file merged with its new contents", w.path))
}

// problem warns about msg unless it was the last problem warned about.
func (w *fileWatch) problem(msg string) {
	if msg != w.failed {
		w.failed = msg
		w.warn(msg)
	}
}

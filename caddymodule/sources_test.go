package caddymodule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/command"
)

// TestSourceRecordingPerAdaptation: the Caddyfile lines of one adaptation are its own, with
// adaptations at the same time: others that record, of two files whose handlers have the same
// JSON at other lines, and adaptations that do not record (as the admin API adapts). Outside
// an adaptation that records, nothing is installed.
func TestSourceRecordingPerAdaptation(t *testing.T) {
	dir := t.TempDir()
	files := map[string]int{} // file: the line of its robots_tag
	for i, blank := range []int{0, 3} {
		name := filepath.Join(dir, fmt.Sprintf("site%d.caddyfile", i))
		body := fmt.Sprintf("http://s%d.example:9999 {\n%s\trobots_tag noindex\n\trespond ok\n}\n", i, strings.Repeat("\n", blank))
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = 2 + blank
	}
	foreign := []byte("http://f.example:9999 {\n\trobots_tag noindex\n\trobots_tag /x/* noindex\n\trespond ok\n}\n")
	const rounds = 20
	var wg sync.WaitGroup
	errs := make(chan error, rounds*len(files)+rounds)
	for name, line := range files {
		for range rounds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				notes, err := recordSources(name, func() error {
					_, _, _, err := caddycmd.LoadConfig(name, "")
					return err
				})
				if err != nil {
					errs <- err
					return
				}
				var got []string
				for _, srcs := range notes {
					for _, s := range srcs {
						got = append(got, fmt.Sprintf("%s:%d", s.File, s.Line))
					}
				}
				if want := fmt.Sprintf("%s:%d", name, line); len(got) != 1 || got[0] != want {
					errs <- fmt.Errorf("recorded %v, want only %s", got, want)
				}
			}()
		}
	}
	for range rounds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(foreign, nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A whole load pairs the handler with its own line. (Loads do not run at once:
	// caddy.Validate provisions Caddy's apps, which share process-wide state.)
	for name, line := range files {
		lc, err := command.Load(name, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(lc.Sources()) != 1 {
			t.Errorf("%s: %d handlers paired, want 1", name, len(lc.Sources()))
		}
		for path, s := range lc.Sources() {
			if s.File != name || s.Line != line {
				t.Errorf("%s: %s at %s:%d, want line %d", name, path, s.File, s.Line, line)
			}
		}
	}
	if recordingNow.Load() != nil {
		t.Error("a recording is left installed after the loads")
	}
	if !recordMu.TryLock() {
		t.Fatal("recordMu is left held after the loads")
	}
	recordMu.Unlock()
}

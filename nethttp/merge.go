package nethttp

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/sitepolicy/caddy-robots/internal/serve"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// MergeConfig merges the declared file with a robots.txt the site already has (a CMS's, an
// app's), so that both files' restrictions hold: where a rule of the declared group that
// applies to a crawler matches a path, the declared file decides; elsewhere the other file
// does (robotsgen.Merge says exactly how, and which combinations err towards disallow).
type MergeConfig struct {
	// MergeFile is a robots.txt file read when the middleware is built. A file that cannot be
	// read is a config error; lines it skips or changes are logged at warn level with their
	// line numbers.
	MergeFile string `json:"merge_file,omitempty"`

	// MergeUpstream merges the wrapped handler's own /robots.txt at serve time: on GET or HEAD
	// of /robots.txt the handler is asked for its file (a GET without conditional headers,
	// credentials or compression), whose first 500 KiB are merged and served with the usual
	// headers. The merge is cached per scheme and host and revalidated after MaxAge in the
	// background; a 4xx or an HTML page means the handler has no rules (the declared file is
	// served); a 5xx or timeout serves the last good merge, or passes the status on.
	MergeUpstream bool `json:"merge_upstream,omitempty"`

	// MergeUpstreamTimeout bounds one fetch of the handler's robots.txt, at most 1m; 0 means
	// 5s.
	MergeUpstreamTimeout Duration `json:"merge_upstream_timeout,omitempty"`
}

// Options returns the core's merge options.
func (c MergeConfig) options() serve.MergeOptions {
	return serve.MergeOptions{File: c.MergeFile, Upstream: c.MergeUpstream, Timeout: time.Duration(c.MergeUpstreamTimeout)}
}

// newRobotsTxt builds the responder of file, merged as the config says.
func (c *RobotsTxtConfig) newRobotsTxt(file robotsgen.File, maxAge time.Duration, log serve.Log, logger *slog.Logger) (*serve.RobotsTxt, *serve.Upstream, error) {
	if logger == nil {
		logger = slog.Default()
	}
	return serve.NewMergingRobotsTxt(file, maxAge, c.MergeConfig.options(), log, func(msg string) {
		logger.Warn(msg)
	})
}

// serveRobotsTxt serves a request for /robots.txt, merged with the wrapped handler's when the
// config says so.
func (h *middlewareHandler) serveRobotsTxt(w http.ResponseWriter, r *http.Request) error {
	if h.m.merge == nil {
		return h.m.robots.ServeHTTP(w, r)
	}
	return h.m.merge.ServeHTTP(w, r, func(*http.Request) serve.Fetch {
		return func(w http.ResponseWriter, sub *http.Request) error {
			h.next.ServeHTTP(w, sub)
			return nil
		}
	})
}

package redisstore

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
)

// Options configure a Store: where the Redis server is, how to log in, TLS, the prefix of
// every key, and the timeouts. The JSON names are those of Caddy's global option, which
// embeds it; strings may hold {env.*} placeholders there (the Caddy module replaces them
// before New).
type Options struct {
	// Address is the server's host:port (default "localhost:6379"), or a unix socket's path
	// (starting with "/").
	Address string `json:"address,omitempty"`
	// Username and Password log in (AUTH, or ACL users with a username).
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	// DB is the database number (SELECT); 0 by default.
	DB int `json:"db,omitempty"`
	// TLS, if set, connects over TLS.
	TLS *TLS `json:"tls,omitempty"`
	// KeyPrefix starts every key the store writes (default "caddy-robots:"), so that one
	// server can hold several fleets, or other data, apart.
	KeyPrefix string `json:"key_prefix,omitempty"`
	// DialTimeout bounds connecting (default 1s); a request never waits longer than Timeout
	// for it.
	DialTimeout policy.Duration `json:"dial_timeout,omitempty"`
	// Timeout bounds each decision, one round trip (default 100ms): a request that needs the
	// store waits at most this long, then falls back (docs/fleet.md).
	Timeout policy.Duration `json:"timeout,omitempty"`
	// Backoff is how long the store is not asked after a call failed (default 1s): during
	// an outage one call per Backoff pays the timeout, the others fall back at once. The
	// first call after it tries again: recovery needs no restart.
	Backoff policy.Duration `json:"backoff,omitempty"`

	// TLSConfig, for Go users, is the TLS configuration itself (TLS is then ignored).
	TLSConfig *tls.Config `json:"-"`
	// Logger is told, at most once per LogInterval, that the store failed (warn level, with
	// the operation and error), and when it answers again (info level). Nil logs nothing.
	Logger *slog.Logger `json:"-"`
}

// TLS configure a TLS connection to the server.
type TLS struct {
	// Enabled connects over TLS, verifying the server's certificate against the system's
	// roots, or CAFile's.
	Enabled bool `json:"enabled,omitempty"`
	// CAFile is a PEM file of the certificates that sign the server's.
	CAFile string `json:"ca_file,omitempty"`
	// CertFile and KeyFile are PEM files of a client certificate and its key (mutual TLS).
	CertFile string `json:"cert_file,omitempty"`
	KeyFile  string `json:"key_file,omitempty"`
	// ServerName is the name the server's certificate is checked against (default: the
	// host of Address).
	ServerName string `json:"server_name,omitempty"`
}

// LogInterval is the least time between two log lines about failures of the store.
const LogInterval = time.Minute

const (
	defaultAddress = "localhost:6379"
	defaultPrefix  = "caddy-robots:"
	defaultDial    = time.Second
	defaultTimeout = 100 * time.Millisecond
	defaultBackoff = time.Second
)

// withDefaults returns o with the defaults filled in, or an error at the field at fault (its
// JSON path).
func (o Options) withDefaults() (Options, error) {
	if o.Address == "" {
		o.Address = defaultAddress
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = defaultPrefix
	}
	for _, d := range []struct {
		v    *policy.Duration
		def  time.Duration
		path string
	}{{&o.DialTimeout, defaultDial, "dial_timeout"}, {&o.Timeout, defaultTimeout, "timeout"}, {&o.Backoff, defaultBackoff, "backoff"}} {
		if *d.v < 0 {
			return o, configerr.New(d.path, time.Duration(*d.v).String(), "a duration must not be negative")
		}
		if *d.v == 0 {
			*d.v = policy.Duration(d.def)
		}
	}
	if o.DB < 0 {
		return o, configerr.New("db", fmt.Sprint(o.DB), "the database number must not be negative")
	}
	if !strings.HasPrefix(o.Address, "/") && !strings.Contains(o.Address, ":") {
		return o, configerr.New("address", o.Address, "want host:port (such as localhost:6379) or a unix socket's path")
	}
	return o, nil
}

// tlsConfig is the TLS configuration o asks for, nil for none.
func (o Options) tlsConfig() (*tls.Config, error) {
	if o.TLSConfig != nil {
		return o.TLSConfig, nil
	}
	t := o.TLS
	if t == nil || (!t.Enabled && t.CAFile == "" && t.CertFile == "" && t.KeyFile == "" && t.ServerName == "") {
		return nil, nil
	}
	if !t.Enabled {
		return nil, configerr.New("tls.enabled", "false", "TLS files or a server name are set but TLS is not enabled")
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if c.ServerName == "" {
		if host, _, err := net.SplitHostPort(o.Address); err == nil {
			c.ServerName = host
		}
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, configerr.New("tls.ca_file", t.CAFile, err.Error())
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, configerr.New("tls.ca_file", t.CAFile, "no PEM certificate in the file")
		}
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, configerr.New("tls.cert_file", t.CertFile, "a client certificate needs both cert_file and key_file")
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, configerr.New("tls.cert_file", t.CertFile, err.Error())
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

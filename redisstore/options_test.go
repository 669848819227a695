package redisstore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/policy"
)

// TestOptionsErrors: bad options are refused by New, each naming its JSON field.
func TestOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "redis.test"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}, &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "redis.test"}}, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	for _, c := range []struct {
		opts Options
		path string // "" when valid
	}{
		{Options{}, ""},
		{Options{Address: "/run/redis.sock"}, ""},
		{Options{Address: "redis.internal"}, "address"},
		{Options{DB: -1}, "db"},
		{Options{Timeout: policy.Duration(-time.Second)}, "timeout"},
		{Options{DialTimeout: policy.Duration(-time.Second)}, "dial_timeout"},
		{Options{Backoff: policy.Duration(-time.Second)}, "backoff"},
		{Options{TLS: &TLS{CAFile: ca}}, "tls.enabled"},
		{Options{TLS: &TLS{Enabled: true, CAFile: ca}}, ""},
		{Options{TLS: &TLS{Enabled: true, CAFile: filepath.Join(dir, "missing.pem")}}, "tls.ca_file"},
		{Options{TLS: &TLS{Enabled: true, CAFile: notPEM}}, "tls.ca_file"},
		{Options{TLS: &TLS{Enabled: true, CertFile: ca}}, "tls.cert_file"},
		{Options{TLS: &TLS{Enabled: true, CertFile: ca, KeyFile: notPEM}}, "tls.cert_file"},
	} {
		s, err := New(c.opts)
		if s != nil {
			s.Close()
		}
		var ce *configerr.Error
		switch {
		case c.path == "" && err != nil:
			t.Errorf("%+v: %v", c.opts, err)
		case c.path != "" && (!errors.As(err, &ce) || ce.Path != c.path):
			t.Errorf("%+v: %v, want an error at %q", c.opts, err, c.path)
		}
	}
	// The server name defaults to the address's host.
	o := Options{Address: "redis.internal:6380", TLS: &TLS{Enabled: true}}
	tc, err := o.tlsConfig()
	if err != nil || tc.ServerName != "redis.internal" {
		t.Fatalf("server name: %v %v", tc, err)
	}
}

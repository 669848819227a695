package prom_test

import "crypto/tls"

// insecure trusts httptest's certificate.
func insecure() *tls.Config { return &tls.Config{InsecureSkipVerify: true} }

package nethttp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration that reads from JSON the way Caddy's durations do: an integer
// number of nanoseconds, or a string such as "90s", "1h30m" or "7d" (a day is 24h). It lets the
// same JSON configure the Caddy module and the net/http middleware.
type Duration time.Duration

// UnmarshalJSON accepts an integer (nanoseconds) or a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration: want an integer number of nanoseconds or a string like \"1h\": %w", err)
	}
	*d = Duration(n)
	return nil
}

// MarshalJSON writes the duration as a string, e.g. "1h0m0s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// ParseDuration parses a Go duration string, also accepting a "d" (24h) unit as Caddy does.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "d") && !strings.ContainsAny(s[:len(s)-1], "hmsuµn") {
		days, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q: %w", s, err)
		}
		return time.Duration(days * float64(24*time.Hour)), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (use e.g. 30m, 1h, 7d)", s)
	}
	return v, nil
}

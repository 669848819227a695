package policy

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// Duration is a time.Duration that reads from JSON the way Caddy's durations do: an integer
// number of nanoseconds, or a string such as "90s", "1h30m" or "1d" (a day is 24h). It lets the
// same JSON configure every front end.
type Duration time.Duration

// UnmarshalJSON accepts an integer (nanoseconds) or a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := syntax.ParseDuration(s)
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

// String formats the duration as time.Duration does, e.g. "1h0m0s".
func (d Duration) String() string { return time.Duration(d).String() }

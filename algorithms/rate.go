package algorithms

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rate is N units per duration Per: "2/s" is Rate{N: 2, Per: time.Second}.
// A Rate is exact: 1/3 s is kept as 1 per 3 s, never as 0.333… per second.
type Rate struct {
	N   int64
	Per time.Duration
}

// maxRateN bounds N so that products such as N × elapsed, computed only when
// they are known to be small, and N × 1e9 in formatting, never overflow int64.
const maxRateN = 1 << 31

// perUnits are the bare unit names accepted after the slash, beside any Go
// duration string ("1/500ms", "3/2s").
var perUnits = map[string]time.Duration{
	"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "ms": time.Millisecond,
	"s": time.Second, "sec": time.Second, "second": time.Second,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute,
	"h": time.Hour, "hour": time.Hour,
}

// ParseRate reads "N/D": N a positive integer, D a unit name (ns, us, ms, s,
// sec, second, m, min, minute, h, hour) or a positive Go duration ("500ms",
// "1m30s"). It also reads nginx's spelling, "Nr/s" and "Nr/m" (N requests a
// second or a minute), so that a limit_req_zone's rate= can be pasted.
func ParseRate(s string) (Rate, error) {
	num, per, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Rate{}, fmt.Errorf("rate %q: want N/D, such as 2/s, 120/min or 1/500ms", s)
	}
	if n, isR := strings.CutSuffix(strings.TrimSpace(num), "r"); isR {
		switch strings.TrimSpace(per) {
		case "s", "m":
			num = n
		default:
			return Rate{}, fmt.Errorf("rate %q: nginx's spelling is Nr/s or Nr/m, such as 2r/s or 30r/m", s)
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 {
		return Rate{}, fmt.Errorf("rate %q: N must be a positive integer", s)
	}
	per = strings.TrimSpace(per)
	d, known := perUnits[per]
	if !known {
		d, err = time.ParseDuration(per)
		if err != nil || d <= 0 {
			return Rate{}, fmt.Errorf("rate %q: D must be a unit (s, min, h, ms) or a positive duration such as 500ms", s)
		}
	}
	r := Rate{N: n, Per: d}
	return r, r.Validate()
}

// Validate reports whether r is usable: N in [1, 2^31], Per at least 1ns.
func (r Rate) Validate() error {
	if r.N <= 0 || r.Per <= 0 {
		return fmt.Errorf("rate %s: N and D must be positive", r)
	}
	if r.N > maxRateN {
		return fmt.Errorf("rate %s: N must be at most %d", r, int64(maxRateN))
	}
	return nil
}

// String writes r as ParseRate reads it: "2/s", "120/min", "1/500ms".
func (r Rate) String() string { return string(r.appendTo(nil)) }

// appendTo appends r.String() to b.
func (r Rate) appendTo(b []byte) []byte {
	b = append(strconv.AppendInt(b, r.N, 10), '/')
	switch r.Per {
	case time.Second:
		return append(b, 's')
	case time.Minute:
		return append(b, "min"...)
	case time.Hour:
		return append(b, 'h')
	}
	return AppendDuration(b, r.Per)
}

// MarshalText and UnmarshalText let a Rate appear as "2/s" in YAML and JSON.
func (r Rate) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses text with ParseRate.
func (r *Rate) UnmarshalText(text []byte) error {
	parsed, err := ParseRate(string(text))
	if err != nil {
		return err
	}
	*r = parsed
	return nil
}

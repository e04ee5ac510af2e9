package accesslog

import (
	"bytes"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// Rules turn a Record into what a rate limiter is asked: which key, at
// what cost, and whether the request is replayed at all. The zero Rules
// keeps every record, keyed by its client address, at cost 1.
//
// Rules remember the keys they have made, so that a key seen before costs
// no allocation: up to 65,536 of them, forgotten all at once when more
// come. Rules are not safe for concurrent use; set the fields before the
// first Apply and do not change them after.
type Rules struct {
	Key    KeyRule
	Cost   CostRule
	Filter Filter

	keys   map[string]string // a raw field value → its key
	keysOf *KeyRule          // the rule keys was made for
}

// A KeyRule says what a request's key is.
type KeyRule struct {
	// Field is the field the key is made from, remote_addr when empty.
	Field string
	// Pattern, when set, makes the key its first capture group (or its
	// whole match, when it has no group) in the field's value: the
	// leftmost match, as regexp's Find does. `[?&]api_key=([^&]+)` over
	// request_uri keys by an API key; `^/tenants/([^/]+)` over uri by a
	// tenant.
	Pattern *regexp.Regexp
	// IPv4Bits and IPv6Bits, without a Pattern, key an address by the
	// network of that many leading bits holding it ("192.0.2.0/24",
	// "2001:db8::/64"); 0 keys by the whole address. An IPv4 address
	// written in IPv6 ("::ffff:192.0.2.1") counts as IPv4; a zone is
	// dropped; a value that is not an address is its own key.
	IPv4Bits, IPv6Bits int
	// Missing is the key of a record without the field or whose field
	// the Pattern does not match; "-" when empty.
	Missing string
}

// A CostRule says what a request costs. A cost is at least 1: a smaller
// one is raised to 1.
type CostRule struct {
	// Field, when set, makes the cost the field's value, a whole number
	// ("body_bytes_sent"); a record without it, or where it is not a
	// whole number, costs Default.
	Field string
	// Paths, without a Field, give the cost of a request by its path
	// (the uri field: request_uri up to '?'): the first entry matching
	// it wins; a path matching none costs Default.
	Paths []PathCost
	// Default is the cost of a record the rule gives none; 1 when 0.
	Default int64
}

// A PathCost is the cost of the paths starting with Prefix, or, when
// Pattern is set, of the paths it matches (Prefix then unused).
type PathCost struct {
	Prefix  string
	Pattern *regexp.Regexp
	Cost    int64
}

// A Filter says which requests are replayed: those meeting every
// condition set (a zero Filter keeps all).
type Filter struct {
	// Methods keeps requests whose method is one of them, compared as
	// logged (case and all); a line without a method (its request "-"
	// or not HTTP) is dropped. None keeps every method.
	Methods []string
	// PathPrefix keeps requests whose path (the uri field) starts with it.
	PathPrefix string
	// PathPattern keeps requests whose path it matches.
	PathPattern *regexp.Regexp
	// Statuses keeps requests whose status is in one of them; a line
	// without a status is dropped. None keeps every status.
	Statuses []StatusRange
}

// A StatusRange is the statuses from Lo to Hi, both included.
type StatusRange struct{ Lo, Hi int }

// ParseStatusRange reads a status, "404", or a class of them, "5xx"
// (500 to 599), a digit from 1 to 9 and then "xx" or "XX".
func ParseStatusRange(s string) (StatusRange, error) {
	if len(s) == 3 && '1' <= s[0] && s[0] <= '9' && strings.EqualFold(s[1:], "xx") {
		lo := int(s[0]-'0') * 100
		return StatusRange{lo, lo + 99}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || len(s) != 3 || n < 100 {
		return StatusRange{}, fmt.Errorf("status %q is neither a status from 100 to 999 nor a class like 5xx", s)
	}
	return StatusRange{n, n}, nil
}

// maxKeys bounds the keys Rules remember.
const maxKeys = 1 << 16

// Apply gives a record's key and cost, and whether the Filter keeps it
// (when not, key and cost are "" and 0).
func (r *Rules) Apply(rec *Record) (key string, cost int64, keep bool) {
	if !r.Filter.keeps(rec) {
		return "", 0, false
	}
	return r.key(rec), r.Cost.cost(rec), true
}

func (f *Filter) keeps(rec *Record) bool {
	if len(f.Methods) > 0 {
		m := rec.Field("request_method")
		found := false
		for _, want := range f.Methods {
			if string(m) == want && m != nil {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if f.PathPrefix != "" || f.PathPattern != nil {
		path := rec.Field("uri")
		if !bytes.HasPrefix(path, []byte(f.PathPrefix)) || f.PathPattern != nil && !f.PathPattern.Match(path) {
			return false
		}
	}
	if len(f.Statuses) > 0 {
		found := false
		for _, s := range f.Statuses {
			if s.Lo <= rec.Status && rec.Status <= s.Hi {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (c *CostRule) cost(rec *Record) int64 {
	cost := c.Default
	if cost == 0 {
		cost = 1
	}
	switch {
	case c.Field != "":
		if v := rec.Field(c.Field); v != nil {
			if n, ok := wholeNumber(v); ok {
				cost = n
			}
		}
	case len(c.Paths) > 0:
		path := rec.Field("uri")
		for i := range c.Paths {
			p := &c.Paths[i]
			if p.Pattern != nil && p.Pattern.Match(path) || p.Pattern == nil && bytes.HasPrefix(path, []byte(p.Prefix)) {
				cost = p.Cost
				break
			}
		}
	}
	return max(cost, 1)
}

// wholeNumber reads a non-negative decimal integer.
func wholeNumber(b []byte) (int64, bool) {
	whole, frac, ok := splitDecimal(b)
	return whole, ok && frac == nil
}

func (r *Rules) key(rec *Record) string {
	k := &r.Key
	if r.keys == nil || r.keysOf != k {
		r.keys, r.keysOf = make(map[string]string), k
	}
	field := k.Field
	if field == "" {
		field = "remote_addr"
	}
	v := rec.Field(field)
	if v != nil && k.Pattern != nil {
		m := k.Pattern.FindSubmatchIndex(v)
		switch {
		case m == nil:
			v = nil
		case len(m) >= 4 && m[2] >= 0:
			v = v[m[2]:m[3]]
		case len(m) >= 4:
			v = nil // the group took no part in the match
		default:
			v = v[m[0]:m[1]]
		}
	}
	if v == nil {
		if k.Missing == "" {
			return "-"
		}
		return k.Missing
	}
	if key, ok := r.keys[string(v)]; ok {
		return key
	}
	if len(r.keys) >= maxKeys {
		clear(r.keys)
	}
	key := string(v)
	if k.Pattern == nil && (k.IPv4Bits > 0 || k.IPv6Bits > 0) {
		key = addressKey(key, k.IPv4Bits, k.IPv6Bits)
	}
	r.keys[string(v)] = key
	return key
}

// addressKey is the network of an address's leading bits, or s itself
// when it is not an address or its family's bits are 0.
func addressKey(s string, v4Bits, v6Bits int) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return s
	}
	a = a.Unmap().WithZone("")
	bits := v6Bits
	if a.Is4() {
		bits = v4Bits
	}
	if bits <= 0 {
		return s
	}
	p, err := a.Prefix(min(bits, a.BitLen()))
	if err != nil {
		return s
	}
	return p.String()
}

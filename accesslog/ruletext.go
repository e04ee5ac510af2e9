package accesslog

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ParseFormatText reads a format written as one text, the way
// Format.String writes it: the name, then, after spaces, its spec
// ("combined", "json time=ts unit=ms", "nginx '$remote_addr [$time_local]
// \"$request\" $status'"). A scenario file and the command line take
// formats so.
func ParseFormatText(s string) (Format, error) {
	s = strings.TrimSpace(s)
	name, spec, _ := strings.Cut(s, " ")
	return ParseFormat(name, strings.TrimSpace(spec))
}

// DefaultIPv6Bits is the IPv6 network a key written FIELD/N (an IPv4
// prefix alone) takes for IPv6 addresses: a /64, the network one
// household or one site is given, as a /24 is a NAT's or an office's
// IPv4 block.
const DefaultIPv6Bits = 64

// ParseKeyRule reads a key rule written as one text:
//
//	FIELD             the field's value (remote_addr, http_x_api_key, …)
//	FIELD/N           an address's IPv4 network of N bits (1 to 32),
//	                  and an IPv6 address's /64 (DefaultIPv6Bits)
//	FIELD/N,M         IPv4 networks of N bits and IPv6 of M (1 to 128);
//	                  0 for either keys that family by the whole address
//	FIELD~REGEXP      the first capture group of REGEXP over the field
//	                  (its whole match when it has none), as KeyRule.Pattern
//
// An empty text is the client address, remote_addr. Key.String writes the
// same text back.
func ParseKeyRule(s string) (KeyRule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return KeyRule{}, nil
	}
	if field, pattern, ok := strings.Cut(s, "~"); ok {
		field = strings.TrimSpace(field)
		if field == "" {
			return KeyRule{}, fmt.Errorf("key %q names no field before '~'", s)
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return KeyRule{}, fmt.Errorf("key %q: %v", s, err)
		}
		return KeyRule{Field: field, Pattern: re}, nil
	}
	field, bits, ok := strings.Cut(s, "/")
	if !ok {
		return KeyRule{Field: s}, nil
	}
	field = strings.TrimSpace(field)
	if field == "" {
		return KeyRule{}, fmt.Errorf("key %q names no field before '/'", s)
	}
	v4, v6, both := strings.Cut(bits, ",")
	k := KeyRule{Field: field, IPv6Bits: DefaultIPv6Bits}
	var err error
	if k.IPv4Bits, err = prefixBits(s, v4, 32); err != nil {
		return KeyRule{}, err
	}
	if both {
		if k.IPv6Bits, err = prefixBits(s, v6, 128); err != nil {
			return KeyRule{}, err
		}
	}
	return k, nil
}

func prefixBits(rule, s string, most int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > most {
		return 0, fmt.Errorf("key %q: want a prefix length from 0 to %d, got %q", rule, most, s)
	}
	return n, nil
}

// String writes k as ParseKeyRule reads it.
func (k KeyRule) String() string {
	field := k.Field
	if field == "" {
		field = "remote_addr"
	}
	switch {
	case k.Pattern != nil:
		return field + "~" + k.Pattern.String()
	case k.IPv4Bits == 0 && k.IPv6Bits == 0:
		return field
	case k.IPv6Bits == DefaultIPv6Bits:
		return field + "/" + strconv.Itoa(k.IPv4Bits)
	}
	return field + "/" + strconv.Itoa(k.IPv4Bits) + "," + strconv.Itoa(k.IPv6Bits)
}

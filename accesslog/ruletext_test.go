package accesslog

import (
	"strings"
	"testing"
)

func TestParseKeyRule(t *testing.T) {
	for _, tc := range []struct {
		text, want, err string
		v4, v6          int
	}{
		{text: "", want: "remote_addr"},
		{text: "http_x_api_key", want: "http_x_api_key"},
		{text: "remote_addr/24", want: "remote_addr/24", v4: 24, v6: 64},
		{text: "remote_addr/24,48", want: "remote_addr/24,48", v4: 24, v6: 48},
		{text: "remote_addr/0,64", want: "remote_addr/0", v6: 64},
		{text: "request_uri~api_key=([^&]+)", want: "request_uri~api_key=([^&]+)"},
		{text: "remote_addr/33", err: "from 0 to 32"},
		{text: "remote_addr/24,129", err: "from 0 to 128"},
		{text: "/24", err: "names no field"},
		{text: "~x", err: "names no field"},
		{text: "uri~(", err: "missing closing )"},
	} {
		k, err := ParseKeyRule(tc.text)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseKeyRule(%q) = %v, want an error with %q", tc.text, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseKeyRule(%q): %v", tc.text, err)
			continue
		}
		if k.String() != tc.want || k.IPv4Bits != tc.v4 || k.IPv6Bits != tc.v6 {
			t.Errorf("ParseKeyRule(%q) = %q /%d,%d, want %q /%d,%d", tc.text, k, k.IPv4Bits, k.IPv6Bits, tc.want, tc.v4, tc.v6)
		}
	}
}

func TestParseFormatText(t *testing.T) {
	for _, text := range []string{"combined", "common", "json time=ts unit=ms", `nginx '$remote_addr [$time_local] "$request" $status'`} {
		f, err := ParseFormatText(text)
		if err != nil {
			t.Errorf("ParseFormatText(%q): %v", text, err)
			continue
		}
		if f.String() != text {
			t.Errorf("ParseFormatText(%q).String() = %q", text, f.String())
		}
	}
	if _, err := ParseFormatText("apache"); err == nil {
		t.Error("an unknown format was read")
	}
}

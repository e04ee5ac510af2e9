package scenarios

import (
	"strings"
	"testing"
)

// TestZoneSize reads nginx's zone size as limit_req_zone writes it, and
// refuses what nginx would.
func TestZoneSize(t *testing.T) {
	for _, c := range []struct {
		zone string
		want int64
		err  string
	}{
		{"10m", 10 << 20, ""},
		{"64k", 64 << 10, ""},
		{"32768", 32 << 10, ""},
		{"16k", 0, "at least 32k"},
		{"ten", 0, "not a size such as 10m"},
		{"1g", 0, "not a size such as 10m"},
	} {
		src := "title: t\nlimiters:\n  - {name: lane, algorithm: nginx-limit-req, rate: 1r/s, zone: " + c.zone + "}\n"
		s, err := Parse("x.yaml", []byte(src))
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("zone %s: %v, want %q", c.zone, err, c.err)
			}
		case err != nil:
			t.Errorf("zone %s: %v", c.zone, err)
		case s.Lanes[0].Policy.Zone != c.want:
			t.Errorf("zone %s: read %d, want %d", c.zone, s.Lanes[0].Policy.Zone, c.want)
		}
	}
}

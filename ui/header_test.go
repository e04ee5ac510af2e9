package ui

import (
	"strings"
	"testing"
)

// TestHeaderKeepsNumbersApart: "cost 1" and the request count never run
// together.
func TestHeaderKeepsNumbersApart(t *testing.T) {
	a := newTestApp(t, "boundary", 80, 24)
	press(a, "space")
	if line := strings.Split(screen(a), "\n")[1]; strings.Contains(line, "1 241") || !strings.Contains(line, "· 241 requests") {
		t.Errorf("header: %q", line)
	}
}

func TestRequestsText(t *testing.T) {
	for _, c := range []struct {
		total, yours int
		want         string
	}{{0, 0, "0 requests"}, {1, 0, "1 request"}, {1, 1, "1 request (1 yours)"}, {241, 1, "241 requests (1 yours)"}} {
		if got := requestsText(c.total, c.yours); got != c.want {
			t.Errorf("requestsText(%d, %d) = %q, want %q", c.total, c.yours, got, c.want)
		}
	}
}

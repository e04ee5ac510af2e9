package ui

import "testing"

func TestCountedAgrees(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 requests are"}, {1, "1 request is"}, {2, "2 requests are"}} {
		if got := counted(c.n, "request", "requests") + " " + agree(c.n, "is", "are"); got != c.want {
			t.Errorf("%d: %q, want %q", c.n, got, c.want)
		}
	}
}

// TestOneRequestAgrees: the messages about the learner's requests agree
// with one request as with several (the reset's undo said "your 1
// request are back").
func TestOneRequestAgrees(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "space", "r")
	if got, want := a.status.text, "reset: t = 0, your 1 request removed · u brings it back"; got != want {
		t.Errorf("reset: %q, want %q", got, want)
	}
	press(a, "u")
	if got, want := a.status.text, "undid the reset: your 1 request is back"; got != want {
		t.Errorf("undo: %q, want %q", got, want)
	}
}

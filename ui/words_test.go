package ui

import "testing"

// TestCountedAgrees: a count's noun agrees with it, and the count groups
// its digits as every count of the command line and the about page does
// ("999,999 requests", not "999999 requests").
func TestCountedAgrees(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 requests are"}, {1, "1 request is"}, {2, "2 requests are"}, {999, "999 requests are"},
		{1000, "1,000 requests are"}, {999_999, "999,999 requests are"}, {-1500, "-1,500 requests are"}} {
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

// TestHeaderGroupsDigits: the header counts the timeline's requests, the
// learner's own and the instant's with commas, as the about page does.
func TestHeaderGroupsDigits(t *testing.T) {
	a := newYAMLApp(t, "title: many\nlimiters:\n  - {name: log, algorithm: sliding-log, limit: 2, window: 1s}\n"+
		"traffic:\n  - {at: 1s, count: 1500}\n", 120, 40)
	press(a, "n")
	for range 1200 {
		press(a, "n")
	}
	requireScreen(t, a, "request 1,201 of 1,500 at 1s · t = 1s", "· 1,500 requests")
	if _, err := a.lab.FireBurst("k", 1, 1000); err != nil {
		t.Fatal(err)
	}
	requireScreen(t, a, "· 2,500 requests (1,000 yours)")
}

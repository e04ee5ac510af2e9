package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

func TestFireKeyShowsDecision(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(60 * time.Second)
	n := a.lab.Len()
	press(a, "space")
	if a.lab.Len() != n+1 {
		t.Fatalf("space: %d requests, want %d", a.lab.Len(), n+1)
	}
	fired := a.lab.FiredRequests()
	if len(fired) != 1 || fired[0].At != 60*time.Second || fired[0].Cost != 1 {
		t.Fatalf("space fired %+v, want one request at 60s of cost 1", fired)
	}
	rec, ok := a.lab.LastDecision(0)
	if !ok || !a.lab.Fired(rec.Index) {
		t.Fatalf("the last decision is not on the fired request")
	}
	out := screen(a)
	for _, want := range []string{"fired 1 request at 60s", "why fixed", rec.Decision.Explain()[:30], "(1 yours)"} {
		if !strings.Contains(out, want) {
			t.Errorf("after space the screen lacks %q:\n%s", want, out)
		}
	}
	// The log rejects it: focus it and the 429 appears.
	press(a, "tab")
	out = screen(a)
	if !strings.Contains(out, "why log") || !strings.Contains(out, "429 Too Many Requests · Retry-After: 60") {
		t.Errorf("the log's why panel lacks its 429:\n%s", out)
	}
}

func TestRewindAndFire(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	before := a.lab.Outcome(1, a.lab.Search(seconds(59.9))) // the log's verdict on the first request of the first burst
	if before != algorithms.Allowed {
		t.Fatalf("setup: the log allowed %v", before)
	}
	// Fire 120 requests at 30s: the log is full before the first burst.
	a.lab.Seek(30 * time.Second)
	press(a, "b")
	answer(a, "120")
	if got := len(a.lab.FiredRequests()); got != 120 {
		t.Fatalf("burst fired %d, want 120", got)
	}
	if !strings.Contains(ansi.Strip(a.status.text), "fired 120 requests at 30s: fixed ✓120 · log ✓120") {
		t.Errorf("status after the burst: %q", a.status.text)
	}
	if got := a.lab.Outcome(1, a.lab.Search(seconds(59.9))-1); got != algorithms.Rejected {
		t.Errorf("after firing at 30s the log's verdict on the request at 59.9s is %v, want rejected", got)
	}
	press(a, "u")
	if got := len(a.lab.FiredRequests()); got != 0 || !strings.HasPrefix(a.status.text, "undid 120 requests at 30s;") {
		t.Fatalf("u after a burst left %d fired requests, want 0; status %q", got, a.status.text)
	}
	// A burst far larger than any lane's limit is one action too.
	press(a, "b")
	answer(a, "50000")
	if got := a.lab.FiredCount(); got != 50000 {
		t.Fatalf("a burst of 50000 fired %d", got)
	}
	press(a, "u")
	if got := a.lab.Outcome(1, a.lab.Search(seconds(59.9))-1); got != algorithms.Allowed {
		t.Errorf("after undo the log's verdict at 59.9s is %v, want allowed again", got)
	}
}

func TestUndoKey(t *testing.T) {
	a := newTestApp(t, "shaping-vs-policing", 100, 30)
	press(a, "u")
	if !strings.Contains(a.status.text, "nothing to undo") {
		t.Errorf("u with nothing fired: status %q", a.status.text)
	}
	press(a, "right", "space", "right", "space")
	if got := len(a.lab.FiredRequests()); got != 2 {
		t.Fatalf("fired %d, want 2", got)
	}
	press(a, "u")
	fired := a.lab.FiredRequests()
	if len(fired) != 1 || fired[0].At != a.lab.Scenario().Step {
		t.Fatalf("u left %+v, want the first request only", fired)
	}
}

func TestBurstAndCostKeys(t *testing.T) {
	a := newTestApp(t, "shaping-vs-policing", 100, 30)
	press(a, "c")
	if !a.prompt.active() {
		t.Fatal("c did not open the cost prompt")
	}
	answer(a, "0")
	if !a.prompt.active() || !a.status.err {
		t.Fatal("a cost of 0 was accepted")
	}
	press(a, "backspace")
	typeText(a, "3")
	press(a, "enter")
	if a.prompt.active() || a.cost != 3 {
		t.Fatalf("cost = %d (prompt open %v), want 3", a.cost, a.prompt.active())
	}
	press(a, "b")
	answer(a, "4")
	fired := a.lab.FiredRequests()
	if len(fired) != 4 {
		t.Fatalf("burst of 4 fired %d", len(fired))
	}
	for _, r := range fired {
		if r.Cost != 3 {
			t.Errorf("fired cost %d, want 3", r.Cost)
		}
	}
	if !strings.Contains(a.status.text, "fired 4 requests") {
		t.Errorf("status %q", a.status.text)
	}
	press(a, "b", "esc")
	if a.prompt.active() || len(a.lab.FiredRequests()) != 4 {
		t.Error("esc did not cancel the burst prompt")
	}
}

// TestBurstWithSpread: "120 100ms" fires 120 requests over 100ms, placed as
// a traffic item's spread places them.
func TestBurstWithSpread(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(30 * time.Second)
	press(a, "b")
	answer(a, "120 100ms")
	f := a.lab.FiredRequests()
	if len(f) != 120 || f[0].At != 30*time.Second || f[119].At != 30*time.Second+119*100*time.Millisecond/120 {
		t.Fatalf("fired %d requests, first %v last %v", len(f), f[0].At, f[len(f)-1].At)
	}
	press(a, "b")
	answer(a, "3 fast")
	if !a.status.err || !strings.Contains(a.status.text, "a number needs a unit") && !strings.Contains(a.status.text, "spread") {
		t.Errorf("a bad spread: %q", a.status.text)
	}
}

// TestFireAsANewKey: K asks for a key's name, fires one request as it and
// pins the lanes to it.
func TestFireAsANewKey(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(60 * time.Second)
	press(a, "K")
	answer(a, "second-seller")
	if a.key() != "second-seller" || len(a.lab.FiredRequests()) != 1 {
		t.Fatalf("key %q, fired %v", a.key(), a.lab.FiredRequests())
	}
	requireScreen(t, a, "second-seller")
	press(a, "K")
	answer(a, strings.Repeat("x", 65))
	if !a.prompt.active() || !a.status.err || !strings.Contains(a.status.text, "1 to 64 bytes") {
		t.Errorf("a 65-byte key: prompt %v, %q", a.prompt.active(), a.status.text)
	}
}

// TestCostThatNeverFits: the cost prompt refuses a cost some lane can
// never admit, saying which and why (a file with it would not load). A
// request of such a cost put on the timeline by model's API is drawn as
// rejected there with "never", and no Retry-After, while another lane
// admits it.
func TestCostThatNeverFits(t *testing.T) {
	a := newYAMLApp(t, "title: t\nlimiters:\n  - {name: q, algorithm: leaky-bucket, queue: 50, rate: 3/s}\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}\n", 80, 24)
	press(a, "c")
	answer(a, "50")
	if a.cost != 1 || !a.prompt.active() || !strings.Contains(a.status.text, "lane b can never admit cost 50") {
		t.Fatalf("cost 50: cost %d, status %q", a.cost, a.status.text)
	}
	answer(a, "3")
	press(a, "space")
	requireScreen(t, a, "fired 1 request at 0s: q ✓ · b ✓")
	if _, err := a.lab.Fire("default", 50); err != nil {
		t.Fatal(err)
	}
	requireScreen(t, a, "never fits")
	press(a, "tab")
	requireScreen(t, a, "cost 50 > capacity 3", "429 Too Many Requests (no Retry-After: this cost can never fit)")
}

// TestCostNoLaneCanAdmitIsRefused: the cost prompt says why.
func TestCostNoLaneCanAdmitIsRefused(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "c")
	answer(a, "12")
	if !a.status.err || a.cost != 1 || !strings.Contains(a.status.text, "bucket") {
		t.Errorf("cost 12 on a bucket of 10: cost %d, %q", a.cost, a.status.text)
	}
}

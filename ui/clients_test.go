package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"ratelab/model"
	"ratelab/scenarios"
)

// stormYAML is a retry storm: an eager client retrying at once on key
// default, a burst of a polite one backing off with jitter on key p, and
// a client with a deadline that sends nothing.
const stormYAML = `title: retry storm
seed: 7
duration: 20s
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 10/s}
  - {name: fixed, algorithm: fixed-window, limit: 10, window: 1s}
clients:
  - {name: eager, retry: at-once, attempts: 5}
  - {name: polite, retry: backoff, attempts: 6, base: 100ms, cap: 2s, jitter: full}
  - {name: waits, deadline: 2s}
traffic:
  - {every: 50ms, until: 10s, client: eager}
  - {at: 2s, count: 20, client: polite, key: p}
`

// openStorm opens the retry storm at w × h.
func openStorm(tb testing.TB, w, h int) *App {
	tb.Helper()
	s, err := scenarios.Parse("storm.yaml", []byte(stormYAML))
	if err != nil {
		tb.Fatal(err)
	}
	return openApp(tb, s, w, h)
}

// TestGoldenClients draws the retry storm at the golden sizes, at 2.4s:
// the fixed window's retries refused in bursts of 8 a column, the
// bucket's 4, and the polite client's backoffs spreading out.
func TestGoldenClients(t *testing.T) {
	for _, size := range append(goldenSizes, [2]int{200, 60}, [2]int{50, 14}) {
		t.Run(fmt.Sprintf("storm_%dx%d", size[0], size[1]), func(t *testing.T) {
			a := openStorm(t, size[0], size[1])
			seekTo(a, 2400*time.Millisecond)
			golden.RequireEqual(t, screen(a))
		})
	}
	// A retry of the polite client: its key pinned, the fixed lane
	// focused, where its backoffs are refused.
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"retry", []string{"k", "k", "tab"}},
		{"panel", []string{"k", "k", "tab", "e"}},
	} {
		t.Run("storm_"+c.name+"_80x24", func(t *testing.T) {
			a := openStorm(t, 80, 24)
			a.lab.Seek(2200 * time.Millisecond)
			press(a, c.keys...)
			golden.RequireEqual(t, screen(a))
		})
	}
}

// TestClientsOnScreen: the help lists the retry mark and the client
// numbers only for a lab with clients, a storm drawn without colour has
// none, and a lab without clients says nothing of attempts.
func TestClientsOnScreen(t *testing.T) {
	a := openStorm(t, 80, 24)
	a.lab.Seek(2400 * time.Millisecond)
	press(a, "?")
	help := strings.Join(strings.Fields(a.pages.helpText(a, 200)), " ")
	for _, want := range []string{"a lane decided retries in a timeline column", "attempts ÷ originals", "latency p50 p95 p99"} {
		if !strings.Contains(help, want) {
			t.Errorf("the storm's help lacks %q", want)
		}
	}
	b := newTestApp(t, "boundary", 80, 24)
	if strings.Contains(b.pages.helpText(b, 200), "retries a lane decided") {
		t.Error("a lab without clients explains retry marks")
	}
	b.lab.Seek(60 * time.Second)
	for _, o := range []string{"attempt ", "×1.00", "originals"} {
		if strings.Contains(screen(b), o) {
			t.Errorf("a lab without clients shows %q:\n%s", o, screen(b))
		}
	}
	c := openStorm(t, 120, 40)
	c.opts.NoColor = true
	c.setStyles()
	c.lab.Seek(2400 * time.Millisecond)
	if codes := colourCodes(c.View().Content); len(codes) > 0 {
		t.Errorf("NoColor: the storm has %d colour sequences, e.g. %q", len(codes), codes[0])
	}
}

// TestRetryMark: a column's retry mark is the highest attempt among its
// retries, 2 to 9, ↻ from the 10th, coloured as they went.
func TestRetryMark(t *testing.T) {
	for _, c := range []struct {
		span  model.RetrySpan
		glyph string
		how   int
	}{
		{model.RetrySpan{Retries: 1, Admitted: 1, Highest: 2}, "2", retryAdmitted},
		{model.RetrySpan{Retries: 12, Admitted: 0, Highest: 4}, "4", retryRefused},
		{model.RetrySpan{Retries: 9, Admitted: 3, Highest: 9}, "9", retryMixed},
		{model.RetrySpan{Retries: 3, Admitted: 0, Highest: 10}, "↻", retryRefused},
		{model.RetrySpan{Retries: 250, Admitted: 250, Highest: 100}, "↻", retryAdmitted},
	} {
		m := retryMark(c.span)
		if m.glyph() != c.glyph || int(m-markRetry)/10 != c.how {
			t.Errorf("retryMark(%+v) = %q of kind %d, want %q of kind %d", c.span, m.glyph(), (m-markRetry)/10, c.glyph, c.how)
		}
	}
}

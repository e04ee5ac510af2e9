package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"ratelab/scenarios"
)

// The goldens are the screen without escape sequences, so that a diff
// reads as the screen does. `go test ./ui -update` rewrites them.

// goldenCases are canned scenarios at a moment where their lanes disagree.
var goldenCases = []struct {
	name string
	at   time.Duration
}{
	// Just after the second burst began: the fixed window admits it, the
	// others refuse.
	{"boundary", 60*time.Second + 50*time.Millisecond},
	// Two seconds after the ten: the policer refilled, the shaper drains
	// its queue.
	{"shaping-vs-policing", 2 * time.Second},
	// The same 100 requests: the counter admits half, the log knows better.
	{"counter-blind-spot", 90 * time.Second},
	// The reload: three lanes, the bucket empty, the shaper's queue full.
	{"dashboard", 30*time.Second + 250*time.Millisecond},
	// GCRA's TAT beside the bucket it equals, mid-stream.
	{"gcra-is-token-bucket", 2500 * time.Millisecond},
}

// moreLessons are the other canned lessons, drawn at 80×24 only, so that
// every lesson has a golden at the size a learner meets first.
var moreLessons = []struct {
	name string
	at   time.Duration
}{
	// The export on a bucket drained by lookups.
	{"costly-requests", 4 * time.Second},
	// The sale: fifty accounts at once, three lanes, one a stack.
	{"global-cap", 30 * time.Second},
	// The client hammering: rejections spend nothing.
	{"retries-refill", 900 * time.Millisecond},
	// The float lane's moment: its first miss, at 300ms.
	{"float-drift", 300 * time.Millisecond},
	// Twelve accounts spend their saved tokens together.
	{"accounts-together", 30 * time.Second},
	// Four gateways just after the burst: 10, 40, 12 and 3 admitted.
	{"four-gateways", 125 * time.Millisecond},
	// The racy store's burst, all admitted.
	{"racy-store", 10 * time.Millisecond},
	// The synced counters just before the first sync.
	{"synced-counters", 975 * time.Millisecond},
	// Inside the store's outage: 503s and the fallbacks.
	{"store-outage", 5250 * time.Millisecond},
	// The paused client's bucket, expired too soon.
	{"idle-expiry", 4250 * time.Millisecond},
	// The slow gateway's request clamped to the latest update.
	{"clock-skew", 700 * time.Millisecond},
	// Just after the page load through five bursts of 10: 10 or 11.
	{"burst-admits-eleven", 250 * time.Millisecond},
	// nginx's three configs just after the reload: one admitted, nine 503.
	{"nginx-config", 30250 * time.Millisecond},
	// The whole-token bucket dropping 0.8 a poll while the bucket admits.
	{"whole-token-refill", 2 * time.Second},
	// The attempts lane holding 9 rejected retries when the log admits.
	{"attempts-counted", 10 * time.Second},
	// The clock window restarting while the resetting key lives on.
	{"expiry-reset", 10 * time.Second},
	// Twenty admissions at one instant, one member.
	{"collapsing-members", 0},
	// The storm's ten refusals at one instant in the full window.
	{"retry-storm", time.Second},
	// Alice and bob back together at 1.2s: one token, two callers.
	{"retry-after-not-a-reservation", 1200 * time.Millisecond},
	// The lockstep key's fifteen retries arriving at once.
	{"jitter-spreads-retries", 1900 * time.Millisecond},
	// The first caller past its deadline: kept or given back.
	{"deadlines-and-cancel", 1250 * time.Millisecond},
	// The burst at 67.5s: the classic counter admits 12, 4 sub-windows
	// 49, 60 sub-windows 99 as the log does.
	{"finer-sub-windows", 67500 * time.Millisecond},
	// The log full at 12,000 entries beside the counters' 32 and 536 bytes.
	{"memory-price", 80 * time.Second},
	// Guava's next caller waiting for the large request it granted.
	{"pay-later", 10500 * time.Millisecond},
	// The fill at 7s: 5 more on top of the burst at 6.9s.
	{"lumpy-refill", 7 * time.Second},
	// The request at 0.25s: half a token in both buckets.
	{"empty-start", 250 * time.Millisecond},
	// edge's second burst: the fixed window's 240 within 200ms.
	{"promise-first", 60100 * time.Millisecond},
	// Halfway through the minute: 20 + 120 × 0.5 = 80 before the burst.
	{"sliding-estimate", 90 * time.Second},
	// seller-1's log full at 120 entries, 2,936 bytes.
	{"memory-fleet", 59500 * time.Millisecond},
	// idle's 120 within 100ms in every lane but the shaper.
	{"table-from-runs", 120100 * time.Millisecond},
	// b.example's first page leaving at once beside a.example's queue.
	{"crawler-per-host", 2500 * time.Millisecond},
	// The racy lanes admitting what the refusal's write gave back.
	{"refusal-writes", 200 * time.Millisecond},
	// The batch job's second burst: one-less refuses its 22nd request.
	{"which-burst", 120 * time.Second},
	// Alice's last request, three seconds of 20 a second after the burst:
	// 10 a second pass, her totals shown (the note's key).
	{"same-words", 3050 * time.Millisecond},
	// The burst at 1s: Kong's new clock second admits 10, the others' windows refuse.
	{"same-words-windows", time.Second},
}

var goldenSizes = [][2]int{{80, 24}, {120, 40}, {60, 30}, {160, 48}}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				a := newTestApp(t, c.name, size[0], size[1])
				seekTo(a, c.at)
				golden.RequireEqual(t, screen(a))
			})
		}
	}
}

func TestGoldenEveryLesson(t *testing.T) {
	for _, c := range moreLessons {
		t.Run(c.name+"_80x24", func(t *testing.T) {
			a := newTestApp(t, c.name, 80, 24)
			seekTo(a, c.at)
			golden.RequireEqual(t, screen(a))
		})
	}
	if n := len(goldenCases) + len(moreLessons); n != len(scenarios.List()) {
		t.Errorf("goldens for %d lessons, there are %d", n, len(scenarios.List()))
	}
}

// TestGoldenPages covers the overlays and the too-small screen at 80×24.
func TestGoldenPages(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
		w, h int
	}{
		// The README's tour of the screen: keep the two the same.
		{"tour", []string{"d", "l", "tab"}, 80, 24},
		{"help", []string{"?"}, 80, 24},
		{"about", []string{"a"}, 80, 24},
		{"picker", []string{"o", "down", "down"}, 80, 24},
		{"burst_prompt", []string{"d", "b"}, 80, 24},
		{"fired", []string{"d", "tab", "space"}, 80, 24},
		{"too_small", nil, 40, 12},
		{"panel", []string{"d", "e"}, 80, 24},
		{"quiz", []string{"t", "]", "]"}, 80, 24},
		{"confirm_quit", []string{"space", "q"}, 80, 24},
		{"wide", []string{"d", "l"}, 200, 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newTestApp(t, "boundary", c.w, c.h)
			a.opts.SaveDir = "" // the save prompt shows ./NAME-mine.yaml
			press(a, c.keys...)
			golden.RequireEqual(t, screen(a))
		})
	}
}

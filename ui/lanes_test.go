package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

// TestPerKeyLabels: with two keys the totals say "all keys", and a pinned
// key shows its own totals and peak first.
func TestPerKeyLabels(t *testing.T) {
	a := newTestApp(t, "counter-blind-spot", 160, 48)
	a.lab.Seek(a.lab.End())
	requireScreen(t, a, "all keys")
	press(a, "k")
	out := screen(a)
	// The log's totals line: the pinned key's own counts and peak, then
	// every key's.
	mine, all := a.lab.StatsFor(1, a.key()), a.lab.Stats(1)
	want := "key " + a.key() + " ✓" + itoa(mine.Admitted-mine.Delayed) + " ✗" + itoa(mine.Rejected) + " · peak " + itoa(mine.Peak)
	if !strings.Contains(out, want) || !strings.Contains(out, "✓"+itoa(all.Admitted-all.Delayed)+" ✗"+itoa(all.Rejected)+" · peak "+itoa(all.Peak)) {
		t.Errorf("the log's totals do not show %q beside every key's:\n%s", want, out)
	}
	if mine.Peak == all.Peak {
		t.Fatalf("the lesson should give the key a peak apart from every key's (%d)", all.Peak)
	}
}

// TestTotalsWrittenOneWay: the lanes' totals use one notation.
func TestTotalsWrittenOneWay(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		a := newTestApp(t, "dashboard", size[0], size[1])
		a.lab.Seek(a.lab.End())
		if out := screen(a); regexp.MustCompile(`✓ \d+ allowed|✗ \d+ rejected`).MatchString(out) {
			t.Errorf("%v: totals written as words:\n%s", size, out)
		}
	}
}

// TestPinnedRowKeepsTheKey: in the one-row form a pinned key's totals keep
// its name, and its peak where a row of 80 has room for it (the gauge
// gives up the cells); narrower, the name stays.
func TestPinnedRowKeepsTheKey(t *testing.T) {
	for _, c := range []struct {
		w    int
		want string
	}{
		{80, "key default ✓240 ✗0 · peak 240"},
		{60, "key default ✓240 ✗0"},
	} {
		a := newTestApp(t, "boundary", c.w, 24)
		a.lab.Seek(a.lab.End())
		if _, err := a.lab.Fire("x", 1); err != nil {
			t.Fatal(err)
		}
		a.pin("default")
		row := strings.Split(screen(a), "\n")[2]
		if !strings.Contains(row, c.want) {
			t.Errorf("at %d columns the fixed window's row is %q, want it to hold %q", c.w, row, c.want)
		}
	}
}

// TestPinnedBoxKeepsTheKeyWithItsState: a compact box that must show the
// state a lesson watches keeps the pinned key's name too (memory-fleet at
// 80×24, when its 59.5s note pins seller-1), giving up the word "key".
func TestPinnedBoxKeepsTheKeyWithItsState(t *testing.T) {
	a := newTestApp(t, "memory-fleet", 80, 24)
	a.lab.Seek(59500 * time.Millisecond)
	a.pin("seller-1")
	out := screen(a)
	for _, want := range []string{"seller-1 ✓120 ✗0 · state 2.9 KiB/key", "seller-1 ✓120 ✗0 · state 32 B/key"} {
		if !strings.Contains(out, want) {
			t.Errorf("the boxes do not hold %q:\n%s", want, out)
		}
	}
}

// saysWhenToRetry reports whether text says when a rejected request's
// retry fits (ahead, due now or due before) or that it never does.
func saysWhenToRetry(text string) bool {
	for _, words := range []string{"retry at ", "retry due now, at ", "retry was due at ", "never fits"} {
		if strings.Contains(text, words) {
			return true
		}
	}
	return false
}

// TestRejectionSaysWhenToRetry: wherever a lane's box or row says
// "rejected" (not the why panel, whose arithmetic says it, nor the
// legend), it says when a retry fits, at every lesson's golden moment
// and at each size.
func TestRejectionSaysWhenToRetry(t *testing.T) {
	for _, c := range append(append([]struct {
		name string
		at   time.Duration
	}{}, goldenCases...), moreLessons...) {
		for _, size := range [][2]int{{80, 24}, {60, 30}, {120, 40}, {200, 60}} {
			a := newTestApp(t, c.name, size[0], size[1])
			seekTo(a, c.at)
			for _, line := range strings.Split(screen(a), "\n") {
				for _, cell := range strings.FieldsFunc(line, func(r rune) bool { return r == '│' || r == '┃' }) {
					if lane := strings.Contains(cell, "✗ rejected") && !strings.Contains(cell, "rejected:") && !strings.Contains(cell, "± mixed"); lane && !saysWhenToRetry(cell) {
						t.Errorf("%s at %v, %d×%d: %q says rejected and not when to retry", c.name, c.at, size[0], size[1], strings.TrimSpace(cell))
					}
				}
			}
		}
	}
}

// TestRowSaysWhenToRetry: a lane drawn in one row ("  bucket   ✗ [ ] 0.2/120
// tokens · retry at 60.4s · …") says when a retry fits as its box does,
// its verdict a glyph the test above cannot read: at every lesson's golden
// moment, at 80×24 and 120×40 where the lanes take the row form (narrower,
// the why panel alone may say it).
func TestRowSaysWhenToRetry(t *testing.T) {
	rows := 0
	for _, c := range append(append([]struct {
		name string
		at   time.Duration
	}{}, goldenCases...), moreLessons...) {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			a := newTestApp(t, c.name, size[0], size[1])
			seekTo(a, c.at)
			screen(a)
			if a.lay.mode != laneRow {
				continue
			}
			views := laneViews(a.programContext)
			block := lanesBlock(a.st, views, a.lay)
			for i, v := range views {
				if !v.hasLast || v.last.Decision.Outcome != algorithms.Rejected || i >= len(block) {
					continue
				}
				rows++
				if row := ansi.Strip(block[i]); !saysWhenToRetry(row) {
					t.Errorf("%s at %v, %d×%d: the row %q shows a rejection and not when to retry", c.name, c.at, size[0], size[1], strings.TrimSpace(row))
				}
			}
		}
	}
	if rows == 0 {
		t.Fatal("no rejected lane drawn in one row")
	}
}

// TestBeyondSaysWhatANegativeMeans: a lane of gateways that admitted
// fewer than its policy says so in words, not a bare minus.
func TestBeyondSaysWhatANegativeMeans(t *testing.T) {
	for n, want := range map[int64]string{30: "beyond +30", 0: "beyond 0", -1: "beyond -1 (1 fewer than one store)", -4: "beyond -4 (4 fewer than one store)"} {
		if got := beyondText(n); got != want {
			t.Errorf("beyondText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestWatchedStateStays: a lesson that asks to watch the lanes' state
// (memory-price) keeps each lane's state bytes in its one-row form, at 80
// and at 60 columns.
func TestWatchedStateStays(t *testing.T) {
	for _, w := range []int{80, 60} {
		a := newTestApp(t, "memory-price", w, 24)
		seekTo(a, 80*time.Second)
		rows := strings.Split(screen(a), "\n")[2:6]
		for i, want := range []string{"281.3 KiB", "32 B", "536 B", "28.2 KiB"} {
			if !strings.Contains(rows[i], want) {
				t.Errorf("at %d columns lane %d's row %q lacks its state %s", w, i, rows[i], want)
			}
		}
	}
}

// TestBoxesEvenlySized: every box of the lane grid is as wide as the
// others, to a column, a short last row's boxes standing under the ones
// above: burst-admits-eleven's five lanes at 200 columns are 67, 67, 66
// and 67, 67 (were 100 and 100 in the last row).
func TestBoxesEvenlySized(t *testing.T) {
	for _, c := range []struct {
		lesson string
		w, h   int
	}{
		{"burst-admits-eleven", 200, 60},
		{"dashboard", 120, 40},
		{"four-gateways", 200, 60},
	} {
		a := newTestApp(t, c.lesson, c.w, c.h)
		if a.lay.mode != laneBoxed {
			t.Fatalf("%s at %d×%d: lanes %v, not boxed", c.lesson, c.w, c.h, a.lay.mode)
		}
		var widths [][]int
		for _, line := range strings.Split(screen(a), "\n") {
			// A row of boxes starts where a line starts with a top corner.
			if !strings.HasPrefix(line, "┏") && !strings.HasPrefix(line, "╭") {
				continue
			}
			var row []int
			w := 0
			for _, r := range strings.TrimRight(line, " ") {
				w++
				if r == '┓' || r == '╮' {
					row = append(row, w)
					w = 0
				}
			}
			widths = append(widths, row)
		}
		if len(widths) < 2 && c.lesson == "burst-admits-eleven" { // 3 + 2
			t.Errorf("%s at %d×%d: %d rows of boxes, want two", c.lesson, c.w, c.h, len(widths))
		}
		for r, row := range widths {
			for i, w := range row {
				if want := a.lay.columnWidth(i); w != want || w-widths[0][i] != 0 {
					t.Errorf("%s at %d×%d: box %d of row %d is %d wide, want %d as above: %v", c.lesson, c.w, c.h, i, r, w, want, widths)
				}
			}
		}
	}
}

// TestPassedRetrySaysSo: a box whose rejection's retry time the clock has
// passed says so in words, in every form that names the time ("retry was
// due at 4s", not "retry at 4s, passed"): deadlines-and-cancel
// at 7.5s, the leaky bucket's last verdict on the patient key a rejection
// at 3.75s, retry at 4s.
func TestPassedRetrySaysSo(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		a := newTestApp(t, "deadlines-and-cancel", size[0], size[1])
		a.openPage(aboutPage)
		press(a, "]", "]", "]", "]", "]", "]") // 0s … 7.5s
		out := screen(a)
		if a.lab.Now() != 7500*time.Millisecond || !strings.Contains(out, "retry was due at 4s") {
			t.Errorf("%d×%d at %v: the leaky box does not say its retry at 4s has passed:\n%s", size[0], size[1], a.lab.Now(), out)
		}
	}
}

// TestRetryTimeReadsAsWords: a rejection's retry time reads as what it is
// to the clock, in the box, its one-row form and the why panel's reply:
// ahead with its wait, due now, or due before.
func TestRetryTimeReadsAsWords(t *testing.T) {
	for _, c := range []struct {
		at        time.Duration
		want, not string
		w, h      int
	}{
		{700 * time.Millisecond, "retry at 1s (in 0.3s)", "retry at 1s,", 120, 40},
		{time.Second, "retry due now, at 1s", "passed", 120, 40},
		{1500 * time.Millisecond, "retry was due at 1s", "passed", 120, 40},
		{1500 * time.Millisecond, "retry was due at 1s", "passed", 80, 24},
	} {
		a := newYAMLApp(t, "title: retry\nstep: 100ms\nduration: 3s\nlimiters:\n  - {name: fixed, algorithm: fixed-window, limit: 1, window: 1s}\n"+
			"  - {name: log, algorithm: sliding-log, limit: 1, window: 1s}\n"+
			"traffic:\n  - {at: 0s}\n  - {at: 0.5s}\n", c.w, c.h)
		seekTo(a, c.at)
		out := screen(a)
		if n := strings.Count(out, c.want); n < 2 {
			t.Errorf("at %v, %d×%d: %q %d times, want in the box and the reply:\n%s", c.at, c.w, c.h, c.want, n, out)
		}
		if strings.Contains(out, c.not) {
			t.Errorf("at %v, %d×%d: the screen shows %q:\n%s", c.at, c.w, c.h, c.not, out)
		}
	}
}

// TestDelayedReplySaysItsTense: a delayed request's reply says it passes
// while its release is ahead of the clock, and that it passed once the
// clock has reached it.
func TestDelayedReplySaysItsTense(t *testing.T) {
	for _, c := range []struct {
		at        time.Duration
		want, not string
	}{
		{600 * time.Millisecond, "→ held back 0.5s, passes at 1s (in 0.4s)", "passed at"},
		{time.Second, "→ held back 0.5s, passed at 1s", "passes at"},
		{1500 * time.Millisecond, "→ held back 0.5s, passed at 1s", "passes at"},
	} {
		a := newYAMLApp(t, "title: tense\nstep: 100ms\nduration: 3s\nlimiters:\n  - {name: shaper, algorithm: leaky-bucket, queue: 4, rate: 2/s}\n"+
			"traffic:\n  - {at: 0.5s, count: 2}\n", 120, 40)
		seekTo(a, c.at)
		out := screen(a)
		if !strings.Contains(out, c.want) || strings.Contains(out, c.not) {
			t.Errorf("at %v: want %q and no %q:\n%s", c.at, c.want, c.not, out)
		}
	}
}

// dryYAML is nginx's limit_req beside its dry run (limit_req_dry_run):
// alice's burst of 12, then bob's steady 20 a second.
const dryYAML = `title: dry
step: 50ms
duration: 2s
limiters:
  - {name: real, algorithm: nginx-limit-req, rate: 10r/s, burst: 5, nodelay: true}
  - {name: dry, algorithm: nginx-limit-req, rate: 10r/s, burst: 5, nodelay: true, dry_run: true}
traffic:
  - {at: 0s, count: 12, key: alice}
  - {every: 50ms, from: 100ms, until: 1.5s, key: bob}
`

// TestDryRunShowsWhatItWouldHaveDone: a dry run's box says, in words, how
// many requests it let through that it would have refused, over all keys
// and for a pinned key, and its verdict on a request it would refuse says
// so; the real lane beside it refuses as many.
func TestDryRunShowsWhatItWouldHaveDone(t *testing.T) {
	for _, c := range []struct {
		name  string
		w, h  int
		at    time.Duration
		keys  []string
		wants []string
	}{
		{"the burst at 120×40", 120, 40, 0, nil, []string{"✓ allowed (dry run: would refuse)", "all keys ✓12 ✗0 · would have refused 6", "all keys ✓6 ✗6", "→ passes, would 503"}},
		{"the burst at 80×24", 80, 24, 0, nil, []string{"✓ allowed (dry run: would refuse)", "✓12 ✗0 · would have refused 6", "would 503"}},
		{"bob later, all keys", 120, 40, 550 * time.Millisecond, nil, []string{"all keys ✓22 ✗0 · would have refused 6"}},
		{"alice pinned", 120, 40, 550 * time.Millisecond, []string{"k"}, []string{"alice ✓12 ✗0 · would have refused 6"}},
		{"bob pinned", 120, 40, 1500 * time.Millisecond, []string{"k", "k"}, []string{"bob ✓"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newYAMLApp(t, dryYAML, c.w, c.h)
			seekTo(a, c.at)
			press(a, c.keys...)
			requireScreen(t, a, c.wants...)
		})
	}
	// bob's own count: what the real lane refused him.
	a := newYAMLApp(t, dryYAML, 120, 40)
	seekTo(a, 1500*time.Millisecond)
	real, dry := a.lab.StatsFor(0, "bob"), a.lab.StatsFor(1, "bob")
	if real.Rejected == 0 || dry.DryRunRejected != real.Rejected {
		t.Fatalf("bob: the real lane refused %d, the dry run would have refused %d", real.Rejected, dry.DryRunRejected)
	}
	press(a, "k", "k")
	requireScreen(t, a, "would have refused "+itoa(real.Rejected))
}

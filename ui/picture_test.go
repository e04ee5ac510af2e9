package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"ratelab/algorithms"
)

// pictureCase puts one algorithm's lane at a moment with something to
// show: a balance part spent, a window part full, a queue waiting.
type pictureCase struct {
	alg    algorithms.Algorithm
	lane   string
	at     time.Duration
	notice string // a word the full form must show
}

// pictureCases are the textbook algorithms'; each other algorithm's picture
// test file appends its own from init.
var pictureCases = []pictureCase{
	{algorithms.TokenBucket, "{name: bucket, algorithm: token-bucket, capacity: 10, rate: 2/s}", 1500 * time.Millisecond, "tokens"},
	{algorithms.GCRA, "{name: gcra, algorithm: gcra, burst: 10, rate: 2/s}", 1500 * time.Millisecond, "TAT"},
	{algorithms.FixedWindow, "{name: fixed, algorithm: fixed-window, limit: 12, window: 10s}", 1500 * time.Millisecond, "this window"},
	{algorithms.SlidingLog, "{name: log, algorithm: sliding-log, limit: 12, window: 10s}", 1500 * time.Millisecond, "oldest leaves"},
	{algorithms.SlidingCounter, "{name: counter, algorithm: sliding-counter, limit: 12, window: 1s}", 1500 * time.Millisecond, "exact"},
	{algorithms.LeakyBucket, "{name: shaper, algorithm: leaky-bucket, queue: 10, rate: 2/s}", 1500 * time.Millisecond, "queued"},
}

// pictureTraffic is a page load of 8 and a request every 250ms.
const pictureTraffic = "traffic:\n  - {at: 0s, count: 8}\n  - {every: 250ms, from: 250ms, until: 3s}\n"

// TestPictureGoldens draws every algorithm's lane in every form at three
// widths. The goldens keep the dark colour theme's escape sequences, so a
// change of style shows in their diff as a change of drawing does.
func TestPictureGoldens(t *testing.T) {
	forms := []struct {
		name string
		mode laneMode
		tall bool
	}{{"tall", laneBoxed, true}, {"boxed", laneBoxed, false}, {"compact", laneCompact, false}, {"row", laneRow, false}}
	for _, c := range pictureCases {
		for _, f := range forms {
			for _, w := range []int{32, 50, 90} {
				t.Run(fmt.Sprintf("%s_%s_%d", c.alg, f.name, w), func(t *testing.T) {
					a := newYAMLApp(t, "title: p\nlimiters:\n  - "+c.lane+"\n"+pictureTraffic, 100, 30)
					a.opts.NoColor = false
					a.dark = true
					a.setStyles()
					a.lab.Seek(c.at)
					v := laneViews(a.programContext)[0]
					lines := laneCell(a.st, v, f.mode, f.tall, w, labelWidth, rowColumnsOf(a.st, []laneView{v}, w))
					if len(lines) != f.mode.cellHeight(f.tall) {
						t.Fatalf("%d lines, want %d", len(lines), f.mode.cellHeight(f.tall))
					}
					for i, l := range lines {
						if got := ansi.StringWidth(l); got != w {
							t.Errorf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(l))
						}
					}
					out := strings.Join(lines, "\n")
					if f.mode == laneBoxed && w >= 50 && !strings.Contains(ansi.Strip(out), c.notice) {
						t.Errorf("the %s form lacks %q:\n%s", f.name, c.notice, ansi.Strip(out))
					}
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

// TestEveryAlgorithmHasAPicture: a new algorithm without its picture file
// fails here, not on a learner's screen.
func TestEveryAlgorithmHasAPicture(t *testing.T) {
	for _, alg := range algorithms.Algorithms {
		if _, ok := pictures[alg]; !ok {
			t.Errorf("no picture registered for %s", alg)
		}
	}
}

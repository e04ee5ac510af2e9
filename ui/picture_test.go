package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// pictureCase puts one algorithm's lane at a moment with something to
// show: a balance part spent, a window part full, a queue waiting. The
// lane is one of the examples of the algorithm's description.
type pictureCase struct {
	alg    algorithms.Algorithm
	lane   string // the example as a scenario file's lane
	at     time.Duration
	notice string // a word the full form must show ("": none checked)
}

// pictureMoment is what a picture of an example is drawn at, and a word
// it must show.
type pictureMoment struct {
	at     time.Duration // 0: 1.5s, into the traffic's steady part
	notice string
}

// pictureMoments are, for an algorithm's examples in their order, the
// moments to draw them at and the words their full form must show; an
// example not here is drawn at 1.5s and checked by its golden alone.
var pictureMoments = map[algorithms.Algorithm][]pictureMoment{
	algorithms.TokenBucket:    {{notice: "tokens"}},
	algorithms.GCRA:           {{notice: "TAT"}},
	algorithms.FixedWindow:    {{notice: "this window"}},
	algorithms.SlidingLog:     {{notice: "oldest leaves"}},
	algorithms.SlidingCounter: {{notice: "exact"}, {2700 * time.Millisecond, "per 0.5s"}}, // the counts of 4 sub-windows show in a row
	algorithms.LeakyBucket:    {{notice: "queued"}},

	algorithms.IntervalBucket:   {{notice: "next +2"}},
	algorithms.EnvoyLocal:       {{notice: "max_tokens"}, {notice: "fill timer"}},
	algorithms.RedisCell:        {{notice: "DVT"}},
	algorithms.RedisRate:        {{notice: "burst_offset"}},
	algorithms.Guava:            {{notice: "next free"}},
	algorithms.GuavaTry:         {{notice: "stored"}},
	algorithms.NginxLimitReq:    {{1600 * time.Millisecond, "excess"}},
	algorithms.XTimeRate:        {{notice: "tokens"}},
	algorithms.XTimeRateReserve: {{notice: "owed"}},
	algorithms.FirstHitWindow:   {{notice: "first hit"}},
	algorithms.Resilience4j:     {{notice: "reserved"}, {notice: "cycle"}},

	algorithms.FloatTokenBucket: {{notice: "float64"}},
	algorithms.WholeTokenBucket: {{notice: "whole tokens"}},
	algorithms.AttemptLog:       {{notice: "attempts"}},
	algorithms.CollapsingLog:    {{notice: "members"}},
	algorithms.ResettingWindow:  {{notice: "expires at"}},
}

// pictureCases are every example of every algorithm, in Algorithms' order.
func pictureCases(t *testing.T) []pictureCase {
	var out []pictureCase
	for _, alg := range algorithms.Algorithms {
		moments := pictureMoments[alg]
		if len(moments) > len(algorithms.Describe(alg).Examples) {
			t.Errorf("%s: %d picture moments for %d examples", alg, len(moments), len(algorithms.Describe(alg).Examples))
		}
		for i, e := range algorithms.Describe(alg).Examples {
			c := pictureCase{alg: alg, lane: exampleLane(t, e), at: 1500 * time.Millisecond}
			if i < len(moments) {
				c.notice = moments[i].notice
				if moments[i].at != 0 {
					c.at = moments[i].at
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// exampleLane is e as a scenario file's lane, as scenarios.Marshal writes
// it: "{name: bucket, algorithm: token-bucket, capacity: 10, rate: 2/s}".
func exampleLane(t *testing.T, e algorithms.Example) string {
	t.Helper()
	s := &scenarios.Scenario{Title: "p", Step: time.Second, Duration: time.Second,
		Lanes: []scenarios.Lane{{Name: e.Name, Policy: e.Policy}}}
	out, err := scenarios.Marshal(s, nil)
	if err != nil {
		t.Fatalf("example %s: %v", e.Policy, err)
	}
	for line := range strings.Lines(string(out)) {
		if lane, ok := strings.CutPrefix(line, "  - {name: "); ok {
			return "{name: " + strings.TrimSpace(lane)
		}
	}
	t.Fatalf("example %s: no lane in\n%s", e.Policy, out)
	return ""
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
	for _, c := range pictureCases(t) {
		for _, f := range forms {
			for _, w := range []int{32, 50, 90} {
				t.Run(fmt.Sprintf("%s_%s_%d", c.alg, f.name, w), func(t *testing.T) {
					a := newYAMLApp(t, "title: p\nlimiters:\n  - "+c.lane+"\n"+pictureTraffic, 100, 30)
					a.opts.NoColor = false
					a.dark = true
					a.setStyles()
					a.lab.Seek(c.at)
					v := laneViews(a.programContext)[0]
					lines := laneCell(a.st, v, f.mode, f.tall, w, labelWidth, rowColumnsOf(a.st, []laneView{v}, w, labelWidth))
					if len(lines) != f.mode.cellHeight(f.tall) {
						t.Fatalf("%d lines, want %d", len(lines), f.mode.cellHeight(f.tall))
					}
					for i, l := range lines {
						if got := ansi.StringWidth(l); got != w {
							t.Errorf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(l))
						}
					}
					out := strings.Join(lines, "\n")
					if f.mode == laneBoxed && w >= 50 && c.notice != "" && !strings.Contains(ansi.Strip(out), c.notice) {
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

//go:build unix

package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/model"
	"ratelab/scenarios"
)

// frozenLimit is the longest a key press or a frame may leave the screen
// unchanged: each step (an Update and the frame drawn after it) must take
// less, whatever the timeline.
const frozenLimit = 100 * time.Millisecond

// firstFrameLimit is the longest the explorer may take to its first frame
// on a large file: the file read, the lab built, the frame drawn.
const firstFrameLimit = 300 * time.Millisecond

// responsiveFiles are the large files the responsiveness test opens, in
// tools/; those marked short run under -short too.
var responsiveFiles = []struct {
	file  string
	short bool
}{
	{"million.yaml", true},
	{"many-keys.yaml", true},
	{"million-retries.yaml", false},
	{"stack-racy.yaml", true},
	{"twenty-million.yaml", false},
}

// An action is what the learner does: keys pressed (a prompt's answer
// typed as keys), or frames of play.
type action struct {
	name string
	keys []string
	// frames of play: ticks a frame apart, then p to pause.
	frames int
}

// responsiveActions are the keys the test presses in turn, at each size:
// first at t = 0 on a timeline nothing is decided of, then at its end,
// then back at the start.
var responsiveActions = []action{
	{name: "space at 0"}, // filled below: the fire key
	{name: "u", keys: []string{"u"}},
	{name: "l", keys: []string{"l"}},
	{name: "L", keys: []string{"L"}},
	{name: "n", keys: []string{"n"}},
	{name: "d", keys: []string{"d"}},
	{name: "]", keys: []string{"]"}},
	{name: "k", keys: []string{"k"}},
	{name: "k again", keys: []string{"k"}},
	{name: "tab", keys: []string{"tab"}},
	{name: "M", keys: []string{"shift+tab", "tab", "M"}},
	{name: "M again", keys: []string{"M"}},
	{name: "G", keys: []string{"G"}},
	{name: "h at the end", keys: []string{"h"}},
	{name: "H at the end", keys: []string{"H"}},
	{name: "N at the end", keys: []string{"N"}},
	{name: "D", keys: []string{"D"}},
	{name: "[", keys: []string{"["}},
	{name: "k at the end", keys: []string{"k"}},
	{name: "space at the end", keys: []string{"space"}},
	{name: "u at the end", keys: []string{"u"}},
	{name: "z", keys: []string{"z"}},
	{name: "Z", keys: []string{"Z", "Z"}},
	{name: "e", keys: []string{"e", "e"}},
	{name: "?", keys: []string{"?", "esc"}},
	{name: "a", keys: []string{"a", "esc"}},
	{name: "w", keys: []string{"w", "ctrl+u", "1", "s", "enter"}},
	{name: "g", keys: []string{"g"}},
	{name: "burst at 0", keys: []string{"b", "ctrl+u", "1", "0", "0", "space", "1", "s", "enter"}},
	{name: "u the burst", keys: []string{"u"}},
	{name: "play", keys: []string{"m", "+", "+", "+", "+", "p"}, frames: 5},
	{name: "t", keys: []string{"t", "t"}},
	{name: "r", keys: []string{"space", "G", "r", "y"}},
}

func init() { responsiveActions[0].keys = []string{"space"} }

// stepTimes are the durations of an action's steps: the key presses and
// frames, and the slices of the jobs they start and of the pinned key's
// verdict they leave to work out.
type stepTimes struct {
	keys, slices []time.Duration
}

// worst is what the test judges of an action: its slowest key press or
// frame of play, and the 90th percentile of its slices (one slice
// among many may meet a collection or another process; a slice size that
// ignores the lanes' cost makes them all slow).
func (s stepTimes) worst() time.Duration {
	w := time.Duration(0)
	for _, d := range s.keys {
		w = max(w, d)
	}
	if n := len(s.slices); n > 0 {
		sorted := slices.Clone(s.slices)
		slices.Sort(sorted)
		w = max(w, sorted[(n-1)*9/10])
	}
	return w
}

// timedStep hands msg to the app and draws a frame, as the program would,
// and returns how long that left the screen unchanged (timed).
func timedStep(a *App, msg tea.Msg) time.Duration {
	return timed(func() {
		a.Update(msg)
		a.View()
	})
}

// timed runs f and returns how long it would have taken on a machine with
// nothing else to run: the wall time less the time f's thread waited for
// a CPU while other work had it.
//
// Why this measure: on the shared 2-core machine the tests run on, the
// wall time counts other processes' turns, so it fails steps that are
// fast; the CPU time alone counts no time spent blocked (a lock, a
// channel, a sleep, a stop of the world), so it passes a step that
// freezes the screen without working. Linux says, per thread, how long it
// waited to run (/proc/thread-self/schedstat): f runs on its goroutine's
// thread, held there, and only that wait is taken off, so both the work
// and any blocking count. The collector's background work on the other
// core does not count, as it freezes nothing; its assists and stops do.
//
// Where the kernel does not say (another Unix), the process's CPU time,
// at most the wall time, is taken; but a step whose wall time is
// frozenLimit or more above it counts by its wall time: it blocked, or
// the machine was busy, and the runs repeated on failure tell which.
func timed(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := instantNow()
	f()
	return start.until(instantNow())
}

// runWait is how long the calling thread has waited on a run queue, ready
// to run while others ran (the second field of Linux's schedstat); false
// where the kernel does not say.
func runWait() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	return time.Duration(ns), err == nil
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestTimedCountsBlocking: a step that blocks without working (here a
// sleep) is timed at what it blocked, and one that works at about its
// work, on an idle machine or a busy one.
func TestTimedCountsBlocking(t *testing.T) {
	const d = 120 * time.Millisecond
	if got := timed(func() { time.Sleep(d) }); got < d {
		t.Errorf("a sleep of %v timed %v", d, got)
	}
	if got := timed(func() {}); got >= frozenLimit {
		t.Errorf("nothing timed %v", got)
	}
}

// runAction does act on a, each key press and frame, each slice of the jobs
// they start and each slice of the verdict they leave a timed step.
func runAction(t *testing.T, a *App, act action) stepTimes {
	var st stepTimes
	finishJob := func() {
		for i := 0; a.job != nil; i++ {
			if i == 100_000 {
				t.Fatalf("%s: the job is still running after %d slices", act.name, i)
			}
			st.slices = append(st.slices, timedStep(a, computeMsg{gen: a.jobGen}))
		}
	}
	// A pinned key's verdict is worked out in slices of its own messages
	// after the key or frame (and its job): each is timed as a job's.
	finishVerdict := func() {
		for i := 0; a.verdictQueued; i++ {
			if i == 100_000 {
				t.Fatalf("%s: the verdict is still being worked out after %d slices", act.name, i)
			}
			st.slices = append(st.slices, timedStep(a, verdictMsg{}))
		}
	}
	// The chart's states are read in slices of their own messages too.
	finishChart := func() {
		for i := 0; a.chartQueued; i++ {
			if i == 100_000 {
				t.Fatalf("%s: the chart's states are still being read after %d slices", act.name, i)
			}
			st.slices = append(st.slices, timedStep(a, chartMsg{}))
		}
	}
	for _, k := range act.keys {
		st.keys = append(st.keys, timedStep(a, keyPress(k)))
		finishJob()
		finishVerdict()
		finishChart()
	}
	if act.frames > 0 {
		wall := time.Unix(0, 0)
		for range act.frames {
			wall = wall.Add(frameInterval)
			st.keys = append(st.keys, timedStep(a, tickMsg{gen: a.play.gen, at: wall}))
			finishJob()
			finishVerdict()
			finishChart()
		}
		if a.play.playing {
			st.keys = append(st.keys, timedStep(a, keyPress("p")))
			finishVerdict()
		}
	}
	return st
}

// loaded is how a large file's opening looked: the time to its first
// frame, to the first sign of life (the building's progress line or the
// frame), and the longest the screen then stayed unchanged until the frame
// (each timed: waits for another process's turn are not counted).
type loaded struct {
	frame, firstSign, stillest time.Duration
}

// marks records when the building's progress line was written: each an
// instant (see timed).
type marks struct{ at []instant }

// instant is a moment of the calling thread, for timed: the wall time
// just before and just after its run wait was read (wait; waits: where the
// kernel says), and the process's CPU time. From one instant to a later
// one the waits read lie within the wall time taken (the earlier's before
// to the later's after), so that the wall time less them is never less
// than what ran between.
type instant struct {
	before, after time.Time
	wait          time.Duration
	waits         bool
	cpu           time.Duration
}

func instantNow() instant {
	var i instant
	i.before = time.Now()
	i.wait, i.waits = runWait()
	i.after = time.Now()
	i.cpu = cpuTime()
	return i
}

// until is the time from i to j as timed counts it: the wall time less
// what the thread waited for a CPU; where the kernel does not say, the CPU
// time, unless the wall time is frozenLimit or more above it.
func (i instant) until(j instant) time.Duration {
	wall := j.after.Sub(i.before)
	if i.waits && j.waits {
		return wall - (j.wait - i.wait)
	}
	if cpu := j.cpu - i.cpu; wall-cpu < frozenLimit {
		return min(wall, cpu)
	}
	return wall
}

func (m *marks) Write(p []byte) (int, error) {
	m.at = append(m.at, instantNow())
	return len(p), nil
}

// loadTimed opens tools/file at w × h as Run would, its building shown on
// a terminal, and returns the app and how its opening looked.
func loadTimed(t *testing.T, file string, w, h int) (*App, loaded) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var a *App
	var err error
	drawn := &marks{}
	start := instantNow()
	func() {
		var s *scenarios.Scenario
		if s, err = scenarios.Load(filepath.Join("..", "tools", file)); err != nil {
			return
		}
		var lab *model.Lab
		if lab, err = buildLab(s, nil, drawn, true); err != nil {
			return
		}
		a = New(lab, Options{SaveDir: t.TempDir()})
		a.Update(tea.WindowSizeMsg{Width: w, Height: h})
		a.View()
	}()
	end := instantNow()
	if err != nil {
		t.Fatal(err)
	}
	l := loaded{frame: start.until(end), firstSign: start.until(end)}
	if len(drawn.at) > 0 {
		l.firstSign = start.until(drawn.at[0])
		for i, m := range drawn.at {
			next := end
			if i+1 < len(drawn.at) {
				next = drawn.at[i+1]
			}
			l.stillest = max(l.stillest, m.until(next))
		}
	}
	return a, l
}

// knownSlow are, by file, the actions that still leave the screen
// unchanged for more than frozenLimit: work the explorer still does in one
// piece on its goroutine, O(requests) or O(keys). The test leaves them out
// (each would cost it seconds) unless RATELAB_RESPONSIVE_ALL is set, when
// it runs and logs them without failing. Every other action of every file
// must stay under the limit.
var knownSlow = map[string]map[string]string{
	"twenty-million.yaml": {
		"first frame": "the timeline's expansion: 20,000,000 requests, about a second, shown meanwhile by a line of progress (judged as its first sign and building)",
	},
}

// responsiveRun opens file at 80×24, does every action, then at 200×60
// does every action again; it returns the worst step of each action ("80×24
// G"), of the resize, and the time to the first frame.
func responsiveRun(t *testing.T, file string, all bool) map[string]time.Duration {
	got := map[string]time.Duration{}
	known := knownSlow[file]
	a, opened := loadTimed(t, file, 80, 24)
	if _, slow := known["first frame"]; !slow || all {
		got["80×24 first frame"] = opened.frame
	}
	got["80×24 first sign"] = opened.firstSign
	got["80×24 building"] = opened.stillest
	for i, size := range [][2]int{{80, 24}, {200, 60}} {
		prefix := fmt.Sprintf("%d×%d ", size[0], size[1])
		if i > 0 {
			got[prefix+"resize"] = timedStep(a, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		}
		for _, act := range responsiveActions {
			if _, slow := known[act.name]; slow && !all {
				continue
			}
			got[prefix+act.name] = runAction(t, a, act).worst()
		}
	}
	return got
}

// TestNoKeyFreezesTheScreen opens the large files (a million requests, a
// million that retry, 100,000 keys, a stack and 64 racy gateways, and
// under a full run the 20,000,000-request cap) at 80×24, then 200×60, and
// presses the lab's keys in turn (space and u at 0, steps, searches, k,
// M, G, a peak window, a burst, play, reset): no key press, frame, slice
// of a job or slice of a pinned key's verdict may leave the screen
// unchanged for frozenLimit or more (timed: blocking counts, waiting for
// another process's turn does not; but the actions of knownSlow), nor a
// first frame firstFrameLimit (but where knownSlow lists it: the first
// frame of 20,000,000 requests). The opening shows a
// line of progress while the timeline is built: its first sign (the line
// or the frame) must come within firstFrameLimit, and the screen then stay
// unchanged for less than frozenLimit until the frame. A run
// where some step is slow is repeated, twice more, and each step judged by
// its median over the runs: a noisy machine slows a step now and then, a
// key that decides every request on the ui's goroutine slows it every
// time. RATELAB_RESPONSIVE_LOG=1 logs every step's time (one run);
// RATELAB_RESPONSIVE_ALL=1 runs the known slow actions too, failing on
// none of them.
func TestNoKeyFreezesTheScreen(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector makes every step 5 to 20 times slower")
	}
	verbose := os.Getenv("RATELAB_RESPONSIVE_LOG") != ""
	all := os.Getenv("RATELAB_RESPONSIVE_ALL") != ""
	for _, f := range responsiveFiles {
		if testing.Short() && !f.short {
			continue
		}
		t.Run(f.file, func(t *testing.T) {
			runs := []map[string]time.Duration{responsiveRun(t, f.file, all)}
			for len(runs) < 3 && !verbose && len(slow(runs, f.file)) > 0 {
				runs = append(runs, responsiveRun(t, f.file, all))
			}
			if verbose {
				logRuns(t, runs)
			}
			for _, s := range slow(runs, f.file) {
				t.Error(s)
			}
		})
	}
}

// slow lists the steps whose median over runs is over their limit.
func slow(runs []map[string]time.Duration, file string) []string {
	var out []string
	for name := range runs[0] {
		ds := make([]time.Duration, len(runs))
		for i, r := range runs {
			ds[i] = r[name]
		}
		slices.Sort(ds)
		med := ds[len(ds)/2]
		if _, known := knownSlow[file][name[strings.Index(name, " ")+1:]]; known {
			continue // run under RATELAB_RESPONSIVE_ALL, to be measured
		}
		limit := frozenLimit
		if strings.HasSuffix(name, "first frame") || strings.HasSuffix(name, "first sign") {
			limit = firstFrameLimit
		}
		if med >= limit {
			out = append(out, fmt.Sprintf("%s: %v (%v over %d runs), over %v", name, med.Round(time.Millisecond), ds, len(runs), limit))
		}
	}
	sort.Strings(out)
	return out
}

// logRuns logs every step's times.
func logRuns(t *testing.T, runs []map[string]time.Duration) {
	var names []string
	for name := range runs[0] {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var ds []string
		for _, r := range runs {
			ds = append(ds, r[name].Round(time.Millisecond/10).String())
		}
		t.Logf("%-28s %s", name, strings.Join(ds, " "))
	}
}

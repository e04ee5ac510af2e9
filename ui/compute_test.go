package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// runJob hands the job's slices to the app until it ends, at most n
// slices.
func runJob(t *testing.T, a *App, n int) {
	t.Helper()
	for i := 0; a.job != nil; i++ {
		if i == n {
			t.Fatalf("the job is still running after %d slices", n)
		}
		a.Update(computeMsg{gen: a.jobGen})
	}
}

// workClock makes a's wall clock, as the pacer reads it, advance
// perRequest for each request the lab has decided or replayed: a slice
// then works on sliceBudget / perRequest requests, whatever the machine.
func workClock(a *App, perRequest time.Duration) *workMeter {
	return newWorkMeter(a, perRequest, perRequest)
}

// workMeter is a clock for the pacer that counts the lab's work instead of
// the time: decide for each request decided (read from the lab's
// Computed, as it grows), replay for each request replayed toward the
// shown key's verdict (read from what the verdict still needs, as it
// shrinks). It sees the work done since it last looked, at each read and
// at each call of spent.
type workMeter struct {
	a              *App
	decide, replay time.Duration
	// decided and replayed count the requests decided and replayed so
	// far; computed is the lab's Computed, and key, left and pending the
	// shown key's verdict, when last looked at.
	decided, replayed int
	computed          int
	key               string
	left              int
	pending           bool
}

// newWorkMeter makes a meter of a's work the pacer's clock.
func newWorkMeter(a *App, decide, replay time.Duration) *workMeter {
	m := &workMeter{a: a, decide: decide, replay: replay}
	base := time.Unix(0, 0)
	a.pace.now = func() time.Time { return base.Add(m.spent()) }
	return m
}

// spent is what the work done so far is worth.
func (m *workMeter) spent() time.Duration {
	m.look()
	return time.Duration(m.decided)*m.decide + time.Duration(m.replayed)*m.replay
}

// look counts what the lab's decisions have grown by since the meter last
// looked (decisions taken back, by an undo or a fire, are not work: the
// count goes on from what is left), and what the shown key's verdict has
// shrunk by: a verdict that stopped pending for the same key was worked
// out, its last left replayed.
func (m *workMeter) look() {
	if c := m.a.lab.Computed(); c > m.computed {
		m.decided += c - m.computed
	}
	m.computed = m.a.lab.Computed()
	key := m.a.key()
	left, pending := m.a.lab.PendingLastDecisionFor(key)
	if key == m.key && m.pending {
		switch {
		case !pending:
			m.replayed += m.left
		case left < m.left:
			m.replayed += m.left - left
		}
	}
	m.key, m.left, m.pending = key, left, pending
}

// perSlice is how many requests a slice decides under workClock(a, µs):
// sliceBudget's worth, in the pacer's chunks of a quarter of it.
const perSlice = int(sliceBudget / time.Microsecond)

// TestFarKeysDecideInSlices: G on a 300,000-request timeline does not
// decide everything inside the key press: it decides for about a slice's
// time, then shows progress and decides slice by slice between frames, then
// jumps; esc gives up and q quits while it runs.
func TestFarKeysDecideInSlices(t *testing.T) {
	s := bigScenario(t, 300_000, time.Millisecond)
	a := openApp(t, s, 100, 30)
	workClock(a, time.Microsecond)
	cmd := press(a, "G")
	if a.job == nil || cmd == nil || a.lab.Computed() > perSlice+2*minChunk || a.lab.Now() == a.lab.End() {
		t.Fatalf("G decided %d requests in the key press (job %v)", a.lab.Computed(), a.job != nil)
	}
	requireScreen(t, a, "deciding requests for G", "esc gives up")
	press(a, "l") // another key waits
	if a.job == nil || a.lab.Now() != 0 {
		t.Fatal("a key during the job did its own work")
	}
	before := a.lab.Computed()
	a.Update(computeMsg{gen: a.jobGen})
	if got := a.lab.Computed() - before; got != perSlice || !strings.Contains(a.status.text, algorithms.Thousands(int64(a.lab.Computed()))+" of 300,000") {
		t.Errorf("one slice decided %d requests; status %q", got, a.status.text)
	}
	runJob(t, a, 20)
	if a.lab.Now() != a.lab.End() {
		t.Fatalf("after the job the clock is at %v, want the end %v", a.lab.Now(), a.lab.End())
	}

	b := openApp(t, s, 100, 30)
	workClock(b, time.Microsecond)
	press(b, "G", "esc")
	if b.job != nil || b.lab.Now() != 0 {
		t.Error("esc did not give up the job")
	}
	b.Update(computeMsg{gen: b.jobGen}) // a slice already on its way does nothing
	if b.lab.Now() != 0 {
		t.Error("a slice of the given-up job moved the clock")
	}
	press(b, "G")
	if !isQuit(press(b, "q")) {
		t.Error("q did not quit during a job")
	}
}

// CheckpointSlack is how far past a slice a seek may decide: up to the next
// checkpoint boundary.
const CheckpointSlack = 2048

// TestSlicesAreSizedByTime: a slice decides sliceBudget's worth of
// requests, however much a request costs: fewer where each costs more.
func TestSlicesAreSizedByTime(t *testing.T) {
	s := bigScenario(t, 300_000, time.Millisecond)
	for _, cost := range []time.Duration{time.Microsecond, 10 * time.Microsecond} {
		a := openApp(t, s, 100, 30)
		workClock(a, cost)
		press(a, "G")
		before := a.lab.Computed()
		a.Update(computeMsg{gen: a.jobGen})
		want := int(sliceBudget / cost)
		if got := a.lab.Computed() - before; got < want*3/4 || got > want*5/4 {
			t.Errorf("at %v a request, a slice decided %d requests, want about %d", cost, got, want)
		}
	}
}

// TestPlayDecidesAtMostASlicePerFrame: at ×1000 over a dense timeline a
// frame decides at most one slice more, so frames keep coming.
func TestPlayDecidesAtMostASlicePerFrame(t *testing.T) {
	a := openApp(t, bigScenario(t, 400_000, 10*time.Microsecond), 100, 30)
	workClock(a, time.Microsecond)
	a.play.speed = len(speeds) - 1
	a.play.stopAtNotes = false
	press(a, "p")
	wall := time.Unix(0, 0)
	for i := 0; i < 3; i++ {
		before := a.lab.Computed()
		wall = wall.Add(frameInterval)
		a.Update(tickMsg{gen: a.play.gen, at: wall})
		if got := a.lab.Computed() - before; got > perSlice+minChunk+CheckpointSlack {
			t.Fatalf("frame %d decided %d requests", i, got)
		}
	}
	if !a.play.playing || a.lab.Now() == 0 {
		t.Errorf("playing %v at %v", a.play.playing, a.lab.Now())
	}
}

// TestUndoFarBackIsParked: undoing a fire action made near the start while
// the clock stands far into a long timeline recomputes in slices, and the
// clock comes back where it was, with the undo's own words.
func TestUndoFarBackIsParked(t *testing.T) {
	a := openApp(t, bigScenario(t, 300_000, time.Millisecond), 100, 30)
	workClock(a, time.Microsecond)
	press(a, "space") // at 0s
	press(a, "G")
	runJob(t, a, 20)
	end := a.lab.Now()
	press(a, "u")
	if a.job == nil || a.lab.Computed() > perSlice+minChunk+CheckpointSlack {
		t.Fatalf("u recomputed %d requests in the key press", a.lab.Computed())
	}
	runJob(t, a, 30)
	if a.lab.Now() != end || a.lab.FiredCount() != 0 || !strings.Contains(a.status.text, "undid 1 request at 0s") {
		t.Errorf("after the undo: clock %v (want %v), %d fired, status %q", a.lab.Now(), end, a.lab.FiredCount(), a.status.text)
	}
}

// TestParkedDecidesWhatTheChangeLeft: a change made with the clock parked
// (an undo far back) that costs a slice's time or more itself (the lanes'
// state restored from a checkpoint, with many keys) leaves the key press no
// deciding: the job decides, slice by slice, and brings the clock back;
// a cheap change still decides a slice in the key press.
func TestParkedDecidesWhatTheChangeLeft(t *testing.T) {
	s := bigScenario(t, 300_000, time.Millisecond)
	for _, c := range []struct {
		change  time.Duration // what the change costs on the pacer's clock
		decided int           // the most requests the key press decides
		least   int           // the fewest
	}{
		{0, perSlice + minChunk + CheckpointSlack, perSlice / 2},
		{sliceBudget / 2, perSlice/2 + minChunk + CheckpointSlack, perSlice / 4},
		{sliceBudget + time.Millisecond, 0, 0},
	} {
		a := openApp(t, s, 100, 30)
		workClock(a, time.Microsecond)
		press(a, "space") // at 0s
		press(a, "G")
		runJob(t, a, 20)
		end := a.lab.Now()
		work := a.pace.now
		var extra time.Duration
		a.pace.now = func() time.Time { return work().Add(extra) }
		from := -1
		a.parked("undo", func() error {
			extra += c.change
			a.lab.Undo()
			from = a.lab.Computed()
			return nil
		})
		if got := a.lab.Computed() - from; got > c.decided || got < c.least || a.job == nil {
			t.Errorf("a change costing %v: the key press decided %d requests (%d to %d), job %v", c.change, got, c.least, c.decided, a.job != nil)
		}
		runJob(t, a, 30)
		if a.lab.Now() != end || a.lab.FiredCount() != 0 {
			t.Errorf("a change costing %v: the clock came back to %v, want %v; %d fired", c.change, a.lab.Now(), end, a.lab.FiredCount())
		}
	}
}

// TestSpreadBurstDecidedInSlices: a burst spread over many requests of the
// timeline (a second of 100,000 keys' traffic) is not decided inside the
// key press: a job decides the requests up to its last in slices, showing
// its progress, and the status line then tallies each lane's outcomes over
// the burst's own requests.
func TestSpreadBurstDecidedInSlices(t *testing.T) {
	a := openApp(t, bigScenario(t, 300_000, time.Millisecond), 100, 30)
	workClock(a, time.Microsecond)
	press(a, "b")
	answer(a, "100 100s")
	if a.job == nil || a.lab.Computed() > perSlice+minChunk+CheckpointSlack {
		t.Fatalf("the burst decided %d requests in the key press (job %v)", a.lab.Computed(), a.job != nil)
	}
	requireScreen(t, a, "deciding requests for the 100 requests fired")
	runJob(t, a, 20)
	if a.lab.Now() != 0 || a.lab.Computed() < 99_000 { // the last fired at 99s
		t.Fatalf("after the job: clock %v, %d decided", a.lab.Now(), a.lab.Computed())
	}
	var parts []string
	for lane, l := range a.lab.Lanes() {
		var tally model.Tally
		for i := range a.lab.Len() {
			if !a.lab.Fired(i) {
				continue
			}
			switch a.lab.Outcome(lane, i) {
			case algorithms.Allowed:
				tally.Allowed++
			case algorithms.Delayed:
				tally.Delayed++
			default:
				tally.Rejected++
			}
		}
		if tally.Total() != 100 {
			t.Fatalf("lane %s: %d fired requests", l.Name, tally.Total())
		}
		parts = append(parts, l.Name+" "+tallyText(a.st, tally))
	}
	want := "fired 100 requests at 0s over 100s: " + strings.Join(parts, " · ")
	if !strings.Contains(a.status.text, want) {
		t.Errorf("status %q, want %q", a.status.text, want)
	}
}

// TestPacerSlices: a slice works in chunks until its work is done, a chunk
// does nothing, or its budget has passed, and sizes its chunks from what
// the last ones cost.
func TestPacerSlices(t *testing.T) {
	tests := []struct {
		name       string
		perRequest float64 // ns, learned before
		cost       time.Duration
		work       int // requests to do; a step does at most stuck a chunk
		stuck      int
		done       bool
		did        int
	}{
		{"nothing learned: minChunk first, then a quarter", 0, time.Microsecond, 1 << 30, 1 << 30, false, minChunk + 4*5000},
		{"learned: four quarters", 1000, time.Microsecond, 1 << 30, 1 << 30, false, 20_000},
		{"learned wrong, ten times too cheap: one chunk over", 100, 10 * time.Microsecond, 1 << 30, 1 << 30, false, 50_000},
		{"the work ends first", 1000, time.Microsecond, 7000, 1 << 30, true, 7000},
		{"a chunk that does nothing stops", 1000, time.Microsecond, 1 << 30, 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			did := 0
			p := pacer{now: func() time.Time { return time.Unix(0, 0).Add(time.Duration(did) * tt.cost) }}
			r := rate{perRequest: tt.perRequest}
			done := p.slice(&r, sliceBudget, func(n int) (int, bool) {
				n = min(n, tt.work-did, tt.stuck)
				did += n
				return n, did < tt.work
			})
			if done != tt.done || did != tt.did {
				t.Errorf("done %v after %d requests, want %v after %d", done, did, tt.done, tt.did)
			}
			if want := float64(tt.cost); did > 0 && (r.perRequest < want/2 || r.perRequest > want) {
				t.Errorf("learned %v ns a request, want near %v", r.perRequest, want)
			}
		})
	}
}

// TestEachKindOfWorkPacedApart: deciding and replaying toward a pinned
// key's verdict cost differently (here ten times, either way), and each
// slice of either, after slices of the other, keeps to its budget; a
// verdict's slices run on their own messages only, never after a key's,
// a frame's or a job's work.
func TestEachKindOfWorkPacedApart(t *testing.T) {
	// 3000 accounts: checkpoints far enough apart that a key's verdict
	// replays more than syncVerdict requests.
	s, err := scenarios.Parse("keys.yaml", []byte(`title: keys
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: log, algorithm: sliding-log, limit: 5, window: 10s}
traffic:
  - {every: 1s, until: 10s, accounts: 3000, stagger: random}
`))
	if err != nil {
		t.Fatal(err)
	}
	limit := sliceBudget * 3 / 2 // a slice may run over by a chunk
	for _, costs := range [][2]time.Duration{{time.Microsecond, 10 * time.Microsecond}, {10 * time.Microsecond, time.Microsecond}} {
		t.Run(fmt.Sprintf("deciding %v, replaying %v", costs[0], costs[1]), func(t *testing.T) {
			a := openApp(t, s, 100, 30)
			m := newWorkMeter(a, costs[0], costs[1])
			// step hands msg to a and checks what the work took, and of
			// which kind.
			step := func(what string, msg tea.Msg) tea.Cmd {
				t.Helper()
				spent := m.spent()
				decided, replayed := m.decided, m.replayed
				_, cmd := a.Update(msg)
				if d := m.spent() - spent; d > limit {
					t.Fatalf("%s: %v of work", what, d)
				}
				_, verdict := msg.(verdictMsg)
				if verdict && m.decided != decided || !verdict && m.replayed != replayed {
					t.Fatalf("%s: decided %d and replayed %d requests", what, m.decided-decided, m.replayed-replayed)
				}
				return cmd
			}
			jobDone := func(what string) {
				t.Helper()
				for i := 0; a.job != nil; i++ {
					if i == 1000 {
						t.Fatalf("%s: the job is still running", what)
					}
					step(what+", a slice", computeMsg{gen: a.jobGen})
				}
			}
			verdictDone := func(what string) int {
				t.Helper()
				n := 0
				for ; a.verdictQueued; n++ {
					if n == 1000 {
						t.Fatalf("%s: the verdict is still being worked out", what)
					}
					step(what+", a verdict's slice", verdictMsg{})
				}
				if _, pending := a.lab.PendingLastDecisionFor(a.key()); pending {
					t.Fatalf("%s: the verdict is pending, and no slice of it asked for", what)
				}
				return n
			}
			step("space at 0", keyPress("space"))
			step("G", keyPress("G"))
			jobDone("G")
			step("k", keyPress("k"))
			left, pending := a.lab.PendingLastDecisionFor(a.key())
			if !pending || left <= syncVerdict || !a.verdictQueued {
				t.Fatalf("after k the verdict is pending %v, %d requests to replay, a slice asked for %v", pending, left, a.verdictQueued)
			}
			if n, want := verdictDone("k"), int(time.Duration(left)*costs[1]/sliceBudget); n < want {
				t.Errorf("the verdict took %d slices, want at least %d", n, want)
			}
			step("u", keyPress("u")) // undoes the request at 0: decides everything again
			if a.job == nil {
				t.Fatal("u far back is not a job")
			}
			jobDone("u")
			if _, pending := a.lab.PendingLastDecisionFor(a.key()); !pending || !a.verdictQueued {
				t.Fatal("after u the verdict is not worked out again")
			}
			verdictDone("u")
		})
	}
}

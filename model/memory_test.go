package model

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// hugeQueue is a leaky bucket with a queue of 1,000,000 at 1/s: a burst of
// n requests fills it and a request every 10ms follows for n/100 seconds.
func hugeQueue(t testing.TB, n int) *scenarios.Scenario {
	return parse(t, fmt.Sprintf(`title: huge queue
limiters:
  - {name: shaper, algorithm: leaky-bucket, queue: 1000000, rate: 1/s}
traffic:
  - {at: 0s, count: %d}
  - {every: 10ms, from: 1s, until: %ds}
`, n, n/100+1))
}

// hugeLog is a sliding log of limit 1,000,000 over an hour fed a request
// every millisecond for n ms: every request is admitted and stays logged.
func hugeLog(t testing.TB, n int) *scenarios.Scenario {
	return parse(t, fmt.Sprintf(`title: huge log
limiters:
  - {name: log, algorithm: sliding-log, limit: 1000000, window: 1h}
traffic:
  - {every: 1ms, until: %dms}
`, n))
}

// sandboxLog is a sandbox (no traffic) with a sliding log of limit
// 50,000,000, into which the learner fires bursts.
func sandboxLog(t testing.TB) *scenarios.Scenario {
	return parse(t, `title: sandbox
limiters:
  - {name: log, algorithm: sliding-log, limit: 50000000, window: 1m}
  - {name: bucket, algorithm: token-bucket, capacity: 100, rate: 10/s}
traffic: []
`)
}

// manyKeysEach is keys keys sending n requests each, one a second (each
// second every key in turn), on the six algorithms.
func manyKeysEach(t testing.TB, keys, n int) *scenarios.Scenario {
	var y strings.Builder
	y.WriteString("title: many keys\nlimiters:" + allSix + "traffic:\n")
	for k := range keys {
		fmt.Fprintf(&y, "- {every: 1s, until: %ds, key: k%d}\n", n, k)
	}
	return parse(t, y.String())
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// peakHeap runs f and returns the most heap in use at once above what was
// in use before, sampled every millisecond, and f's wall time.
func peakHeap(f func()) (uint64, time.Duration) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	var most atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > base && m.HeapAlloc-base > most.Load() {
					most.Store(m.HeapAlloc - base)
				}
			}
		}
	}()
	start := time.Now()
	f()
	elapsed := time.Since(start)
	close(done)
	return most.Load(), elapsed
}

// cpuTime is the CPU time this process used so far (every thread, the
// garbage collector's included).
func cpuTime() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// loopCPU runs f once per iteration and reports the CPU time per op
// (cpu-ms/op) beside the wall time: on a shared machine the wall time
// counts the waits for a core too.
func loopCPU(b *testing.B, f func()) {
	start := cpuTime()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(n)/1e6, "cpu-ms/op")
}

// reportPeakHeap runs f once per iteration and reports the largest heap
// any run held (MB), beside the usual time per op.
func reportPeakHeap(b *testing.B, f func()) {
	var most uint64
	loopCPU(b, func() {
		heap, _ := peakHeap(f)
		most = max(most, heap)
	})
	b.ReportMetric(float64(most)/1e6, "peak-heap-MB")
}

// hostileCase is a lab built by build; what it holds is measured after
// every request is decided.
type hostileCase struct {
	name  string
	build func(t testing.TB) *Lab
}

// hostileCases are the shapes at sizes of about 200,000 requests.
func hostileCases(scale int) []hostileCase {
	return sizedCases(100_000*scale, 200_000*scale, 20_000*scale, 4000*scale, 50)
}

// issueCases are the shapes at the sizes issue 7 reports (6.1 GB, 7.3 GB and
// 8 GB before), the many keys as 7000 keys × 143 requests (1,001,000), about
// the most keys a file of at most 100,000 YAML tokens can hold, for the
// issue's 20,000 × 50 (5.4 GB before).
func issueCases() []hostileCase { return sizedCases(1_000_000, 1_000_000, 100_000, 7000, 143) }

func sizedCases(queue, log, burst, keys, perKey int) []hostileCase {
	return []hostileCase{
		{"queue", func(t testing.TB) *Lab { return newLab(t, hugeQueue(t, queue)) }},
		{"log", func(t testing.TB) *Lab { return newLab(t, hugeLog(t, log)) }},
		{"bursts", func(t testing.TB) *Lab {
			l := newLab(t, sandboxLog(t))
			for i := range 10 {
				l.Seek(time.Duration(i) * time.Second)
				if _, err := l.FireBurst("k", 1, burst); err != nil {
					t.Fatal(err)
				}
			}
			return l
		}},
		{"keys", func(t testing.TB) *Lab { return newLab(t, manyKeysEach(t, keys, perKey)) }},
	}
}

// measureLab builds c's lab, decides every request, seeks about, and
// returns the lab and the heap it holds.
func measureLab(t testing.TB, c hostileCase) (*Lab, uint64) {
	before := heapInUse()
	l := c.build(t)
	l.Seek(l.End())
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		l.Seek(l.Request(rng.IntN(l.Len())).At)
	}
	after := heapInUse()
	if after < before {
		return l, 0
	}
	return l, after - before
}

// BenchmarkHostileMemory reports the heap a lab holds per request on each
// hostile shape (B/req), with every request decided, and how long a seek to
// a random request's time takes there.
func BenchmarkHostileMemory(b *testing.B) {
	for _, c := range benchHostileCases() {
		b.Run(c.name, func(b *testing.B) {
			var l *Lab
			var heap uint64
			for b.Loop() {
				l, heap = measureLab(b, c)
			}
			b.ReportMetric(float64(heap)/float64(l.Len()), "B/req")
			b.ReportMetric(float64(l.engine.checkpointBytes())/float64(l.Len()), "ckpt-B/req")
			b.ReportMetric(float64(len(l.engine.checkpoints)), "ckpts")
			rng := rand.New(rand.NewPCG(3, 4))
			const seeks = 50
			start := time.Now()
			for range seeks {
				l.Seek(l.Request(rng.IntN(l.Len())).At)
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/seeks, "µs/seek")
		})
	}
}

// benchHostileCases are the hostile shapes the benchmarks measure: at the
// full sizes when RATELAB_FULL_SIZES is set (about a minute, a few
// hundred MB), else at about 200,000 requests.
func benchHostileCases() []hostileCase {
	if os.Getenv("RATELAB_FULL_SIZES") != "" {
		return issueCases()
	}
	return hostileCases(1)
}

// BenchmarkHostileRSS reports, for each hostile shape, the maximum resident
// set of a process that builds its lab, decides every request and seeks
// about (as BenchmarkHostileMemory does): the operating system's figure,
// which users see, beside the heap held at the end that
// BenchmarkHostileMemory reports (RSS adds the heap's high-water mark
// while building, freed garbage not yet returned, and the runtime and
// test binary). Each shape runs in a child process of its own
// (TestHostileRSSChild), which reports its VmHWM: the child's rusage
// would not do, as Linux counts in it the high-water mark of the parent
// whose memory it shared until exec.
func BenchmarkHostileRSS(b *testing.B) {
	for _, c := range benchHostileCases() {
		b.Run(c.name, func(b *testing.B) {
			var kb int64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run", "^TestHostileRSSChild$", "-test.count", "1", "-test.v")
				cmd.Env = append(os.Environ(), "RATELAB_RSS_CHILD="+c.name)
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				i := bytes.Index(out, []byte("VmHWM:"))
				if i < 0 {
					b.Fatalf("no VmHWM in %s", out)
				}
				if _, err := fmt.Sscanf(string(out[i:]), "VmHWM: %d kB", &kb); err != nil {
					b.Fatalf("%v in %s", err, out[i:])
				}
			}
			b.ReportMetric(float64(kb)/1024, "maxRSS-MB")
		})
	}
}

// TestHostileRSSChild builds the hostile lab RATELAB_RSS_CHILD names, for
// BenchmarkHostileRSS, and logs the process's VmHWM (Linux's high-water
// mark of its resident set); without it, it does nothing.
func TestHostileRSSChild(t *testing.T) {
	name := os.Getenv("RATELAB_RSS_CHILD")
	if name == "" {
		t.Skip("run by BenchmarkHostileRSS")
	}
	for _, c := range benchHostileCases() {
		if c.name == name {
			l, _ := measureLab(t, c)
			runtime.KeepAlive(l)
			status, err := os.ReadFile("/proc/self/status")
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(status), "\n") {
				if strings.HasPrefix(line, "VmHWM:") {
					t.Log(strings.Join(strings.Fields(line), " "))
					return
				}
			}
			t.Fatal("no VmHWM in /proc/self/status")
		}
	}
	t.Fatalf("no hostile shape %q", name)
}

// BenchmarkMillionMemory reports what the lab of the README's million-request
// scenario holds per request once every request is decided: the timeline
// (each request, each lane's verdict, the leaky bucket's delays) and the
// checkpoints.
func BenchmarkMillionMemory(b *testing.B) {
	s := millionRequests(b)
	var l *Lab
	var heap uint64
	for b.Loop() {
		l, heap = measureLab(b, hostileCase{"million", func(t testing.TB) *Lab { return newLab(t, s) }})
	}
	b.ReportMetric(float64(heap)/float64(l.Len()), "B/req")
	b.ReportMetric(float64(l.engine.checkpointBytes())/float64(l.Len()), "ckpt-B/req")
}

// TestCheckpointsStayWithinBudget: on every hostile shape the checkpoints
// cost at most checkpointBudget bytes per request plus one state, and the
// whole lab holds a bounded number of bytes per request (the timeline, the
// state itself, the checkpoints); every decision still matches a fresh run.
func TestCheckpointsStayWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds labs of 200,000 requests")
	}
	for _, c := range hostileCases(1) {
		t.Run(c.name, func(t *testing.T) {
			l, heap := measureLab(t, c)
			var state int64
			for lane := range l.Lanes() {
				state += l.engine.frontier.limiters[lane].Memory().State
				// The live state at the end holds what the frontier does, in
				// chunks that may differ by a tail.
				l.Seek(l.End())
				if got, want := l.StateBytes(lane), l.engine.frontier.limiters[lane].Memory().State; got < want/2 || got > 2*want+1<<16 {
					t.Errorf("lane %d: StateBytes %d at the end, the frontier's state %d", lane, got, want)
				}
			}
			n := int64(l.Len())
			if cost := l.engine.checkpointBytes(); cost > checkpointBudget*n+state {
				t.Errorf("%d checkpoints cost %d bytes (%.1f a request), over %d a request plus one state (%d)",
					len(l.engine.checkpoints), cost, float64(cost)/float64(n), checkpointBudget, state)
			}
			// Before: over 1,000 bytes a request at this size, growing
			// with it.
			if perReq := float64(heap) / float64(n); perReq > 150 {
				t.Errorf("the lab holds %.0f bytes a request", perReq)
			}
			t.Logf("%d requests, %d checkpoints costing %.1f B/req, state %.1f B/req, heap %.1f B/req",
				n, len(l.engine.checkpoints), float64(l.engine.checkpointBytes())/float64(n), float64(state)/float64(n), float64(heap)/float64(n))
			// Spot checks against a fresh run.
			recs, _ := reference(t, mustMarshal(t, l.Scenario(), l.FiredRequests()), 0)
			rng := rand.New(rand.NewPCG(5, 6))
			for range 200 {
				r := recs[rng.IntN(len(recs))]
				if got := l.Outcome(r.Lane, r.Index); got != r.Decision.Outcome {
					t.Fatalf("request %d lane %d: %v, a fresh run says %v", r.Index, r.Lane, got, r.Decision.Outcome)
				}
			}
		})
	}
}

// BenchmarkHostileSeek seeks to random requests' times on each hostile
// shape, every request decided.
func BenchmarkHostileSeek(b *testing.B) {
	for _, c := range hostileCases(1) {
		b.Run(c.name, func(b *testing.B) {
			l := c.build(b)
			l.Seek(l.End())
			rng := rand.New(rand.NewPCG(3, 4))
			for b.Loop() {
				l.Seek(l.Request(rng.IntN(l.Len())).At)
			}
		})
	}
}

// BenchmarkCapMemory is BenchmarkMillionMemory at the cap a scenario may
// expand to, 20,000,000 requests (tools/million.yaml's lanes, one request a
// millisecond for 20,000 s): the heap the lab holds with every request
// decided (MB, and B/req). It builds 400 MB, so it runs only when
// RATELAB_FULL_SIZES is set.
func BenchmarkCapMemory(b *testing.B) {
	if os.Getenv("RATELAB_FULL_SIZES") == "" {
		b.Skip("set RATELAB_FULL_SIZES=1: builds a 20,000,000-request lab")
	}
	s := millionRequests(b)
	s.Traffic[0].Until = 20_000 * time.Second
	s.Traffic[0].Count = 20_000_000
	s.Duration = 20_000 * time.Second
	var l *Lab
	var heap uint64
	for b.Loop() {
		l, heap = measureLab(b, hostileCase{"cap", func(t testing.TB) *Lab { return newLab(t, s) }})
	}
	b.ReportMetric(float64(heap)/1e6, "MB")
	b.ReportMetric(float64(heap)/float64(l.Len()), "B/req")
}

// twoMillion is 2,000,000 requests, one a millisecond, through a token
// bucket: a 16 MB timeline.
func twoMillion(t testing.TB) *Lab {
	return newLab(t, parse(t, `title: two million
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 100/s}
traffic:
  - {every: 1ms, until: 2000s}
`))
}

// allocated is the bytes f allocates (freed or not).
func allocated(f func()) uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.TotalAlloc
	f()
	runtime.ReadMemStats(&m)
	return m.TotalAlloc - before
}

// fireAndUndoAllocs is what FireAt(0) and then Undo allocate on a
// 2,000,000-request lab, the clock at 0.
func fireAndUndoAllocs(t testing.TB) (fire, undo uint64) {
	l := twoMillion(t)
	fire = allocated(func() {
		if _, err := l.FireAt(0, "", 1); err != nil {
			t.Fatal(err)
		}
	})
	undo = allocated(func() {
		if _, ok := l.Undo(); !ok {
			t.Fatal("nothing to undo")
		}
	})
	return fire, undo
}

// BenchmarkFireUndoAllocs reports the bytes FireAt(0) and Undo allocate on a
// 2,000,000-request lab (fire-MB, undo-MB), beside the timeline's own.
func BenchmarkFireUndoAllocs(b *testing.B) {
	var fire, undo uint64
	for b.Loop() {
		fire, undo = fireAndUndoAllocs(b)
	}
	b.ReportMetric(float64(fire)/1e6, "fire-MB")
	b.ReportMetric(float64(undo)/1e6, "undo-MB")
	b.ReportMetric(float64(twoMillion(b).timeline.ev.bytes())/1e6, "timeline-MB")
}

// TestFireAndUndoShiftTheTimelineInPlace: on a 2,000,000-request lab (a 16
// MB timeline), FireAt(0) and Undo shift the timeline in place: they
// allocate what the queue of requests read ahead takes, a block or so, not
// a copy of the timeline (34.5 MB and 32 MB before).
func TestFireAndUndoShiftTheTimelineInPlace(t *testing.T) {
	fire, undo := fireAndUndoAllocs(t)
	t.Logf("FireAt(0) allocates %d bytes, Undo %d", fire, undo)
	if fire > 256<<10 || undo > 256<<10 {
		t.Errorf("FireAt(0) allocates %d bytes, Undo %d: over 256 KiB", fire, undo)
	}
}

// BenchmarkMillionRetriesMemory: tools/million-retries.yaml's million
// requests backing off up to 4 attempts, every decision computed: about
// 3 million retries a lane, each logged for the timeline's marks.
func BenchmarkMillionRetriesMemory(b *testing.B) {
	s, err := scenarios.Load("../tools/million-retries.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var l *Lab
	var heap uint64
	for b.Loop() {
		l, heap = measureLab(b, hostileCase{"million-retries", func(t testing.TB) *Lab { return newLab(t, s) }})
	}
	perReq := float64(heap) / float64(l.Len())
	b.ReportMetric(perReq, "B/req")
	b.ReportMetric(float64(l.engine.checkpointBytes())/float64(l.Len()), "ckpt-B/req")
	if perReq > 64 {
		b.Errorf("the lab holds %.1f bytes a request, over 64", perReq)
	}
}

// TestRetriesMemory is BenchmarkMillionRetriesMemory on the file's first
// 250 s (250,000 requests, about 4.5 million entries in the lanes' logs):
// the lab holds at most 64 bytes a request with every decision computed
// (over 550 when each logged retry took 24 bytes), its checkpoints at
// most their budget.
func TestRetriesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("250,000 requests backing off")
	}
	y, err := os.ReadFile("../tools/million-retries.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := parse(t, strings.Replace(string(y), "until: 1000s", "until: 250s", 1))
	l, heap := measureLab(t, hostileCase{"retries", func(t testing.TB) *Lab { return newLab(t, s) }})
	perReq := float64(heap) / float64(l.Len())
	ckpt := float64(l.engine.checkpointBytes()) / float64(l.Len())
	t.Logf("%d requests: %.1f bytes a request, checkpoints %.1f", l.Len(), perReq, ckpt)
	if perReq > 64 || ckpt > checkpointBudget+1 {
		t.Errorf("the lab holds %.1f bytes a request (at most 64), its checkpoints %.1f (at most %d)", perReq, ckpt, checkpointBudget)
	}
}

// inFlightLanes are shapers that a burst at 0s fills with a million
// requests in flight, and how many bytes their peak trackers may hold for
// them: a few runs at a regular step (Guava and nginx release every
// millisecond exactly), a run per key (a hundred keys' bursts of 10,000),
// and for x/time/rate's reserve, whose float64 arithmetic puts some
// releases a nanosecond early (gaps of 1 ms, 1 ms − 1 ns and 1 ms + 1 ns),
// about a bit per request.
var inFlightLanes = []struct {
	name, lane, traffic string
	most                int64
}{
	{"x-time-rate-reserve", "{name: reserve, algorithm: x-time-rate-reserve, burst: 1, rate: 1/ms}", oneBurst, 1 << 19},
	{"guava", "{name: guava, algorithm: guava, rate: 1000/s}", oneBurst, 4096},
	{"nginx", "{name: nginx, algorithm: nginx-limit-req, rate: 1000r/s, burst: 100000000}", oneBurst, 4096},
	{"guava-100-keys", "{name: guava, algorithm: guava, rate: 1000/s}", hundredBursts(), 100 * 512},
}

const oneBurst = "  - {at: 0s, count: 1000000}\n"

func hundredBursts() string {
	var y strings.Builder
	for k := range 100 {
		fmt.Fprintf(&y, "  - {at: 0s, count: 10000, key: k%d}\n", k)
	}
	return y.String()
}

// TestInFlightReleasesCostNoHeapEntryEach is issue 17 at a twentieth of its
// size: a million requests at 0s into a shaper (whose own state is a few
// numbers a key) are a million releases in flight. The peak tracker held one
// 16-byte heap entry for each (more with the slice's growth): Run's heap
// grew to tens of MB, and the lab's trackers held 16 MB each. Now Run
// holds what the tracker's runs take, and so do the lab's trackers.
func TestInFlightReleasesCostNoHeapEntryEach(t *testing.T) {
	if testing.Short() {
		t.Skip("a million requests a lane")
	}
	for _, c := range inFlightLanes {
		t.Run(c.name, func(t *testing.T) {
			s := parse(t, "title: in flight\nlimiters:\n  - "+c.lane+"\ntraffic:\n"+c.traffic)
			heap, _ := peakHeap(func() {
				if _, err := Run(s, Options{}, nil); err != nil {
					t.Fatal(err)
				}
			})
			if heap > 4<<20 {
				t.Errorf("Run's heap grew by %d bytes for 1,000,000 requests in flight", heap)
			}
			l := newLab(t, s) // its clock at 0: every request decided, all but one in flight
			for name, ls := range map[string]*lanes{"frontier": l.engine.frontier, "live": l.clock.live} {
				if n := ls.peaks[0].CloneBytes(); n > c.most {
					t.Errorf("the lab's %s tracker holds %d bytes for 1,000,000 requests in flight, want at most %d", name, n, c.most)
				}
			}
		})
	}
}

// TestCheckInFlightReleasesCostNoHeapEntryEach: Check measuring a peak
// on such a lane kept each release due in a 24-byte queue entry (a
// million in flight: tens of MB); it keeps the first duePlain plainly and
// the rest grouped as the peak tracker does.
func TestCheckInFlightReleasesCostNoHeapEntryEach(t *testing.T) {
	if testing.Short() {
		t.Skip("a million requests")
	}
	for _, c := range inFlightLanes {
		t.Run(c.name, func(t *testing.T) {
			s := parse(t, "title: in flight\nlimiters:\n  - "+c.lane+"\ntraffic:\n"+c.traffic+
				"expect:\n  - {lane: "+c.lane[len("{name: "):strings.Index(c.lane, ",")]+", peak: 2, peak_window: 1ms}\n")
			heap, _ := peakHeap(func() {
				if _, err := Check(s); err != nil {
					t.Fatal(err)
				}
			})
			if heap > 4<<20 {
				t.Errorf("Check's heap grew by %d bytes for 1,000,000 requests in flight", heap)
			}
		})
	}
}

// BenchmarkInFlightMemory reports what a million requests in flight cost
// on each shaper (a burst at 0s into one key; for guava-100-keys, a hundred keys'
// bursts of 10,000 one after the other): the heap the lanes hold once
// every request is decided (B/in-flight: the limiter's state, a leaky
// bucket's queue of 24 bytes a request included, and the peak tracker),
// and the peak tracker's own part (tracker-B/in-flight, as CloneBytes
// counts it).
func BenchmarkInFlightMemory(b *testing.B) {
	const n = 1_000_000
	type lane struct{ name, lane, traffic string }
	cases := []lane{{"leaky-bucket", "{name: shaper, algorithm: leaky-bucket, queue: 1000000000, rate: 1/ms}", oneBurst}}
	for _, c := range inFlightLanes {
		cases = append(cases, lane{c.name, c.lane, c.traffic})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := parse(b, "title: in flight\nlimiters:\n  - "+c.lane+"\ntraffic:\n"+c.traffic)
			defs := LanesOf(s)
			var held uint64
			var tracker int64
			for b.Loop() {
				before := heapInUse()
				ls, err := newLanes(defs, DefaultPeakWindow(defs), nil, s.Duration, nil)
				if err != nil {
					b.Fatal(err)
				}
				var d algorithms.Decision
				var a Attempt
				i := 0
				for r := range s.Requests() {
					ls.arrive(r, i)
					ls.decideInto(0, r, &d, &a)
					i++
				}
				if after := heapInUse(); after > before {
					held = after - before
				}
				tracker = ls.peaks[0].CloneBytes()
				runtime.KeepAlive(ls)
			}
			b.ReportMetric(float64(held)/n, "B/in-flight")
			b.ReportMetric(float64(tracker)/n, "tracker-B/in-flight")
		})
	}
}

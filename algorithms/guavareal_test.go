package algorithms

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// guavaJar is Debian's libguava-java (31.1), which CI installs.
const guavaJar = "/usr/share/java/guava.jar"

// guavaHarness is testdata/guava/RateLimiterHarness.java compiled against
// guava.jar: the directory of its classes, and the java to run it with.
type guavaHarness struct{ java, classes string }

// newGuavaHarness compiles the harness into a temporary directory. Without
// javac, java or guava.jar the test is skipped, except under CI (the
// environment variable CI set), where it fails: CI installs them, and must
// never skip the check silently.
func newGuavaHarness(t *testing.T) guavaHarness {
	t.Helper()
	missing := func(what string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set, and the conformance test against real Guava needs %s", what)
		}
		t.Skipf("no %s: not checked against real Guava", what)
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		missing("javac (a JDK)")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		missing("java (a JDK)")
	}
	if _, err := os.Stat(guavaJar); err != nil {
		missing(guavaJar + " (Debian's libguava-java)")
	}
	classes := t.TempDir()
	src, err := filepath.Abs(filepath.Join("testdata", "guava", "RateLimiterHarness.java"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(javac, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-nowarn", "-d", classes, "-cp", guavaJar, src).CombinedOutput()
	if err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return guavaHarness{java: java, classes: classes}
}

// run starts one JVM, writes input to it (from a goroutine, so that
// neither side blocks on a full pipe) and returns its output's lines.
func (h guavaHarness) run(t *testing.T, input []byte) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.java, "-Xshare:auto", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-cp", h.classes+string(os.PathListSeparator)+guavaJar, "com.google.common.util.concurrent.RateLimiterHarness")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	werr := make(chan error, 1)
	go func() {
		_, err := stdin.Write(input)
		if cerr := stdin.Close(); err == nil {
			err = cerr
		}
		werr <- err
	}()
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the harness: %v", err)
	}
	if err := <-werr; err != nil {
		t.Fatalf("writing to the harness: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the harness: %v\n%s", err, stderr.String())
	}
	return lines
}

// guavaCall is one request of a trace as Guava is asked it and as the
// lane decided it.
type guavaCall struct {
	trace  int
	p      Policy
	key    string
	at     time.Duration
	micros int64 // the key's stopwatch: whole µs since its first request
	cost   int64
	d      Decision
	after  guavaState // the key's state after the decision
}

// guavaTraceRates are rates whose doubles are awkward (3/7s, 3/700ms), fast
// (1000/s, a few ns apart) and slow (1/min, 1/h).
var guavaTraceRates = []Rate{
	{3, 7 * sec}, {1000, sec}, {1, time.Minute}, {1, time.Hour}, {2, sec}, {5, sec}, {7, sec}, {1, sec},
	{3, 700 * ms}, {10, sec}, {100, sec}, {3, 10 * time.Nanosecond},
}

// randGuavaPolicy draws a policy of alg: a rate from guavaTraceRates or
// one drawn (its period with odd nanoseconds), a timeout for tryAcquire
// (left out a third of the time: tryAcquire(permits)), and a warm-up (from
// 1µs, or 1999ns, to a minute, some a few intervals long).
func randGuavaPolicy(r *rand.Rand, alg Algorithm) Policy {
	p := Policy{Algorithm: alg}
	if r.IntN(3) == 0 {
		p.Rate = Rate{1 + r.Int64N(100), time.Duration(1 + r.Int64N(int64(10*sec)))}
	} else {
		p.Rate = guavaTraceRates[r.IntN(len(guavaTraceRates))]
	}
	u := int64(p.Rate.Per) / p.Rate.N
	if alg == GuavaTry && r.IntN(3) != 0 {
		p.Timeout = time.Duration([]int64{1999, 5e6, 5e8, 1e9, 9e10, 1 + r.Int64N(3*u+1)}[r.IntN(6)])
	}
	if alg == GuavaWarmup {
		p.Warmup = time.Duration([]int64{1e3, 1999, 5e8, 1e9, 4e9, 1e10, 6e10, 1e3 + r.Int64N(1e10), max(1e3, u*(1+r.Int64N(20)))}[r.IntN(9)])
	}
	if err := p.Validate(); err != nil {
		panic(err)
	}
	return p
}

// guavaTrace draws n requests over up to three keys, in time order: the
// first at an odd offset, then requests at one instant, gaps around the
// rate's interval u (exact multiples of it, within a µs of it, anywhere up
// to 2u), long idle stretches (beyond what the limiter stores); costs
// mostly 1, sometimes up to a few seconds' permits, a million, or a Java
// int's largest (which saturates next free at slow rates).
func guavaTrace(r *rand.Rand, p Policy, n int, idle time.Duration) []struct {
	key  string
	at   time.Duration
	cost int64
} {
	u := max(1, int64(p.Rate.Per)/p.Rate.N)
	out := make([]struct {
		key  string
		at   time.Duration
		cost int64
	}, n)
	t := r.Int64N(int64(2 * sec))
	keys := 1 + r.IntN(3)
	for i := range out {
		switch k := r.IntN(20); {
		case k < 6: // the same instant
		case k < 10:
			t += r.Int64N(2*u + 1)
		case k < 14:
			t += u * r.Int64N(3)
		case k < 17:
			t += max(0, u+r.Int64N(2001)-1000)
		case k < 18:
			t += int64(idle) + r.Int64N(int64(idle)+1)
		default:
			t += r.Int64N(int64(sec))
		}
		var c int64 = 1
		switch k := r.IntN(100); {
		case k < 70:
		case k < 85:
			c = 2 + r.Int64N(9)
		case k < 96:
			c = 1 + r.Int64N(int64(3*float64(p.Rate.N)/p.Rate.Per.Seconds())+1)
		case k < 99:
			c = 1 + r.Int64N(1e6)
		default:
			c = math.MaxInt32
		}
		out[i].key, out[i].at, out[i].cost = "k"+strconv.Itoa(r.IntN(keys)), time.Duration(t), min(c, math.MaxInt32)
	}
	return out
}

// TestGuavaAgainstRealGuava: the guava lane (acquire), the guava-try lane
// (tryAcquire(permits), and with a timeout) and the guava-warmup lane
// (a SmoothWarmingUp's acquire) make real Guava's decisions, wait for wait in µs, on random traces: one JVM runs
// RateLimiterHarness, which drives Guava's own RateLimiter on a stopwatch
// the test sets to each request's time as the lane reads it (whole µs since
// the key's first request, when the key's RateLimiter is made). Guava's
// storedPermits (bit for bit) and nextFreeTicketMicros after each call are
// compared with the lane's state too.
func TestGuavaAgainstRealGuava(t *testing.T) {
	h := newGuavaHarness(t)
	r := rand.New(rand.NewPCG(22, 31))
	var calls []guavaCall
	var in strings.Builder
	traces := 0
	for _, alg := range []Algorithm{Guava, GuavaTry, GuavaWarmup} {
		for range shortened(200) {
			p := randGuavaPolicy(r, alg)
			calls = appendGuavaTrace(t, &in, calls, traces, p, guavaTrace(r, p, 80, max(2*sec, p.Horizon())))
			traces++
		}
	}
	in.WriteString(guavaRefused)
	start := time.Now()
	got := h.run(t, []byte(in.String()))
	elapsed := time.Since(start)
	if len(got) < len(calls) {
		compareGuava(t, calls, got) // fails, saying why
	}
	compareGuava(t, calls, got[:len(calls)])
	checkGuavaRefused(t, got[len(calls):])
	var n [3]int
	for _, c := range calls {
		n[c.d.Outcome]++
	}
	t.Logf("%d decisions (%d allowed, %d delayed, %d rejected) on %d random traces, each the same as Guava 31.1's (one JVM, %v)",
		len(calls), n[Allowed], n[Delayed], n[Rejected], traces, elapsed.Round(time.Millisecond))
}

// guavaRefused asks Guava what the warm-up lane refuses to model
// (checkGuavaWarmup): a warm-up of 0 (limiter -1), and acquire(2^31 − 1)
// from cold at one permit per two hours, warming up over an hour
// (limiter -2).
const guavaRefused = `W -1 2 0
A -1 0 1
A -1 10000000 1
A -1 10000000 1000
A -1 10000000 1
W -2 1.3888888888888889e-04 3600000000000
A -2 0 2147483647
A -2 1 1
`

// checkGuavaRefused: Guava's answers to guavaRefused show why the
// warm-up lane refuses those policies. With a warm-up of 0, once idle
// Guava stores NaN permits (maxPermits 0, a cool-down of 0 / 0) and never
// makes anyone wait again, whatever they ask. At a rate slower than one
// per 69.8 minutes, the largest acquire's two waits (stored and fresh
// permits) add up past 2^63 µs in a Java long, which wraps: next free goes
// negative, and the next caller is free.
func checkGuavaRefused(t *testing.T, got []string) {
	t.Helper()
	want := []string{
		"0 0 500000", "0 fff8000000000000 10000000", "0 fff8000000000000 10000000", "0 fff8000000000000 10000000",
		"0 0 -9223372031454775809", "0 0 9000000001",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Guava on what the warm-up lane refuses:\n got  %q\n want %q", got, want)
	}
	for _, p := range []Policy{
		{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 999},
		{Algorithm: GuavaWarmup, Rate: Rate{1, 2 * time.Hour}, Warmup: time.Hour},
	} {
		if err := p.Validate(); err == nil {
			t.Errorf("%v is valid; Guava's arithmetic breaks there", p)
		}
	}
}

// appendGuavaTrace decides trace with p's lane, appending the harness's
// commands to in and the calls to calls: a key's limiter is made at its
// first request, whose stopwatch reads 0 then.
func appendGuavaTrace(t *testing.T, in *strings.Builder, calls []guavaCall, trace int, p Policy, reqs []struct {
	key  string
	at   time.Duration
	cost int64
}) []guavaCall {
	l := mustNew(t, p)
	k := l.(*keyed[guavaState])
	g := k.alg.(*guava)
	first := map[string]time.Duration{}
	ids := map[string]int{}
	for _, q := range reqs {
		t0, seen := first[q.key]
		if !seen {
			t0, first[q.key] = q.at, q.at
			ids[q.key] = trace*4 + len(ids)
			pps := strconv.FormatFloat(g.pps, 'g', -1, 64)
			if p.Algorithm == GuavaWarmup {
				fmt.Fprintf(in, "W %d %s %d\n", ids[q.key], pps, int64(p.Warmup))
			} else {
				fmt.Fprintf(in, "B %d %s\n", ids[q.key], pps)
			}
		}
		us := int64(q.at-t0) / 1e3
		switch {
		case p.Algorithm != GuavaTry:
			fmt.Fprintf(in, "A %d %d %d\n", ids[q.key], us, q.cost)
		case p.Timeout == 0:
			fmt.Fprintf(in, "T %d %d %d\n", ids[q.key], us, q.cost)
		default:
			fmt.Fprintf(in, "T %d %d %d %d\n", ids[q.key], us, q.cost, int64(p.Timeout))
		}
		d := l.Decide(q.at, q.key, q.cost)
		calls = append(calls, guavaCall{trace: trace, p: p, key: q.key, at: q.at, micros: us, cost: q.cost, d: d, after: *k.state(q.key)})
	}
	return calls
}

// compareGuava holds each call's decision and state to the harness's line
// for it.
func compareGuava(t *testing.T, calls []guavaCall, got []string) {
	t.Helper()
	if len(got) != len(calls) {
		for _, line := range got {
			if strings.HasPrefix(line, "!") {
				t.Fatalf("the harness failed: %s", line)
			}
		}
		t.Fatalf("the harness answered %d lines for %d calls", len(got), len(calls))
	}
	bad := 0
	for i, c := range calls {
		f := strings.Fields(got[i])
		if len(f) != 3 {
			t.Fatalf("call %d: the harness answered %q", i, got[i])
		}
		bits, err1 := strconv.ParseUint(f[1], 16, 64)
		nextFree, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("call %d: the harness answered %q", i, got[i])
		}
		var why []string
		if f[0] == "-" {
			if c.d.Outcome != Rejected {
				why = append(why, fmt.Sprintf("Guava refused it, the lane %v it", c.d.Outcome))
			}
		} else {
			wait, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				t.Fatalf("call %d: the harness answered %q", i, got[i])
			}
			want := Allowed
			if wait > 0 {
				want = Delayed
			}
			if d := time.Duration(min(wait, (1<<62)/1000)) * time.Microsecond; c.d.Outcome != want || c.d.Delay != d {
				why = append(why, fmt.Sprintf("Guava waited %dµs, the lane: %v, delay %v", wait, c.d.Outcome, c.d.Delay))
			}
		}
		if gs := math.Float64frombits(bits); math.Float64bits(c.after.stored) != bits {
			why = append(why, fmt.Sprintf("stored permits: Guava %v (%#x), the lane %v (%#x)", gs, bits, c.after.stored, math.Float64bits(c.after.stored)))
		}
		if c.after.nextFree != nextFree {
			why = append(why, fmt.Sprintf("next free: Guava %dµs, the lane %dµs", nextFree, c.after.nextFree))
		}
		if len(why) > 0 {
			bad++
			t.Errorf("trace %d, %v, key %s: request at %v (stopwatch %dµs), cost %d: %s\n  lane: %s\n  earlier in the trace:%s",
				c.trace, c.p, c.key, c.at, c.micros, c.cost, strings.Join(why, "; "), c.d.Explain(), guavaHistory(calls[:i], c))
			if bad == 5 {
				t.FailNow()
			}
		}
	}
}

// guavaHistory lists the calls of c's trace and key before it.
func guavaHistory(calls []guavaCall, c guavaCall) string {
	var lines []string
	for _, e := range slices.Backward(calls) {
		if e.trace != c.trace {
			break
		}
		if e.key == c.key {
			lines = append(lines, fmt.Sprintf("\n    %v (%dµs) cost %d: %v %v", e.at, e.micros, e.cost, e.d.Outcome, e.d.Delay))
		}
	}
	slices.Reverse(lines)
	return strings.Join(lines, "")
}

package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// stateFixedPolicies are policies the state round trip runs beside its
// random draws, for what those may miss: both values of each flag
// (starts_empty, timer, nodelay, sub-windows), a timeout or max_wait that
// is not a whole ms, x/time/rate's burst 0, rates whose interval is below a
// nanosecond, windows below the collapsing log's millisecond grid, odd
// rates that divide no second.
var stateFixedPolicies = []Policy{
	{Algorithm: FixedWindow, Limit: 5, Window: 10 * sec},
	{Algorithm: FixedWindow, Limit: 3, Window: 7},
	{Algorithm: SlidingLog, Limit: 5, Window: sec},
	{Algorithm: SlidingLog, Limit: 1, Window: 700 * ms},
	{Algorithm: SlidingLog, Limit: 120, Window: time.Minute},
	{Algorithm: SlidingCounter, Limit: 5, Window: 10 * sec},
	{Algorithm: SlidingCounter, Limit: 5, Window: 10 * sec, SubWindows: 2},
	{Algorithm: SlidingCounter, Limit: 10, Window: time.Minute, SubWindows: 3},
	{Algorithm: SlidingCounter, Limit: 3, Window: 9, SubWindows: 3},
	{Algorithm: TokenBucket, Capacity: 3, Rate: Rate{7, sec}},
	{Algorithm: TokenBucket, Capacity: 2, Rate: Rate{1000, 7}},
	{Algorithm: GCRA, Burst: 3, Rate: Rate{7, sec}},
	{Algorithm: GCRA, Burst: 2, Rate: Rate{1000, 7}},
	{Algorithm: LeakyBucket, Queue: 3, Rate: Rate{7, sec}},
	{Algorithm: LeakyBucket, Queue: 5, Rate: Rate{3, 700 * ms}},
	{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{1000, 7}},
	{Algorithm: IntervalBucket, Capacity: 5, TokensPerFill: 2, FillInterval: 700 * ms, StartsEmpty: true},
	{Algorithm: IntervalBucket, Capacity: 5, TokensPerFill: 2, FillInterval: 700 * ms},
	{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: 7, StartsEmpty: true},
	{Algorithm: EnvoyLocal, MaxTokens: 5, TokensPerFill: 3, FillInterval: 700 * ms, Timer: true},
	{Algorithm: EnvoyLocal, MaxTokens: 5, TokensPerFill: 3, FillInterval: 700 * ms},
	{Algorithm: Guava, Rate: Rate{5, sec}},
	{Algorithm: Guava, Rate: Rate{3, 700 * ms}},
	{Algorithm: GuavaTry, Rate: Rate{7, sec}},
	{Algorithm: GuavaTry, Rate: Rate{1, sec}, Timeout: 1999},
	{Algorithm: GuavaTry, Rate: Rate{100, sec}, Timeout: 5 * ms},
	{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 4 * sec},
	{Algorithm: GuavaWarmup, Rate: Rate{3, 700 * ms}, Warmup: 1999},
	{Algorithm: GuavaWarmup, Rate: Rate{1000, 7}, Warmup: sec},
	{Algorithm: NginxLimitReq, Rate: Rate{30, time.Minute}, Burst: 3},
	{Algorithm: NginxLimitReq, Rate: Rate{7, sec}, Burst: 5, Delay: 2},
	{Algorithm: NginxLimitReq, Rate: Rate{2, sec}, Burst: 4, NoDelay: true},
	{Algorithm: RedisCell, CountPerPeriod: 7, Period: sec},
	{Algorithm: RedisCell, MaxBurst: 4, CountPerPeriod: 3, Period: 2 * sec},
	{Algorithm: RedisRate, Burst: 1, Rate: Rate{3, 700 * ms}},
	{Algorithm: XTimeRate, Burst: 10, Rate: Rate{5, sec}},
	{Algorithm: XTimeRate, Burst: 1, Rate: Rate{7, sec}},
	{Algorithm: XTimeRate, Burst: 0, Rate: Rate{7, sec}},
	{Algorithm: XTimeRate, Burst: 1000, Rate: Rate{333, time.Minute}},
	{Algorithm: XTimeRate, Burst: 3, Rate: Rate{1000000007, sec}},
	{Algorithm: XTimeRateReserve, Burst: 10, Rate: Rate{5, sec}},
	{Algorithm: XTimeRateReserve, Burst: 0, Rate: Rate{5, sec}},
	{Algorithm: XTimeRateReserve, Burst: 1, Rate: Rate{7, sec}, MaxWait: 500 * ms},
	{Algorithm: XTimeRateReserve, Burst: 4, Rate: Rate{3, 700 * ms}, MaxWait: 1999},
	{Algorithm: XTimeRateReserve, Burst: 100, Rate: Rate{333, time.Minute}, MaxWait: 3 * sec},
	{Algorithm: AttemptLog, Limit: 5, Window: 10 * sec},
	{Algorithm: AttemptLog, Limit: 1, Window: 3 * ms},
	{Algorithm: CollapsingLog, Limit: 5, Window: sec},
	{Algorithm: CollapsingLog, Limit: 3, Window: 2500 * time.Microsecond},
	{Algorithm: CollapsingLog, Limit: 4, Window: 300 * time.Microsecond},
	{Algorithm: CollapsingLog, Limit: 2, Window: 7},
	{Algorithm: FloatTokenBucket, Capacity: 1, Rate: Rate{10, sec}},
	{Algorithm: FloatTokenBucket, Capacity: 50, Rate: Rate{3, 700 * ms}},
	{Algorithm: ResettingWindow, Limit: 5, Window: 10 * sec},
	{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{7, sec}},
}

// stateRandomPolicies is how many random policies of each algorithm the
// state round trip draws, beside its fixed ones.
const stateRandomPolicies = 16

// TestStateRoundTrip: for every algorithm with a StateForm, after every
// request of random traffic on several keys, each key's state written as
// whole numbers has the form's shape, reads back (ImportKey) into a fresh
// limiter of the same Keys which writes it again alike and shows every key
// alike (Snapshot, KeyBytes); and that limiter decides the next request, and
// now and then the next many, as the original does (outcome, delay,
// retry-after, why text), its states and snapshots staying alike.
func TestStateRoundTrip(t *testing.T) {
	for ai, a := range Algorithms {
		t.Run(string(a), func(t *testing.T) {
			t.Parallel()
			if !Describe(a).HasStateForm() {
				t.Skipf("%s writes no state as whole numbers", a)
			}
			r := rand.New(rand.NewPCG(uint64(ai), 23))
			var ps []Policy
			for _, p := range stateFixedPolicies {
				if p.Algorithm == a {
					ps = append(ps, p)
				}
			}
			for range shortened(stateRandomPolicies) {
				ps = append(ps, randPolicy(r, a))
			}
			for i, p := range ps {
				if err := stateRoundTrip(r, p, 200); err != nil {
					t.Fatalf("policy %d, %s: %v", i, p, err)
				}
			}
		})
	}
}

// stateIdleTAT are the algorithms whose why text names the TAT in
// "max(TAT x, now y)" even when time has left it behind, while their state
// writes such a TAT as the latest request's time (TestGCRAFamilyIdleTAT):
// their texts are compared with that x left out. What the max comes to is
// in the rest of the text, and x is named whenever it is the max.
var stateIdleTAT = map[Algorithm]bool{GCRA: true, RedisRate: true, RedisCell: true}

var idleTAT = regexp.MustCompile(`max\((TAT|tat) [^,]*, now`)

// stateWhy is d's why text as TestStateRoundTrip compares it.
func stateWhy(p Policy, d Decision) string {
	if stateIdleTAT[p.Algorithm] {
		return idleTAT.ReplaceAllString(d.Explain(), "max($1 _, now")
	}
	return d.Explain()
}

// keyedReq is a request of a trace on several keys.
type keyedReq struct {
	key  int
	at   time.Duration
	cost int64
}

// stateTraffic draws n requests on nkeys keys: gaps from none to past p's
// horizon, now and then a request before the latest one (so often before
// its key's latest), costs mostly 1, some up to MaxCost and some above it.
func stateTraffic(r *rand.Rand, p Policy, nkeys, n int) []keyedReq {
	u := int64(unit(p))
	h := max(int64(p.Horizon()), 1)
	out := make([]keyedReq, n)
	var t int64
	for i := range out {
		switch k := r.IntN(16); {
		case k < 4: // the same instant
		case k < 9:
			t += r.Int64N(2*u + 1)
		case k < 12:
			t += u * r.Int64N(4) // on the pace's thresholds
		case k < 14:
			t += r.Int64N(h + 1)
		case k < 15:
			t += h + r.Int64N(h+1) // past the horizon
		default:
			t += r.Int64N(u/8 + 2)
		}
		at := t
		if r.IntN(8) == 0 {
			at = max(0, t-r.Int64N(min(h, 4*u)+1)) // late
		}
		cost := int64(1)
		switch r.IntN(12) {
		case 0, 1, 2:
			cost = 1 + r.Int64N(max(p.MaxCost(), 1))
		case 3:
			cost = p.MaxCost() + 1 + r.Int64N(3)
		}
		out[i] = keyedReq{r.IntN(nkeys), time.Duration(at), cost}
	}
	return out
}

// stateRoundTrip runs n requests of random traffic on a limiter of p and,
// before each, checks the limiter's states read back into another as
// TestStateRoundTrip says.
func stateRoundTrip(r *rand.Rand, p Policy, n int) error {
	ks := NewKeys()
	keys := []Key{ks.Key("a"), ks.Key("b"), ks.Key("c"), ks.Key("d")}
	orig, err := NewWithKeys(p, ks)
	if err != nil {
		return err
	}
	trace := stateTraffic(r, p, len(keys), n)
	latest := make([]time.Duration, len(keys)) // each key's latest request
	for i := range trace {
		cp, err := importStates(p, ks, keys, orig)
		if err != nil {
			return fmt.Errorf("before request %d: %v", i, err)
		}
		for j, k := range keys {
			at := latest[j]
			if got, want := cp.KeyBytes(at, k), orig.KeyBytes(at, k); got != want {
				st, _ := orig.(StateCodec).ExportKey(k)
				return fmt.Errorf("before request %d: key %s (%v) read back holds %d bytes at %v, the original %d", i, k, st, got, at, want)
			}
			if err := sameSnapshots(orig, cp, k, at, at+time.Duration(r.Int64N(int64(p.Horizon())+2))); err != nil {
				return fmt.Errorf("before request %d: %v", i, err)
			}
		}
		// The read-back decides the next request, and now and then the
		// next many, as the original (a clone of it) does.
		twin := orig.Clone()
		seen := slices.Clone(latest)
		m := 1
		if i%8 == 0 {
			m = 30
		}
		for j, q := range trace[i:min(len(trace), i+m)] {
			k := keys[q.key]
			want := twin.DecideKey(q.at, k, q.cost)
			got := cp.DecideKey(q.at, k, q.cost)
			if got.Outcome != want.Outcome || got.Delay != want.Delay || got.RetryAfter != want.RetryAfter || stateWhy(p, got) != stateWhy(p, want) {
				return fmt.Errorf("request %d (at %s, key %s, cost %d), %d after the states were read back:\n read back %s delay %v retry %v: %s\n original  %s delay %v retry %v: %s",
					i+j, FormatSeconds(q.at), k, q.cost, j, got.Outcome, got.Delay, got.RetryAfter, got.Explain(), want.Outcome, want.Delay, want.RetryAfter, want.Explain())
			}
			seen[q.key] = max(seen[q.key], q.at)
			a, _ := twin.(StateCodec).ExportKey(k)
			b, _ := cp.(StateCodec).ExportKey(k)
			if !reflect.DeepEqual(a, b) {
				return fmt.Errorf("request %d, %d after the states were read back: key %s's state %v, the original's %v", i+j, j, k, b, a)
			}
			if err := sameSnapshots(twin, cp, k, seen[q.key]); err != nil {
				return fmt.Errorf("request %d, %d after the states were read back: %v", i+j, j, err)
			}
		}
		q := trace[i]
		orig.DecideKey(q.at, keys[q.key], q.cost)
		latest[q.key] = max(latest[q.key], q.at)
	}
	return nil
}

// importStates is a new limiter of p and ks holding every state of keys in
// src, each checked to have its form's shape and to be written back alike;
// a key without a state in src has none in it.
func importStates(p Policy, ks *Keys, keys []Key, src Limiter) (Limiter, error) {
	dst, err := NewWithKeys(p, ks)
	if err != nil {
		return nil, err
	}
	form := p.StateForm()
	for _, k := range keys {
		st, ok := src.(StateCodec).ExportKey(k)
		if !ok {
			if st, ok := dst.(StateCodec).ExportKey(k); ok {
				return nil, fmt.Errorf("key %s has no state, but %v read back", k, st)
			}
			continue
		}
		if err := form.checkShape(st); err != nil {
			return nil, fmt.Errorf("key %s: state %v: %v", k, st, err)
		}
		if err := dst.(StateCodec).ImportKey(k, st); err != nil {
			return nil, fmt.Errorf("key %s: the limiter's own state %v refused: %v", k, st, err)
		}
		if again, ok := dst.(StateCodec).ExportKey(k); !ok || !reflect.DeepEqual(again, st) {
			return nil, fmt.Errorf("key %s: state %v read back and written again %v", k, st, again)
		}
	}
	return dst, nil
}

// sameSnapshots says how b shows key k at the times ats (each at or after
// its latest request) unlike a, if it does.
func sameSnapshots(a, b Limiter, k Key, ats ...time.Duration) error {
	for _, at := range ats {
		if sa, sb := stateSnapshot(a.Snapshot(at, k.String())), stateSnapshot(b.Snapshot(at, k.String())); !reflect.DeepEqual(sa, sb) {
			st, _ := a.(StateCodec).ExportKey(k)
			return fmt.Errorf("key %s (%v) at %v shown as\n %+v\n by the read-back, the original\n %+v", k, st, at, sb, sa)
		}
	}
	return nil
}

// stateSnapshot is s with what a state read back does not keep (the
// whole-token bucket's count of what it dropped) cleared.
func stateSnapshot(s Snapshot) Snapshot {
	if w, ok := s.(WholeTokenBucketSnapshot); ok {
		w.Lost = Quantity{}
		return w
	}
	return s
}

// importState is a fresh limiter of p given st as key "k"'s state, with
// ImportKey's error.
func importState(tb testing.TB, p Policy, st State) (StateCodec, Key, error) {
	tb.Helper()
	ks := NewKeys()
	l, err := NewWithKeys(p, ks)
	if err != nil {
		tb.Fatal(err)
	}
	k := ks.Key("k")
	return l.(StateCodec), k, l.(StateCodec).ImportKey(k, st)
}

// checkImport checks that ImportKey refuses st with an error saying want,
// or for want "" accepts it.
func checkImport(t *testing.T, p Policy, st State, want string) {
	t.Helper()
	_, _, err := importState(t, p, st)
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: state %v refused: %v", p, st, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: state %v: error %v, want one saying %q", p, st, err, want)
	}
}

// sameState reports whether a and b are the same numbers (nil and empty
// alike).
func sameState(a, b State) bool {
	return slices.Equal(a.Fields, b.Fields) && slices.Equal(a.Log, b.Log)
}

package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// stackPolicies are policing policies of several algorithms.
var stackPolicies = []Policy{
	{Algorithm: TokenBucket, Capacity: 5, Rate: Rate{N: 2, Per: time.Second}},
	{Algorithm: FixedWindow, Limit: 4, Window: time.Second},
	{Algorithm: SlidingLog, Limit: 3, Window: 2 * time.Second},
	{Algorithm: GCRA, Burst: 3, Rate: Rate{N: 3, Per: time.Second}},
	{Algorithm: SlidingCounter, Limit: 6, Window: time.Second},
	// States that hold items or tables, which a stack saves and puts back
	// by copies (not an attempt log: a stack puts back the attempt a
	// layer refused, which the log alone keeps).
	{Algorithm: SlidingCounter, Limit: 5, Window: time.Second, SubWindows: 4},
	{Algorithm: CollapsingLog, Limit: 3, Window: time.Second},
}

// plainPolicies are those of stackPolicies whose states are plain values,
// which a stack records as they are (stack.copied).
var plainPolicies = []Policy{stackPolicies[0], stackPolicies[1], stackPolicies[3], stackPolicies[4]}

// trace is a random run of requests over a few keys.
type traced struct {
	at   time.Duration
	key  string
	cost int64
}

func stackTrace(seed uint64, n int) []traced {
	rng := rand.New(rand.NewPCG(seed, 1))
	var at time.Duration
	out := make([]traced, n)
	for i := range out {
		at += time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
		out[i] = traced{at, string(rune('a' + rng.IntN(3))), 1 + rng.Int64N(2)}
	}
	return out
}

func mustStack(t *testing.T, layers ...Layer) Limiter {
	t.Helper()
	s, err := NewStack(layers, NewKeys())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A stack of one policy per key decides as that policy alone, and so does
// a stack whose other policy never refuses.
func TestStackOfOnePolicyIsThatPolicy(t *testing.T) {
	roomy := Policy{Algorithm: FixedWindow, Limit: 1000, Window: time.Second}
	for _, p := range stackPolicies {
		alone := mustNew(t, p)
		one := mustStack(t, Layer{Name: "only", Policy: p})
		two := mustStack(t, Layer{Name: "it", Policy: p}, Layer{Name: "roomy", Policy: roomy, AllKeys: true})
		for i, r := range stackTrace(uint64(len(p.Algorithm)), 400) {
			want := alone.Decide(r.at, r.key, r.cost)
			for _, s := range []Limiter{one, two} {
				got := s.Decide(r.at, r.key, r.cost)
				if got.Outcome != want.Outcome || got.RetryAfter != want.RetryAfter || got.Delay != want.Delay {
					t.Fatalf("%s request %d: stack %+v, alone %+v", p.Algorithm, i, got, want)
				}
			}
		}
	}
}

// A layer over all keys decides as the policy with every request on one key.
func TestStackOverAllKeysIsOneKey(t *testing.T) {
	for _, p := range stackPolicies {
		alone := mustNew(t, p)
		all := mustStack(t, Layer{Name: "all", Policy: p, AllKeys: true})
		for i, r := range stackTrace(7, 300) {
			want := alone.Decide(r.at, "one", r.cost)
			if got := all.Decide(r.at, r.key, r.cost); got.Outcome != want.Outcome || got.RetryAfter != want.RetryAfter {
				t.Fatalf("%s request %d: %+v, one key %+v", p.Algorithm, i, got, want)
			}
		}
	}
}

// A request is admitted only if every layer admits it; it is then spent
// in each, and a refused one leaves every layer as it was: each layer's
// state follows a lone limiter of its policy fed only the admitted
// requests. Stacks of 2, 3 and 4 layers, each policy in each place,
// every other layer over all keys, of stackPolicies and of plainPolicies
// alone (which decide on a path of their own: see DecideInto): a refusal
// by any one of them alone is the stack's.
func TestStackSpendsOnlyWhatAllAdmit(t *testing.T) {
	for n := 2; n <= MaxLayers; n++ {
		var soleRefusals [MaxLayers]int // by place, over all the stacks of n
		for seed := range len(stackPolicies) + len(plainPolicies) {
			set, i := stackPolicies, seed
			if i >= len(stackPolicies) {
				set, i = plainPolicies, i-len(stackPolicies)
			}
			layers := make([]Layer, n)
			alone := make([]Limiter, n)
			names := ""
			for j := range layers {
				p := set[(i+j)%len(set)]
				layers[j] = Layer{Name: fmt.Sprintf("layer-%d", j), Policy: p, AllKeys: j%2 == 1}
				alone[j] = mustNew(t, p)
				names += " " + string(p.Algorithm)
			}
			s := mustStack(t, layers...)
			refused := make([]int, n) // requests refused by layer j alone
			for k, r := range stackTrace(uint64(i+3+10*n), 500) {
				keyOf := func(j int) string {
					if layers[j].AllKeys {
						return "all"
					}
					return r.key
				}
				// What each layer alone would say now, on clones.
				var want time.Duration
				var refusers []string
				only := 0
				for j, l := range alone {
					if w := l.Clone().Decide(r.at, keyOf(j), r.cost); !w.Outcome.Admitted() {
						refusers, only, want = append(refusers, layers[j].Name), j, max(want, refusal(w))
					}
				}
				all := len(refusers) == 0
				d := s.Decide(r.at, r.key, r.cost)
				if d.Outcome.Admitted() != all {
					t.Fatalf("%s request %d: %s, all layers admit: %v", names, k, d.Outcome, all)
				}
				if all {
					for j, l := range alone {
						l.Decide(r.at, keyOf(j), r.cost)
					}
					continue
				}
				if len(refusers) == 1 {
					refused[only]++
				}
				if named := "refused by " + strings.Join(refusers, " and ") + ":"; want != Never && !strings.Contains(d.Explain(), named) {
					t.Fatalf("%s request %d: %q does not say %q", names, k, d.Explain(), named)
				}
				if d.RetryAfter != want {
					t.Fatalf("%s request %d: retry after %v, want %v", names, k, d.RetryAfter, want)
				}
			}
			for j, c := range refused {
				soleRefusals[j] += c
			}
		}
		for j, c := range soleRefusals[:n] {
			if c == 0 {
				t.Errorf("stacks of %d: the layer in place %d never refused a request alone", n, j)
			}
		}
	}
}

func refusal(d Decision) time.Duration {
	if d.Outcome == Rejected {
		return d.RetryAfter
	}
	return 0
}

func TestStackCloneIsIndependent(t *testing.T) {
	s := mustStack(t, Layer{Name: "a", Policy: stackPolicies[0]}, Layer{Name: "b", Policy: stackPolicies[1], AllKeys: true})
	s.Decide(0, "k", 1)
	c := s.Clone()
	for range 10 {
		s.Decide(0, "k", 1)
	}
	if d := c.Decide(0, "k", 1); !d.Outcome.Admitted() {
		t.Errorf("the clone saw its original's requests: %s", d.Explain())
	}
	// Its layers gather their words in its own buffer, each where the
	// original's gathers in the original's.
	orig, clone := s.(*stack), c.(*stack)
	for i := range orig.layers {
		at := func(st *stack) uintptr {
			return uintptr(unsafe.Pointer(st.numsOf[i])) - uintptr(unsafe.Pointer(&st.nums))
		}
		if at(orig) != at(clone) || at(clone) >= unsafe.Sizeof(clone.nums) {
			t.Errorf("layer %d: the clone gathers its words at byte %d of its buffer (a pointer outside it, if beyond %d), the original at %d", i, int64(at(clone)), unsafe.Sizeof(clone.nums), at(orig))
		}
	}
}

func TestStackRefusesShapers(t *testing.T) {
	_, err := NewStack([]Layer{{Name: "q", Policy: Policy{Algorithm: LeakyBucket, Queue: 3, Rate: Rate{N: 1, Per: time.Second}}}}, NewKeys())
	if err == nil || !strings.Contains(err.Error(), "delays") {
		t.Errorf("a leaky bucket in a stack: %v", err)
	}
}

// A stack of nginx zones may delay, as nginx's several limit_req in one
// location do (ngx_http_limit_req_account): every zone accounts an admitted
// request at its arrival, the request waits the longest of the zones'
// delays (the last zone's on a tie), and a refusal by any zone leaves
// every zone as it was. A mixed stack still refuses a delaying layer. The
// numbers are worked by hand from nginx's arithmetic.
func TestStackOfNginxZonesDelays(t *testing.T) {
	a := Layer{Name: "a", Policy: nginxPolicy(Rate{2, sec}, 5, 0, false)}
	b := Layer{Name: "b", Policy: nginxPolicy(Rate{1, sec}, 3, 1, false)}
	s := mustStack(t, a, b)
	ms := time.Millisecond
	steps := []struct {
		at      time.Duration
		want    Outcome
		delay   time.Duration // for Delayed
		retry   time.Duration // for Rejected
		by      string        // the layer whose decision it is
		explain string        // part of its explanation
	}{
		// a: excess 0; b: 0.
		{0, Allowed, 0, 0, "a", " ⇒ every policy admits: spent in all"},
		// a: 1.000 → 500 ms; b: 1.000 ≤ delay 1 → at once.
		{0, Delayed, 500 * ms, 0, "a", "it waits 0.5s, the longest of their delays (a's)"},
		// a: 2.000 → 1000 ms; b: 2.000 → 1000 ms: a tie, b named.
		{0, Delayed, 1000 * ms, 0, "b", "it waits 1s, the longest of their delays (b's)"},
		// a: 3.000 → 1500 ms; b: 3.000 → 2000 ms.
		{0, Delayed, 2000 * ms, 0, "b", "(b's)"},
		// b: 4.000 > burst 3: refused; a keeps 3.000.
		{0, Rejected, 0, 1000 * ms, "b", "refused by b"},
		// a: 3.000 − 2.000 + 1 = 2.000 → 1000 ms; b: 3.000 − 1.000 + 1 = 3.000 → 2000 ms.
		{1000 * ms, Delayed, 2000 * ms, 0, "b", "(b's)"},
	}
	for i, st := range steps {
		d := s.Decide(st.at, "k", 1)
		if d.Outcome != st.want || d.Delay != st.delay || d.RetryAfter != st.retry {
			t.Fatalf("request %d at %v: %v delay %v retry %v; want %v delay %v retry %v\n%s",
				i+1, st.at, d.Outcome, d.Delay, d.RetryAfter, st.want, st.delay, st.retry, d.Explain())
		}
		if want := []Layer{a, b}[map[string]int{"a": 0, "b": 1}[st.by]].Policy; d.Policy() != want {
			t.Errorf("request %d: decided by %v, want %s's", i+1, d.Policy(), st.by)
		}
		if !strings.Contains(d.Explain(), st.explain) {
			t.Errorf("request %d: explanation %q lacks %q", i+1, d.Explain(), st.explain)
		}
	}
	if _, err := NewStack([]Layer{a, {Name: "w", Policy: Policy{Algorithm: FixedWindow, Limit: 3, Window: sec}}}, NewKeys()); err == nil {
		t.Error("a delaying nginx zone stacked with a fixed window was accepted")
	}
	nodelay := Layer{Name: "n", Policy: nginxPolicy(Rate{1, sec}, 3, 0, true)}
	if _, err := NewStack([]Layer{nodelay, {Name: "w", Policy: Policy{Algorithm: FixedWindow, Limit: 3, Window: sec}}}, NewKeys()); err != nil {
		t.Errorf("nginx with nodelay stacked with a fixed window: %v", err)
	}
}

// layersExplain is what a stack's decision must say, from its layers' own
// decisions ws of the request (each by a lone limiter of the layer's
// policy): every layer's words after its name and scope, those that
// admitted a refused request marked, then who refused.
func layersExplain(layers []Layer, ws []Decision, retry time.Duration) string {
	var parts, refusers []string
	for i, w := range ws {
		if w.Outcome == Rejected {
			refusers = append(refusers, layers[i].Name)
		}
	}
	for i, w := range ws {
		part := layers[i].Name + " (" + layers[i].Scope() + "): " + w.Explain()
		if w.Outcome != Rejected && len(refusers) > 0 {
			part += " (had all admitted)"
		}
		parts = append(parts, part)
	}
	out := strings.Join(parts, "; ")
	switch {
	case len(refusers) == 0:
		return out + " ⇒ every policy admits: spent in all"
	case len(refusers) == 1:
		return out + " ⇒ refused by " + refusers[0] + ": no policy spends it"
	}
	return out + " ⇒ refused by " + strings.Join(refusers, " and ") + ": no policy spends it; retry after " + FormatSeconds(retry) + ", the longest of their waits"
}

// logLayers are layers whose states hold logs and tables (a sliding log,
// a sliding counter in sub-windows, a collapsing log and an attempt log
// over all keys), beside a fixed window.
var logLayers = []Layer{
	{Name: "log", Policy: stackPolicies[2]},
	{Name: "subs", Policy: Policy{Algorithm: SlidingCounter, Limit: 4, Window: sec, SubWindows: 4}},
	{Name: "collapse", Policy: Policy{Algorithm: CollapsingLog, Limit: 5, Window: sec}, AllKeys: true},
	{Name: "total", Policy: stackPolicies[1], AllKeys: true},
	{Name: "attempts", Policy: Policy{Algorithm: AttemptLog, Limit: 9, Window: 2 * sec}, AllKeys: true},
}

// A stack's decision says what its layers' own limiters say of the
// request, each fed only the requests the stack admitted, word for word,
// and so do its outcome, wait and policy; asked long after, when every
// layer has moved on. Records that fit in their decisions and records
// kept in chunks (a float's bits take 8 bytes) are both checked.
func TestStackExplanationIsItsLayers(t *testing.T) {
	xrate := Policy{Algorithm: XTimeRate, Burst: 3, Rate: Rate{N: 7, Per: sec}}
	for _, layers := range [][]Layer{
		{{Name: "bucket", Policy: stackPolicies[0]}, {Name: "total", Policy: stackPolicies[1], AllKeys: true}},
		{{Name: "bucket", Policy: stackPolicies[0]}, {Name: "all", Policy: stackPolicies[0], AllKeys: true}},
		benchLayers,
		{benchLayers[0], benchLayers[2], benchLayers[1]}, // 7 numbers, in fields of equal width
		logLayers[:2], logLayers[1:4], {logLayers[0], logLayers[4]},
		{{Name: "x", Policy: xrate}, {Name: "all-x", Policy: xrate, AllKeys: true}, {Name: "gcra", Policy: stackPolicies[3]}, {Name: "log", Policy: stackPolicies[2], AllKeys: true}},
	} {
		s := mustStack(t, layers...)
		info := s.(*stack).info
		lone := make([]Limiter, len(layers))
		for i, l := range layers {
			lone[i] = mustNew(t, l.Policy)
		}
		var ds []Decision
		var want []string
		// How the records were kept: in v as they are, laid out in fields, written
		// in the decision, in a chunk.
		forms := map[uintptr]string{
			reflect.ValueOf(info.raw).Pointer():    "raw",
			reflect.ValueOf(info.inline).Pointer(): "inline",
		}
		kept, byCode := map[string]int{}, map[uintptr]int{}
		for j, r := range stackTrace(5, 600) {
			ws := make([]Decision, len(layers))
			all, wait := true, time.Duration(0)
			for i, l := range layers {
				key := r.key
				if l.AllKeys {
					key = AllKeysKey
				}
				ws[i] = lone[i].Clone().Decide(r.at, key, r.cost)
				if ws[i].Outcome == Rejected {
					all, wait = false, max(wait, ws[i].RetryAfter)
				}
			}
			d := s.Decide(r.at, r.key, r.cost)
			if all {
				for i, l := range layers {
					key := r.key
					if l.AllKeys {
						key = AllKeysKey
					}
					lone[i].Decide(r.at, key, r.cost)
				}
			}
			text := layersExplain(layers, ws, wait)
			if wait == Never {
				for _, w := range ws {
					if w.RetryAfter == Never {
						text = w.Explain()
						break
					}
				}
			} else {
				byCode[reflect.ValueOf(d.explain).Pointer()]++
			}
			if d.Outcome.Admitted() != all || (!all && d.RetryAfter != wait) {
				t.Fatalf("%d layers, request %d: %s after %v; its layers: admitted %v, wait %v", len(layers), j, d.Outcome, d.RetryAfter, all, wait)
			}
			ds, want = append(ds, d), append(want, text)
		}
		for j, d := range ds {
			if got := d.Explain(); got != want[j] {
				t.Fatalf("%d layers (%s …), decision %d:\n%s\nits layers say:\n%s", len(layers), layers[0].Name, j, got, want[j])
			}
		}
		if info.fixed != nil && s.(*stack).recs.layout != nil {
			t.Errorf("%d numbers a record, which have their equal-width layout, learned another", info.nums)
		}
		for _, l := range []*stackLayout{info.fixed, s.(*stack).recs.layout} {
			if l != nil {
				forms[reflect.ValueOf(l.explain).Pointer()] = "laid out" // every layout's code is the same
			}
		}
		for code, n := range byCode {
			form, ok := forms[code]
			if !ok {
				form = "chunk"
			}
			kept[form] += n
		}
		t.Logf("%d layers (%s …): records kept %v", len(layers), layers[0].Name, kept)
		if layers[0].Policy == xrate && kept["chunk"] == 0 {
			t.Errorf("x/time/rate's floats: no record kept in a chunk")
		}
		if want := map[int]string{4: "raw", 7: "laid out", 10: "laid out"}[info.nums]; want != "" && kept[want] == 0 {
			t.Errorf("%d numbers a record: none kept %s", info.nums, want)
		}
	}
}

// A stack's decision explains itself the same however long after it is
// asked, its layers' states having moved on (logs and tables of counts
// among them, saved and put back around every refusal); and the stack's
// memory stays what its layers hold.
func TestStackExplainsLater(t *testing.T) {
	sub := Policy{Algorithm: SlidingCounter, Limit: 5, Window: time.Second, SubWindows: 4}
	for _, layers := range [][]Layer{
		{{Name: "log", Policy: stackPolicies[2]}, {Name: "total", Policy: stackPolicies[1], AllKeys: true}},
		{{Name: "bucket", Policy: stackPolicies[0]}, {Name: "log", Policy: stackPolicies[2], AllKeys: true},
			{Name: "sub", Policy: sub}, {Name: "gcra", Policy: stackPolicies[3], AllKeys: true}},
	} {
		s := mustStack(t, layers...)
		var ds []Decision
		var now []string
		for _, r := range stackTrace(11, 600) {
			d := s.Decide(r.at, r.key, r.cost)
			ds = append(ds, d)
			now = append(now, d.Explain())
		}
		for i, d := range ds {
			if got := d.Explain(); got != now[i] {
				t.Fatalf("%d layers, decision %d explained later:\n%s\nright away:\n%s", len(layers), i, got, now[i])
			}
		}
		if m := s.Memory(); m.State <= 0 || m.Dropped != 0 {
			t.Errorf("%d layers: memory %+v", len(layers), m)
		}
	}
}

// putBackLayers are a stack whose last layer refuses most requests, so
// that the logs before it are put back again and again.
var putBackLayers = []Layer{
	{Name: "log", Policy: Policy{Algorithm: SlidingLog, Limit: 900, Window: 10 * time.Second}},
	{Name: "members", Policy: Policy{Algorithm: CollapsingLog, Limit: 900, Window: 10 * time.Second}},
	{Name: "bucket", Policy: Policy{Algorithm: TokenBucket, Capacity: 3, Rate: Rate{N: 40, Per: time.Second}}},
}

// TestStackPutBackLeavesLogsAsTheyWere: a stack putting its logs back
// again and again, with clones taken of it at random (as the lab's
// checkpoints are) and deciding on: every clone and the original decide
// exactly as a fresh stack fed the same requests. A put-back that cut off
// items another view sees would show here.
func TestStackPutBackLeavesLogsAsTheyWere(t *testing.T) {
	type line struct {
		s    Limiter
		hist []traced
	}
	rng := rand.New(rand.NewPCG(5, 5))
	lines := []*line{{s: mustStack(t, putBackLayers...)}}
	var at time.Duration
	n := shortened(6000)
	for i := range n {
		if i > 0 && rng.IntN(400) == 0 && len(lines) < 6 {
			x := lines[rng.IntN(len(lines))]
			lines = append(lines, &line{s: x.s.Clone(), hist: append([]traced(nil), x.hist...)})
		}
		at += time.Duration(rng.Int64N(int64(8 * time.Millisecond)))
		q := traced{at, string(rune('a' + rng.IntN(2))), 1}
		for _, l := range lines {
			l.hist = append(l.hist, q)
			got := l.s.Decide(q.at, q.key, q.cost)
			if i%50 != 0 && i != n-1 {
				continue
			}
			ref := mustStack(t, putBackLayers...)
			var want Decision
			for _, h := range l.hist {
				want = ref.Decide(h.at, h.key, h.cost)
			}
			if got.Outcome != want.Outcome || got.Explain() != want.Explain() {
				t.Fatalf("request %d: %s\nwant %s", len(l.hist), got.Explain(), want.Explain())
			}
		}
	}
}

// TestStackPutBackCountsNothingLetGo: what a stack lets go of that its
// clone shares is counted once, never more than the clone holds, however
// often its logs are put back. Each put-back counting the logs' full
// chunks as let go again (though the state holds them again) left the
// lab's checkpoints no budget.
func TestStackPutBackCountsNothingLetGo(t *testing.T) {
	s := mustStack(t, putBackLayers...)
	trace := stackTrace(9, 2*shortened(4000))
	for i := range trace {
		trace[i].at /= 40 // 7.5 ms apart on average: logs of hundreds
		trace[i].cost = 1
	}
	half := len(trace) / 2
	for _, q := range trace[:half] {
		s.Decide(q.at, q.key, q.cost)
	}
	c := s.Clone()
	for _, q := range trace[half:] {
		s.Decide(q.at, q.key, q.cost)
	}
	if d, held := s.Memory().Dropped, c.Memory().State; d > held {
		t.Errorf("the stack counts %d bytes let go of that its clone shares; the clone holds %d", d, held)
	}
}

// TestCopiedPathDecidesAsTheGeneralLoop: a stack whose layers are all
// copied decides on a path of its own; the general loop (decideSaving),
// on a clone, decides every request alike: outcome, wait, the refusing
// layer's policy and the explanation.
func TestCopiedPathDecidesAsTheGeneralLoop(t *testing.T) {
	for i, p := range plainPolicies {
		q := plainPolicies[(i+1)%len(plainPolicies)]
		a := mustStack(t, Layer{Name: "per-key", Policy: p}, Layer{Name: "total", Policy: q, AllKeys: true}).(*stack)
		b := a.Clone().(*stack)
		if a.copied != a.info.all {
			t.Fatalf("%s+%s: not all copied", p.Algorithm, q.Algorithm)
		}
		for j, r := range stackTrace(uint64(i+7), 500) {
			var da, db Decision
			a.DecideInto(&da, r.at, a.ids.Key(r.key), r.cost)
			b.decideSaving(&db, r.at, b.ids.Key(r.key), r.cost)
			if da.Outcome != db.Outcome || da.RetryAfter != db.RetryAfter || da.Policy() != db.Policy() || da.Explain() != db.Explain() {
				t.Fatalf("%s+%s request %d: %v %v %q, general loop %v %v %q", p.Algorithm, q.Algorithm, j, da.Outcome, da.RetryAfter, da.Explain(), db.Outcome, db.RetryAfter, db.Explain())
			}
		}
	}
}

package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"ratelab/algorithms"
)

// FuzzParse feeds the loader arbitrary bytes. Without -fuzz it runs the seed
// corpus: the canned lessons, the test files and some broken snippets.
func FuzzParse(f *testing.F) {
	for _, info := range List() {
		data, _ := Source(info.Name)
		f.Add(data)
	}
	files, _ := filepath.Glob("testdata/*/*.yaml")
	more, _ := filepath.Glob("testdata/*.yaml")
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"", "\x00", "\xff", ":", "- -", "{", "[", "title:", "title: |", "&a a: *a", "? a\n: b",
		oneLane,
		oneLane + "traffic:\n  - {at: 1s, count: 3, spread: 1s}\n  - {every: 1s, until: 4s}\nexpect:\n  - {lane: b, at: 1s, outcome: allowed}\n",
		oneLane + "traffic: [{at: 8784h}]\n",
		oneLane + "traffic: [{at: 0s, count: 20000000, spread: 8784h}]\n",
		oneLane + "traffic: [{every: 1ns, until: 20ms}]\n",
		oneLane + "duration: 1ns\n",
		oneLane + "notes: [{at: 0s, text: \"\\u2028\"}]\n",
		oneLane + "traffic: [{at: 1s, count: 2, key: k}]\nquiz: [{at: 1s, request: 2, key: k, lane: b, ask: a, why: w}, {at: 0s}]\n",
		"title: t\nlimiters:\n  - {name: b, algorithm: leaky-bucket, queue: 1099511627776, rate: 1/1ns}\ntraffic: [{at: 0s, cost: 1099511627777}]\n",
		"title: t\nlimiters: [{name: a, algorithm: sliding-counter, limit: 1, window: 8784h}]\n",
		"title: t\nlimiters: [{name: a, algorithm: gcra, burst: 1, rate: 2147483648/1ns}]\n",
		"title: t\nlimiters:\n" + strings.Repeat("  - {name: a, algorithm: gcra, burst: 1, rate: 1/s}\n", 9),
		"title: \"\\t\"\nlimiters: []\n",
		"title: t\n" + strings.Repeat("- ", 90) + "x\n",
		"title: [" + strings.Repeat("[", 20) + "\n",
		oneLane + "seed: 4\ntraffic: [{poisson: 1/h, until: 1ms}, {poisson: 20/s, on: 1s, off: 2s, until: 9s, accounts: 3}]\n",
		oneLane + "seed: 9\ntraffic: [{every: 500ms, until: 5s, accounts: 5, stagger: random}, {every: 1s, until: 3s, keys: [a, b], stagger: even}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if s != nil {
				t.Fatal("Parse returned a scenario beside an error")
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "fuzz.yaml") {
				t.Fatalf("error %q is not one line naming the file", msg)
			}
			return
		}
		checkInvariants(t, s)
		out, err := Marshal(s, nil)
		if err != nil {
			t.Fatalf("Marshal of a parsed scenario: %v", err)
		}
		back, err := Parse("fuzz.yaml", out)
		if err != nil {
			t.Fatalf("the saved scenario does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(normalise(back), normalise(s)) {
			t.Fatalf("round trip changed the scenario\n got: %+v\nwant: %+v", normalise(back), normalise(s))
		}
	})
}

// checkInvariants checks, independently of the decoder, what every parsed
// scenario guarantees.
func checkInvariants(t *testing.T, s *Scenario) {
	t.Helper()
	oneLine := func(x string) bool {
		return strings.TrimSpace(x) != "" && strings.IndexFunc(x, unicode.IsControl) < 0 && !strings.ContainsAny(x, "\u2028\u2029\ufeff\ufffe\uffff")
	}
	if !oneLine(s.Title) {
		t.Errorf("title %q", s.Title)
	}
	if s.Step <= 0 || s.Step > MaxTime || s.Duration <= 0 || s.Duration > MaxTime {
		t.Errorf("step %v, duration %v", s.Step, s.Duration)
	}
	if len(s.Lanes) < 1 || len(s.Lanes) > MaxLanes {
		t.Fatalf("%d lanes", len(s.Lanes))
	}
	minCost := int64(1 << 62)
	for i, l := range s.Lanes {
		if l.Name == "" || strings.Trim(l.Name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			t.Errorf("lane name %q", l.Name)
		}
		if _, ok := s.Lane(l.Name); !ok || slices.IndexFunc(s.Lanes, func(o Lane) bool { return o.Name == l.Name }) != i {
			t.Errorf("lane name %q is not unique", l.Name)
		}
		if err := l.Policy.Validate(); err != nil {
			t.Errorf("lane %s: %v", l.Name, err)
		}
		minCost = min(minCost, l.Policy.MaxCost())
		for _, p := range l.Policies() {
			if p.Rate.Per > MaxTime {
				t.Errorf("lane %s: rate %v, whose D is past %v", l.Name, p.Rate, MaxTime)
			}
		}
	}
	var total, decisions int64
	for i, tr := range s.Traffic {
		// A poisson item may draw no request; every other item has one.
		if (tr.Count < 1 && tr.Form != Poisson) || tr.Count < 0 || tr.Cost < 1 || tr.Cost > minCost || tr.Key == "" || strings.IndexFunc(tr.Key, unicode.IsControl) >= 0 {
			t.Errorf("traffic[%d] %+v", i, tr)
		}
		switch tr.Form {
		case Single:
			if tr.Count != 1 || tr.Spread != 0 || tr.Every != 0 || tr.From != 0 || tr.Until != 0 {
				t.Errorf("traffic[%d] single %+v", i, tr)
			}
		case Burst:
			if tr.Every != 0 || tr.From != 0 || tr.Until != 0 || tr.Spread < 0 {
				t.Errorf("traffic[%d] burst %+v", i, tr)
			}
		case Periodic:
			if tr.At != 0 || tr.Spread != 0 || tr.Every <= 0 || tr.Until <= tr.From || tr.Count != periodicCount(tr.From, tr.Until, tr.Every) {
				t.Errorf("traffic[%d] periodic %+v", i, tr)
			}
		case Poisson:
			if tr.At != 0 || tr.Spread != 0 || tr.Every != 0 || tr.Until <= tr.From || tr.Until > s.Duration || (tr.On == 0) != (tr.Off == 0) {
				t.Errorf("traffic[%d] poisson %+v", i, tr)
			}
			for j := range tr.Count {
				at := tr.Time(j)
				if at < tr.From || at >= tr.Until || (j > 0 && at < tr.Time(j-1)) || (tr.On > 0 && (at-tr.From)%(tr.On+tr.Off) >= tr.On) {
					t.Errorf("traffic[%d] poisson arrival %d at %v", i, j, at)
					break
				}
			}
		default:
			t.Errorf("traffic[%d] form %v", i, tr.Form)
		}
		if tr.Count == 0 {
			continue
		}
		if tr.Time(0) < 0 || tr.Time(tr.Count-1) >= s.Duration {
			t.Errorf("traffic[%d] spans %v..%v, duration %v", i, tr.Time(0), tr.Time(tr.Count-1), s.Duration)
		}
		total += tr.Count
		attempts := int64(1)
		if tr.Client > 0 {
			attempts = int64(s.Clients[tr.Client-1].Attempts)
		}
		decisions += tr.Count * attempts
	}
	if total > MaxRequests {
		t.Errorf("the items hold %d requests", total)
	}
	for _, l := range s.Logs { // a log is bound by no scenario limit
		total += l.Count
	}
	if total != s.RequestCount() {
		t.Errorf("RequestCount %d, items and logs sum to %d", s.RequestCount(), total)
	}
	if decisions > MaxDecisions {
		t.Errorf("up to %d decisions a lane", decisions)
	}
	if total <= 100_000 {
		var n int64
		var last time.Duration
		for r := range s.Requests() {
			if r.At < last || r.At < 0 || r.At >= s.Duration {
				t.Fatalf("request %d at %v after %v (duration %v)", n, r.At, last, s.Duration)
			}
			last = r.At
			n++
		}
		if n != total {
			t.Errorf("Requests yielded %d, RequestCount %d", n, total)
		}
	}
	for i, n := range s.Notes {
		if n.At < 0 || n.At > s.Duration || strings.TrimSpace(n.Text) == "" || (i > 0 && n.At < s.Notes[i-1].At) {
			t.Errorf("notes[%d] %+v", i, n)
		}
	}
	keys := s.Keys()
	for i, q := range s.Quiz {
		if _, ok := s.Lane(q.Lane); (!ok && q.Lane != "") || (q.Key != "" && !slices.Contains(keys, q.Key)) ||
			q.At < 0 || q.At >= s.Duration || q.Request < 1 || q.Request > MaxRequests ||
			(i > 0 && (q.At < s.Quiz[i-1].At || q.At == s.Quiz[i-1].At && q.Request < s.Quiz[i-1].Request)) {
			t.Errorf("quiz[%d] %+v", i, q)
		}
	}
	for i, e := range s.Expect {
		lane, ok := s.Lane(e.Lane)
		switch {
		case !ok:
			t.Errorf("expect[%d]: no lane %q", i, e.Lane)
		case e.Key != "" && !slices.Contains(keys, e.Key):
			t.Errorf("expect[%d]: no key %q", i, e.Key)
		case e.From < 0 || e.From >= e.Until || e.Until > s.Duration || (e.Instant && e.Until != e.From+1):
			t.Errorf("expect[%d]: from %v until %v, duration %v", i, e.From, e.Until, s.Duration)
		case e.Allowed == nil && e.Admitted == nil && e.Delayed == nil && e.Rejected == nil && e.Retries == nil && e.Served == nil && e.Abandoned == nil && e.Peak == nil && e.Outcome == nil && e.RetryAfter == nil && e.Wait == nil && e.LatencyP50 == nil && e.LatencyP95 == nil && e.LatencyP99 == nil && e.StatePerKey == nil && e.StateTotal == nil:
			t.Errorf("expect[%d] asserts nothing", i)
		case e.StateTotal != nil && e.From != 0 && !e.Instant:
			t.Errorf("expect[%d]: state_total from %v", i, e.From)
		case e.Peak != nil && e.PeakWindow <= 0:
			t.Errorf("expect[%d]: peak window %v", i, e.PeakWindow)
		case !algorithms.Describe(lane.Policy.Algorithm).Delays() && (e.Delayed != nil && *e.Delayed > 0 || e.Outcome != nil && *e.Outcome == algorithms.Delayed):
			t.Errorf("expect[%d]: delayed on a %s", i, lane.Policy.Algorithm)
		}
	}
}

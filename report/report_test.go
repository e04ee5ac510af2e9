package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/fleet"
	"ratelab/model"
	"ratelab/scenarios"
)

func TestWait(t *testing.T) {
	for _, c := range []struct {
		d    algorithms.Decision
		want string
	}{
		{algorithms.Decision{Outcome: algorithms.Allowed}, ""},
		{algorithms.Decision{Outcome: algorithms.Delayed, Delay: 500 * time.Millisecond}, "+0.5s"},
		{algorithms.Decision{Outcome: algorithms.Rejected, RetryAfter: 250 * time.Millisecond}, "retry 0.25s"},
		{algorithms.Decision{Outcome: algorithms.Rejected, RetryAfter: algorithms.Never}, "never"},
	} {
		if got := Wait(c.d); got != c.want {
			t.Errorf("Wait(%+v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, ok := range []string{"table", "json", "summary"} {
		if f, err := ParseFormat(ok); err != nil || string(f) != ok {
			t.Errorf("ParseFormat(%q) = %q, %v", ok, f, err)
		}
	}
	if _, err := ParseFormat("csv"); err == nil {
		t.Error("csv accepted")
	}
}

// neverFits is a rejection that can never be admitted: cost 3 on capacity 2.
func neverFits(t *testing.T) (model.Lane, model.Record) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 2, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	lim, err := algorithms.New(p)
	if err != nil {
		t.Fatal(err)
	}
	r := model.Request{At: time.Second, Key: "k", Cost: 3}
	return model.Lane{Name: "b", Policy: p}, model.Record{Request: r, Decision: lim.Decide(r.At, r.Key, r.Cost)}
}

func TestJSONNeverIsMinusOne(t *testing.T) {
	lane, rec := neverFits(t)
	var out bytes.Buffer
	w := New(JSON, &out, []model.Lane{lane}, []string{"k"}, nil)
	if err := w.Record(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(nil); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["retry_after_ns"] != -1.0 || got["retry_after_s"] != -1.0 || got["outcome"] != "rejected" || got["at_ns"] != 1e9 || got["status"] != 429.0 {
		t.Fatalf("%s", out.String())
	}
}

func TestSummaryAlignsColumns(t *testing.T) {
	lane, _ := neverFits(t)
	long := model.Lane{Name: "a-much-longer-name", Policy: lane.Policy}
	var out bytes.Buffer
	WriteSummary(&out, []model.Lane{lane, long}, []model.Stats{
		{Admitted: 5, Rejected: 12345, Peak: 5, PeakAt: 2 * time.Second, PeakWindow: time.Second},
		{Admitted: 1, PeakWindow: time.Second},
	})
	lines := strings.Split(out.String(), "\n")
	// Right-aligned numbers: the "rejected" column ends at the same place.
	end := strings.Index(lines[0], "rejected") + len("rejected")
	if lines[1][end-5:end] != "12345" || lines[2][end-1:end] != "0" {
		t.Fatalf("columns not aligned:\n%s", out.String())
	}
	if !strings.Contains(lines[1], "5 by 2s") || !strings.HasPrefix(lines[0], "lane") || !strings.Contains(lines[0], "peak per 1s") {
		t.Fatalf("summary:\n%s", out.String())
	}
}

// TestNoRecordsStillHeads: a run with no request prints the table's header
// and every lane's summary row with zeros; JSON Lines prints no line.
func TestNoRecordsStillHeads(t *testing.T) {
	lane, _ := neverFits(t)
	lanes := []model.Lane{lane, {Name: "second", Policy: lane.Policy}}
	stats := []model.Stats{{PeakWindow: time.Second}, {PeakWindow: time.Second}}
	for _, c := range []struct {
		f    Format
		want []string
	}{
		{Table, []string{"             t  lane    key  cost  outcome   wait          why"}},
		{Summary, []string{
			"lane    policy                             requests  admitted  delayed  rejected  peak per 1s  state/key",
			"b       token-bucket capacity 2, rate 1/s         0         0        0         0  0                  0 B",
			"second  token-bucket capacity 2, rate 1/s         0         0        0         0  0                  0 B",
			"peak: the largest admitted cost passing in any trailing 1s window (a delayed request passes on release)",
			"state/key: the most bytes one key's state took after a request (a sliding log's grows with its recent admissions)",
		}},
		{JSON, nil},
	} {
		var out bytes.Buffer
		if err := New(c.f, &out, lanes, nil, nil).Close(stats); err != nil {
			t.Fatal(err)
		}
		want := strings.Join(c.want, "\n")
		if want != "" {
			want += "\n"
		}
		if out.String() != want {
			t.Errorf("%s prints\n%q\nwant\n%q", c.f, out.String(), want)
		}
	}
}

// TestSummaryStateColumn: the state per key, right-aligned after the peak;
// a sliding log's grows with its limit under the same overload, a
// counter's does not.
func TestSummaryStateColumn(t *testing.T) {
	src := `title: t
limiters:
  - {name: log10, algorithm: sliding-log, limit: 10, window: 60s}
  - {name: log1000, algorithm: sliding-log, limit: 1000, window: 60s}
  - {name: counter10, algorithm: sliding-counter, limit: 10, window: 60s}
  - {name: counter1000, algorithm: sliding-counter, limit: 1000, window: 60s}
traffic:
  - {every: 10ms, until: 60s}
`
	s, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	lanes := model.LanesOf(s)
	stats, err := model.Run(s, model.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	WriteSummary(&out, lanes, stats)
	lines := strings.Split(out.String(), "\n")
	if !strings.HasSuffix(lines[0], "  state/key") {
		t.Fatalf("no state column:\n%s", out.String())
	}
	cell := func(i int) string { f := strings.Fields(lines[i+1]); return f[len(f)-2] + " " + f[len(f)-1] }
	// 56 bytes of state and 24 a logged admission: 10 and 1000 of them.
	for i, want := range []string{"296 B", "23.5 KiB", "32 B", "32 B"} {
		if got := cell(i); got != want {
			t.Errorf("%s: state %q, want %q\n%s", lanes[i].Name, got, want, out.String())
		}
	}
}

func TestSummaryByKeyHasAKeyColumn(t *testing.T) {
	lane, _ := neverFits(t)
	other := model.Lane{Name: "other", Policy: lane.Policy}
	var out bytes.Buffer
	WriteSummaryByKey(&out, []model.Lane{lane, other}, 2*time.Second, []model.KeyStats{
		{Key: "alice", Lanes: []model.Stats{{Admitted: 3, Peak: 3, PeakAt: time.Second}, {Rejected: 1234}}},
		{Key: "a-long-key", Lanes: []model.Stats{{Admitted: 1, Delayed: 1, Peak: 1}, {}}},
	})
	want := `lane   key         policy                             requests  admitted  delayed  rejected  peak per 2s
b      alice       token-bucket capacity 2, rate 1/s         3         3        0         0  3 by 1s
b      a-long-key  token-bucket capacity 2, rate 1/s         1         1        1         0  1 by 0s
other  alice       token-bucket capacity 2, rate 1/s      1234         0        0      1234  0
other  a-long-key  token-bucket capacity 2, rate 1/s         0         0        0         0  0
peak: the largest admitted cost passing in any trailing 2s window (a delayed request passes on release)
`
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestEmitSkipsRecordsForTheSummary: a summary reads only the totals, so
// Run is given no record function for it; the other formats get theirs.
func TestEmitSkipsRecordsForTheSummary(t *testing.T) {
	lanes := []model.Lane{{Name: "b"}}
	if Emit(New(Summary, io.Discard, lanes, nil, nil)) != nil {
		t.Error("the summary asks for records")
	}
	for _, f := range []Format{Table, JSON} {
		if Emit(New(f, io.Discard, lanes, nil, nil)) == nil {
			t.Errorf("%s gets no records", f)
		}
	}
}

// TestSummaryNamesAMistakesTwin: a mistake lane run beside its exact twin
// gets a line saying how many more or fewer it admitted.
func TestSummaryNamesAMistakesTwin(t *testing.T) {
	bucket := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 2, Per: time.Second}}
	whole := bucket
	whole.Algorithm = algorithms.WholeTokenBucket
	lanes := []model.Lane{{Name: "bucket", Policy: bucket}, {Name: "whole", Policy: whole}}
	var out bytes.Buffer
	WriteSummary(&out, lanes, []model.Stats{{Admitted: 31}, {Admitted: 16}})
	if !strings.Contains(out.String(), "whole, a mistake, admitted 15 fewer than bucket, its exact twin") || strings.Contains(out.String(), "bucket, a mistake") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// TestGatewaysInTheOutput: every JSON line names its gateway and what
// decided; the summary gains a beyond column only when a lane has several
// gateways, and names their store.
func TestGatewaysInTheOutput(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 2, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	four := model.Lane{Name: "four", Policy: p, Fleet: fleet.Config{Gateways: 4}}
	lim, err := fleet.New(p, four.Fleet, algorithms.NewKeys())
	if err != nil {
		t.Fatal(err)
	}
	lim.Decide(0, "k", 1)
	r := model.Request{At: 0, Key: "k", Cost: 1}
	var out bytes.Buffer
	w := New(JSON, &out, []model.Lane{four}, []string{"k"}, nil)
	if err := w.Record(model.Record{Request: r, Decision: lim.Decide(0, "k", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(nil); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got["gateway"] != 1.0 || got["by"] != "limiter" {
		t.Fatalf("%s (%v)", out.String(), err)
	}
	out.Reset()
	WriteSummary(&out, []model.Lane{{Name: "one", Policy: p}, four}, []model.Stats{{Admitted: 2}, {Admitted: 8, Beyond: 6}})
	if s := out.String(); !strings.Contains(s, "beyond") || !strings.Contains(s, "×4 local") || !strings.Contains(s, "+6") {
		t.Errorf("summary:\n%s", s)
	}
	out.Reset()
	down := model.Lane{Name: "down", Policy: p, Fleet: fleet.Config{Gateways: 2, Store: fleet.Shared, ExpireIdle: time.Second,
		Outages: []fleet.Outage{{From: time.Second, Until: 2 * time.Second}}, Fallback: algorithms.FallbackClosed}}
	WriteSummary(&out, []model.Lane{{Name: "one", Policy: p}, down}, []model.Stats{{Admitted: 2}, {Admitted: 5, Beyond: 2, Forgot: 3, FallbackRejected: 4}})
	rows := strings.Split(out.String(), "\n")
	if head := rows[0]; !strings.Contains(head, "fallback ✓  fallback ✗") || !strings.HasSuffix(head, "forgot") {
		t.Errorf("head %q lacks the fallback and forgot columns", head)
	}
	if one := strings.Fields(rows[1]); one[len(one)-4] != "–" || one[len(one)-1] != "–" {
		t.Errorf("a plain lane's beyond and forgot are not '–': %q", rows[1])
	}
	if d := strings.Fields(rows[2]); d[len(d)-4] != "+2" || d[len(d)-2] != "4" || d[len(d)-1] != "+3" {
		t.Errorf("the failing, forgetting lane's row: %q", rows[2])
	}
	out.Reset()
	WriteSummary(&out, []model.Lane{{Name: "one", Policy: p}}, []model.Stats{{Admitted: 2}})
	if strings.Contains(out.String(), "beyond") {
		t.Errorf("a plain summary has a beyond column:\n%s", out.String())
	}
}

func TestClientsTables(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: 4, Window: 2 * time.Second}
	lanes := []model.Lane{{Name: "fixed", Policy: p}}
	st := model.Stats{Admitted: 8, Rejected: 80, Originals: 16, Served: 8, Abandoned: 8, TimedOut: 3, Unfinished: 0,
		Latency: model.Latency{N: 8, P50: 0, P95: 1500 * time.Millisecond, P99: 2 * time.Second}}
	var out bytes.Buffer
	WriteClients(&out, lanes, []model.Stats{st})
	want := "lane   originals  attempts     ×  served  abandoned  deadline  unfinished  latency p50   p95  p99\n" +
		"fixed         16        88  5.50       8          8         3           0           0s  1.5s   2s\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("got\n%s\nwant it to start\n%s", out.String(), want)
	}
	out.Reset()
	WriteClientsByKey(&out, lanes, []model.KeyStats{{Key: "storm", Lanes: []model.Stats{st}}})
	want = "lane   key    originals  attempts     ×  served  abandoned  deadline  unfinished  latency p50   p95  p99\n" +
		"fixed  storm         16        88  5.50       8          8         3           0           0s  1.5s   2s\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("got\n%s\nwant it to start\n%s", out.String(), want)
	}
	if got := (model.Stats{}).AmplificationText(); got != "–" {
		t.Errorf("no request: %q", got)
	}
}

func TestJSONSaysTheAttempt(t *testing.T) {
	lane, rec := neverFits(t)
	rec.Attempt = model.Attempt{N: 3, Client: 1, Fate: model.Abandoned, Ending: scenarios.NeverFits}
	var out bytes.Buffer
	w := New(JSON, &out, []model.Lane{lane}, []string{"k"}, []scenarios.Client{{Name: "eager"}})
	if err := w.Record(rec); err != nil {
		t.Fatal(err)
	}
	w.Close(nil)
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["attempt"] != 3.0 || got["client"] != "eager" || got["fate"] != "abandoned" {
		t.Errorf("%s", out.String())
	}
}

package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// The writers append each row into a reused buffer; these tests hold them
// to what they wrote before, through fmt and encoding/json, byte for byte.

// oldTableRow is the table row as fmt.Fprintf wrote it.
func oldTableRow(t *tableWriter, r model.Record) string {
	d := r.Decision
	try, then := "", ""
	if t.tries {
		try = fmt.Sprintf("%3d  ", r.Attempt.N)
		then = "; " + r.Attempt.Then()
	}
	return fmt.Sprintf("%*s  %-*s  %-*s  %4d  %s%-8s  %-12s  %s%s\n",
		timeWidth, algorithms.FormatSeconds(r.Request.At), t.laneWidth, t.lanes[r.Lane].Name,
		t.keyWidth, r.Request.Key, r.Request.Cost, try, d.Outcome, Wait(d), d.Explain(), then)
}

// oldJSONRecord is the struct encoding/json marshalled for a line.
type oldJSONRecord struct {
	AtNs         int64  `json:"at_ns"`
	Lane         string `json:"lane"`
	Key          string `json:"key"`
	Cost         int64  `json:"cost"`
	Outcome      string `json:"outcome"`
	DelayNs      int64  `json:"delay_ns"`
	RetryAfterNs int64  `json:"retry_after_ns"`
	RetryAfterS  int64  `json:"retry_after_s"`
	Status       int    `json:"status,omitempty"`
	Gateway      int    `json:"gateway"`
	By           string `json:"by"`
	Index        int    `json:"index"`
	Attempt      int    `json:"attempt"`
	Client       string `json:"client"`
	Fate         string `json:"fate"`
	Why          string `json:"why"`
}

// oldJSONLine is the line as json.Marshal wrote it.
func oldJSONLine(t *testing.T, j *jsonWriter, r model.Record) string {
	d := r.Decision
	retry := int64(d.RetryAfter)
	if d.RetryAfter == algorithms.Never {
		retry = -1
	}
	client := ""
	if r.Attempt.Client > 0 {
		client = j.clients[r.Attempt.Client-1].Name
	}
	status, by := d.Status(j.lanes[r.Lane].Policy), "limiter"
	if d.Fallback != algorithms.NoFallback {
		by = "fallback"
	}
	line, err := json.Marshal(oldJSONRecord{
		AtNs: int64(r.Request.At), Lane: j.lanes[r.Lane].Name, Key: r.Request.Key, Cost: r.Request.Cost,
		Outcome: d.Outcome.String(), DelayNs: int64(d.Delay), RetryAfterNs: retry,
		RetryAfterS: d.RetryAfterSeconds(), Status: status, Gateway: int(d.Gateway), By: by, Index: r.Index,
		Attempt: r.Attempt.N, Client: client, Fate: r.Attempt.Fate.String(), Why: d.Explain(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(line) + "\n"
}

// awkwardKeys are keys that test the padding (runes, not bytes) and JSON's
// escaping.
var awkwardKeys = []string{"k", "<a&b>", "ключ", "tab\there", "nl\n", "q\"uote\\", "\u2028\u2029", "bad\xffutf8", "\x01\x7f", "日本語のキー", "e\u0301"}

// testLanes are lanes of several kinds: the million's six, a stack of two
// and a lane of one policy over all keys, with awkward names.
func testLanes(t testing.TB) []model.Lane {
	sec := time.Second
	lanes := []model.Lane{
		{Name: "fixed", Policy: algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: 5, Window: sec}},
		{Name: "log<&>", Policy: algorithms.Policy{Algorithm: algorithms.SlidingLog, Limit: 5, Window: sec}},
		{Name: "счётчик", Policy: algorithms.Policy{Algorithm: algorithms.SlidingCounter, Limit: 5, Window: sec}},
		{Name: "bucket", Policy: algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 3, Rate: algorithms.Rate{N: 2, Per: sec}}},
		{Name: "gcra", Policy: algorithms.Policy{Algorithm: algorithms.GCRA, Burst: 3, Rate: algorithms.Rate{N: 3, Per: 7 * sec}}},
		{Name: "shaper", Policy: algorithms.Policy{Algorithm: algorithms.LeakyBucket, Queue: 2, Rate: algorithms.Rate{N: 2, Per: sec}}},
	}
	each := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 2, Rate: algorithms.Rate{N: 1, Per: sec}}
	total := algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: 4, Window: sec}
	lanes = append(lanes,
		model.Lane{Name: "stack", Policy: each, Stack: []algorithms.Layer{{Name: "each", Policy: each}, {Name: "total", Policy: total, AllKeys: true}}},
		model.Lane{Name: "all", Policy: total, Stack: []algorithms.Layer{{Name: "all", Policy: total, AllKeys: true}}})
	return lanes
}

// testRecords decides n requests a lane, 97ms apart, over the keys in turn,
// costs 1 to 3 and now and then one too large for any lane.
func testRecords(t testing.TB, lanes []model.Lane, keys []string, n int) []model.Record {
	ks := algorithms.NewKeys()
	lims := make([]algorithms.Limiter, len(lanes))
	for i, l := range lanes {
		var err error
		if l.Stack != nil {
			lims[i], err = algorithms.NewStack(l.Stack, ks)
		} else {
			lims[i], err = algorithms.NewWithKeys(l.Policy, ks)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var recs []model.Record
	for i := range n {
		req := model.Request{At: time.Duration(i) * 97 * time.Millisecond, Key: keys[i%len(keys)], Cost: int64(1 + i%3)}
		if i%37 == 36 {
			req.Cost = 1000
		}
		for l, lim := range lims {
			recs = append(recs, model.Record{Index: i, Lane: l, Request: req, Decision: lim.Decide(req.At, req.Key, req.Cost),
				Attempt: model.Attempt{N: 1 + i%4, Client: i % 3, Fate: model.Fate(i % 4), Next: req.At + time.Second, Latency: time.Duration(i%2) * time.Millisecond}})
		}
	}
	return recs
}

func TestTableRowsAsFmtWroteThem(t *testing.T) {
	lanes := testLanes(t)
	recs := testRecords(t, lanes, awkwardKeys, 300)
	clients := []scenarios.Client{{Name: "eager"}, {Name: "c<2>"}}
	for _, tries := range []bool{false, true} {
		tw := newTableWriter(bufio.NewWriter(io.Discard), lanes, awkwardKeys, tries)
		for _, r := range recs {
			if !tries {
				r.Attempt = model.Attempt{N: 1}
			} else if r.Attempt.Client > len(clients) {
				r.Attempt.Client = 0
			}
			want := oldTableRow(tw, r)
			if got := string(tw.appendRow(nil, &r)); got != want {
				t.Fatalf("tries %v:\n got %q\nwant %q", tries, got, want)
			}
		}
	}
}

func TestJSONLinesAsMarshalWroteThem(t *testing.T) {
	lanes := testLanes(t)
	recs := testRecords(t, lanes, awkwardKeys, 300)
	clients := []scenarios.Client{{Name: "eager"}, {Name: "c<2>\u2028"}}
	jw := newJSONWriter(nil, lanes, clients)
	for _, r := range recs {
		want := oldJSONLine(t, jw, r)
		if got := string(jw.appendLine(nil, &r)); got != want {
			t.Fatalf("\n got %q\nwant %q", got, want)
		}
	}
	// A fallback's lines say so.
	r := recs[0]
	r.Decision.Fallback = algorithms.FallbackClosed
	r.Decision.Outcome = algorithms.Rejected
	if got, want := string(jw.appendLine(nil, &r)), oldJSONLine(t, jw, r); got != want {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
}

// jsonAwkward are strings at the edges of encoding/json's escaping.
var jsonAwkward = []string{"", "plain", "<script>&amp;</script>", "\x00\x01\x1f\x7f", "\b\f\n\r\t\"\\/",
	"\u2028x\u2029", "\xff", "a\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "€ → ≥ ⇒ ✓", "\U0001F600", "\ufffd", "end\xe2\x80"}

func TestJSONStringAsMarshal(t *testing.T) {
	for c := range 256 {
		jsonAwkward = append(jsonAwkward, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range jsonAwkward {
		checkJSONString(t, s)
	}
}

func FuzzJSONStringAsMarshal(f *testing.F) {
	for _, s := range jsonAwkward {
		f.Add(s)
	}
	f.Fuzz(checkJSONString)
}

func checkJSONString(t *testing.T, s string) {
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
		t.Errorf("%q: got %s, want %s", s, got, want)
	}
	if got := appendJSONString(nil, []byte(s)); !bytes.Equal(got, want) {
		t.Errorf("%q as bytes: got %s, want %s", s, got, want)
	}
}

// A row costs no allocation once the buffers have grown, in either format.
func TestRowsAllocateNothing(t *testing.T) {
	lanes := testLanes(t)
	recs := testRecords(t, lanes, []string{"k", "<a&b>", "ключ"}, 200)
	for _, f := range []Format{Table, JSON} {
		w := New(f, io.Discard, lanes, []string{"k", "<a&b>", "ключ"}, nil)
		for _, r := range recs {
			r.Attempt = model.Attempt{N: 1}
			w.Record(r)
		}
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			r := recs[i%len(recs)]
			r.Attempt = model.Attempt{N: 1}
			w.Record(r)
			i++
		})
		// The stacked lane's decisions carry their one record (see
		// algorithms.stack.DecideInto), made when deciding, not here.
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations a row", f, allocs)
		}
	}
}

// benchRecords are the million's six lanes (tools/million.yaml) deciding
// a request a millisecond for 10 s: 60,000 records, of every kind the
// million writes (admissions, rejections, delays, and the
// fixed window's first admissions of a window).
func benchRecords(b *testing.B) ([]model.Lane, []model.Record) {
	s, err := scenarios.Load("../tools/million.yaml")
	if err != nil {
		b.Fatal(err)
	}
	lanes := s.Lanes
	ks := algorithms.NewKeys()
	lims := make([]algorithms.Limiter, len(lanes))
	for i, l := range lanes {
		if lims[i], err = algorithms.NewWithKeys(l.Policy, ks); err != nil {
			b.Fatal(err)
		}
	}
	var recs []model.Record
	for i := range 10000 {
		req := model.Request{At: time.Duration(i) * time.Millisecond, Key: "default", Cost: 1}
		for l, lim := range lims {
			recs = append(recs, model.Record{Index: i, Lane: l, Request: req, Decision: lim.Decide(req.At, req.Key, req.Cost), Attempt: model.Attempt{N: 1, Fate: model.Served}})
		}
	}
	return lanes, recs
}

// benchWriter writes the records in turn with w, counting bytes.
func benchWriter(b *testing.B, recs []model.Record, write func(w *bufio.Writer, r *model.Record)) {
	var n countWriter
	w := bufio.NewWriterSize(&n, 64<<10)
	i := 0
	runtime.GC() // the records' garbage, before the clock starts
	b.ReportAllocs()
	for b.Loop() {
		write(w, &recs[i%len(recs)])
		i++
	}
	w.Flush()
	b.SetBytes(n.n / int64(max(i, 1)))
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func BenchmarkTable(b *testing.B) {
	lanes, recs := benchRecords(b)
	tw := newTableWriter(nil, lanes, []string{"default"}, false)
	benchWriter(b, recs, func(w *bufio.Writer, r *model.Record) {
		tw.w = w
		tw.Record(*r)
	})
}

func BenchmarkJSON(b *testing.B) {
	lanes, recs := benchRecords(b)
	jw := newJSONWriter(nil, lanes, nil)
	benchWriter(b, recs, func(w *bufio.Writer, r *model.Record) {
		jw.w = w
		jw.Record(*r)
	})
}

// BenchmarkReferenceTable and BenchmarkReferenceJSON are the yardstick of
// BenchmarkTable and BenchmarkJSON (compare their MB/s): a plain program
// writing rows of the same shape — the same columns or members, and for
// each lane a why text of the same words and as many numbers of the same
// kinds (the million's rows are nearly all rejections: the sentences are
// theirs) — each number appended with strconv, the words copied from
// constants, JSON's escapes written into them (\u003c for <), with no
// formatting machinery at all.
func BenchmarkReferenceTable(b *testing.B) {
	_, recs := benchRecords(b)
	var buf []byte
	benchWriter(b, recs, func(w *bufio.Writer, r *model.Record) {
		b := refSeconds(buf[:0], r.Request.At, 14)
		b = append(b, "  "...)
		b = append(b, refLanes[r.Lane]...)
		b = append(b, "  default  "...)
		b = refInt(b, r.Request.Cost, 4)
		b = append(b, "  rejected  retry "...)
		b = refSeconds(b, r.Decision.RetryAfter, 6)
		b = append(b, "  "...)
		b = refWhy(b, r, "<", ">")
		buf = append(b, '\n')
		w.Write(buf)
	})
}

func BenchmarkReferenceJSON(b *testing.B) {
	_, recs := benchRecords(b)
	var buf []byte
	benchWriter(b, recs, func(w *bufio.Writer, r *model.Record) {
		d := &r.Decision
		b := strconv.AppendInt(append(buf[:0], `{"at_ns":`...), int64(r.Request.At), 10)
		b = append(append(append(b, `,"lane":"`...), refNames[r.Lane]...), `","key":"default","cost":`...)
		b = strconv.AppendInt(b, r.Request.Cost, 10)
		b = append(append(append(b, `,"outcome":"`...), d.Outcome.String()...), '"')
		b = strconv.AppendInt(append(b, `,"delay_ns":`...), int64(d.Delay), 10)
		b = strconv.AppendInt(append(b, `,"retry_after_ns":`...), int64(d.RetryAfter), 10)
		b = strconv.AppendInt(append(b, `,"retry_after_s":`...), d.RetryAfterSeconds(), 10)
		b = append(b, `,"status":429`...)
		b = strconv.AppendInt(append(b, `,"gateway":`...), int64(d.Gateway), 10)
		b = strconv.AppendInt(append(b, `,"by":"limiter","index":`...), int64(r.Index), 10)
		b = strconv.AppendInt(append(b, `,"attempt":`...), int64(r.Attempt.N), 10)
		b = append(b, `,"client":"","fate":"served","why":"`...)
		b = refWhy(b, r, `\u003c`, `\u003e`)
		buf = append(b, "\"}\n"...)
		w.Write(buf)
	})
}

// refLanes are the million's lane names padded to the table's column, and
// refNames the names.
var (
	refLanes = []string{"fixed  ", "log    ", "counter", "bucket ", "gcra   ", "shaper "}
	refNames = []string{"fixed", "log", "counter", "bucket", "gcra", "shaper"}
)

// refWhy appends a rejection's explanation in lane r.Lane's words, with
// numbers of r's (lt and gt are how < and > are written).
func refWhy(b []byte, r *model.Record, lt, gt string) []byte {
	at, retry, cost := r.Request.At, r.Decision.RetryAfter, r.Request.Cost
	window := time.Minute
	start := at / window * window
	switch r.Lane {
	case 0: // window [0s, 60s): count 120 + cost 1 = 121 > limit 120 → rejected; retry after 60s − 3.324s = 56.676s
		b = refSeconds(append(b, "window ["...), start, 0)
		b = refSeconds(append(b, ", "...), start+window, 0)
		b = refInt(append(b, "): count "...), 120, 0)
		b = refInt(append(b, " + cost "...), cost, 0)
		b = refInt(append(b, " = "...), 120+cost, 0)
		b = append(append(append(b, ' '), gt...), " limit 120 → rejected; retry after "...)
		b = refSeconds(b, start+window, 0)
		b = refSeconds(append(b, " − "...), at, 0)
		return refSeconds(append(b, " = "...), retry, 0)
	case 1: // recent = cost admitted in (-55.014s, 4.986s] = 120; 120 + cost 1 = 121 > limit 120 → rejected; 1 must expire: the admissions up to 0s free 1 at 0s + 60s = 60s; retry after 60s − 4.986s = 55.014s
		b = refSeconds(append(b, "recent = cost admitted in ("...), at-window, 0)
		b = refSeconds(append(b, ", "...), at, 0)
		b = refInt(append(b, "] = "...), 120, 0)
		b = refInt(append(b, "; "...), 120, 0)
		b = refInt(append(b, " + cost "...), cost, 0)
		b = refInt(append(b, " = "...), 120+cost, 0)
		b = append(append(append(b, ' '), gt...), " limit 120 → rejected; "...)
		b = refInt(b, cost, 0)
		b = refSeconds(append(b, " must expire: the admissions up to "...), start, 0)
		b = refInt(append(b, " free "...), cost, 0)
		b = refSeconds(append(b, " at "...), start, 0)
		b = refSeconds(append(b, " + 60s = "...), start+window, 0)
		b = refSeconds(append(b, "; retry after "...), start+window, 0)
		b = refSeconds(append(b, " − "...), at, 0)
		return refSeconds(append(b, " = "...), retry, 0)
	case 2: // estimate = 120 + 0 × (60s − 6.648s)/60s = 120; 120 + cost 1 = 121 > limit 120 → rejected; retry after 53.852s, when estimate = 0 + 120 × (60s − 0.5s)/60s = 119 and 119 + cost 1 ≤ 120
		b = refInt(append(b, "estimate = "...), 120, 0)
		b = refInt(append(b, " + "...), 0, 0)
		b = refSeconds(append(b, " × (60s − "...), at-start, 0)
		b = refInt(append(b, ")/60s = "...), 120, 0)
		b = refInt(append(b, "; "...), 120, 0)
		b = refInt(append(b, " + cost "...), cost, 0)
		b = refInt(append(b, " = "...), 120+cost, 0)
		b = append(append(append(b, ' '), gt...), " limit 120 → rejected; retry after "...)
		b = refSeconds(b, retry, 0)
		b = refInt(append(b, ", when estimate = "...), 0, 0)
		b = refInt(append(b, " + "...), 120, 0)
		b = refSeconds(append(b, " × (60s − "...), retry/100, 0)
		b = refInt(append(b, ")/60s = "...), 119, 0)
		b = refInt(append(b, " and "...), 119, 0)
		b = refInt(append(b, " + cost "...), cost, 0)
		return append(b, " ≤ 120"...)
	case 3: // available = min(10, 0.618 + 0.001s × 2/s) = 0.62 < cost 1 → rejected; retry after (1 − 0.62) / 2/s = 0.19s
		b = refMilli(append(b, "available = min(10, "...), int64(retry/time.Millisecond))
		b = refSeconds(append(b, " + "...), time.Millisecond, 0)
		b = refMilli(append(b, " × 2/s) = "...), int64(retry/time.Millisecond)+2)
		b = append(append(append(b, ' '), lt...), " cost "...)
		b = refInt(b, cost, 0)
		b = refInt(append(b, " → rejected; retry after ("...), cost, 0)
		b = refMilli(append(b, " − "...), int64(retry/time.Millisecond)+2)
		return refSeconds(append(b, ") / 2/s = "...), retry, 0)
	case 4: // new TAT = max(TAT 14.5s, now 9.972s) + 1 × 0.5s = 15s; allow at = 15s − 10 × 0.5s = 10s > now 9.972s → rejected; retry after 10s − 9.972s = 0.028s
		b = refSeconds(append(b, "new TAT = max(TAT "...), at+retry+4500*time.Millisecond, 0)
		b = refSeconds(append(b, ", now "...), at, 0)
		b = refInt(append(b, ") + "...), cost, 0)
		b = refSeconds(append(b, " × 0.5s = "...), at+retry+5*time.Second, 0)
		b = refSeconds(append(b, "; allow at = "...), at+retry+5*time.Second, 0)
		b = refSeconds(append(b, " − 10 × 0.5s = "...), at+retry, 0)
		b = refSeconds(append(append(append(b, ' '), gt...), " now "...), at, 0)
		b = refSeconds(append(b, " → rejected; retry after "...), at+retry, 0)
		b = refSeconds(append(b, " − "...), at, 0)
		return refSeconds(append(b, " = "...), retry, 0)
	}
	// free = max(next free 7s, now 1.661s) = 7s; delay = 7s − 1.661s = 5.339s > queue 10 × 0.5s = 5s → rejected (10 waiting); retry after 5.339s − 5s = 0.339s
	b = refSeconds(append(b, "free = max(next free "...), at+retry+5*time.Second, 0)
	b = refSeconds(append(b, ", now "...), at, 0)
	b = refSeconds(append(b, ") = "...), at+retry+5*time.Second, 0)
	b = refSeconds(append(b, "; delay = "...), at+retry+5*time.Second, 0)
	b = refSeconds(append(b, " − "...), at, 0)
	b = refSeconds(append(b, " = "...), retry+5*time.Second, 0)
	b = append(append(append(b, ' '), gt...), " queue 10 × 0.5s = 5s → rejected ("...)
	b = refInt(b, 10, 0)
	b = refSeconds(append(b, " waiting); retry after "...), retry+5*time.Second, 0)
	return refSeconds(append(b, " − 5s = "...), retry, 0)
}

// refInt appends n right-aligned in width bytes.
func refInt(b []byte, n int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], n, 10)
	for range width - len(s) {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// refMilli appends m thousandths as a decimal, trailing zeros trimmed.
func refMilli(b []byte, m int64) []byte {
	b = strconv.AppendInt(b, m/1000, 10)
	if m%1000 != 0 {
		n := len(b)
		b = strconv.AppendInt(b, 1000+m%1000, 10)
		b[n] = '.'
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
	}
	return b
}

// refSeconds appends d as seconds with the nanoseconds' trailing zeros
// trimmed, right-aligned in width bytes.
func refSeconds(b []byte, d time.Duration, width int) []byte {
	var tmp [32]byte
	s := tmp[:0]
	if d < 0 {
		s, d = append(s, '-'), -d
	}
	s = strconv.AppendInt(s, int64(d/time.Second), 10)
	if ns := int64(d % time.Second); ns != 0 {
		n := len(s)
		s = strconv.AppendInt(s, 1e9+ns, 10) // "1" and nine digits
		s[n] = '.'
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
	}
	s = append(s, 's')
	for range width - len(s) {
		b = append(b, ' ')
	}
	return append(b, s...)
}

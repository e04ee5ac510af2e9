// Package report writes what the lanes decided, for the command line: an
// aligned table, JSON Lines, or a per-lane summary. Writers stream: they hold
// one record at a time, never the whole run.
package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// Format is an output format of `ratelab run`.
type Format string

// The formats.
const (
	Table   Format = "table"
	JSON    Format = "json"
	Summary Format = "summary"
)

// ParseFormat accepts "table", "json" or "summary".
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Table, JSON, Summary:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q (want table, json or summary)", s)
}

// Writer receives records in request order, then lane order, and the final
// totals; Close flushes.
type Writer interface {
	Record(model.Record) error
	Close(stats []model.Stats) error
}

// Emit is what model.Run should call with each record for w: w.Record, or
// nil for a writer that reads only the totals (the summary), so that a
// summary run builds no record at all.
func Emit(w Writer) func(model.Record) error {
	if _, totalsOnly := w.(*summaryWriter); totalsOnly {
		return nil
	}
	return w.Record
}

// New makes the writer for format f over the given lanes, request keys and
// clients (the scenario's: with none, every request is tried once, the
// table and the summary say nothing of attempts, and every JSON record
// says attempt 1 and client ""). A retry's JSON index is its original
// request's.
func New(f Format, w io.Writer, lanes []model.Lane, keys []string, clients []scenarios.Client) Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	switch f {
	case JSON:
		return newJSONWriter(bw, lanes, clients)
	case Summary:
		return &summaryWriter{w: bw, lanes: lanes, clients: len(clients) > 0}
	}
	return newTableWriter(bw, lanes, keys, len(clients) > 0)
}

// tableWriter prints one aligned row per request per lane. Column widths come
// from the lane names and keys known up front, so rows stream. Each row is
// appended into one buffer reused for every row (see appendRow), so a row
// costs no allocation.
type tableWriter struct {
	w          *bufio.Writer
	lanes      []model.Lane
	laneWidth  int
	keyWidth   int
	wroteHeads bool
	// tries adds the attempt's number after the cost, for a scenario
	// with clients.
	tries bool
	// buf is the row being written, kept between rows.
	buf []byte
}

func newTableWriter(w *bufio.Writer, lanes []model.Lane, keys []string, tries bool) *tableWriter {
	t := &tableWriter{w: w, lanes: lanes, laneWidth: len("lane"), keyWidth: len("key"), tries: tries}
	for _, l := range lanes {
		t.laneWidth = max(t.laneWidth, len(l.Name))
	}
	for _, k := range keys {
		t.keyWidth = max(t.keyWidth, len(k))
	}
	return t
}

const timeWidth = 14 // "59.900833333s" and a margin

// head writes the header row once, before the first row or, when there are
// none, on Close.
func (t *tableWriter) head() {
	if !t.wroteHeads {
		t.wroteHeads = true
		try := ""
		if t.tries {
			try = "try  "
		}
		fmt.Fprintf(t.w, "%*s  %-*s  %-*s  %4s  %s%-8s  %-12s  %s\n",
			timeWidth, "t", t.laneWidth, "lane", t.keyWidth, "key", "cost", try, "outcome", "wait", "why")
	}
}

func (t *tableWriter) Record(r model.Record) error {
	t.head()
	t.buf = t.appendRow(t.buf[:0], &r)
	_, err := t.w.Write(t.buf)
	return err
}

// appendRow appends r's row to b: exactly what
//
//	fmt.Sprintf("%*s  %-*s  %-*s  %4d  %s%-8s  %-12s  %s%s\n", timeWidth, FormatSeconds(at),
//		laneWidth, lane, keyWidth, key, cost, try, outcome, Wait(d), d.Explain(), then)
//
// writes, with try "%3d  " and then "; " + Attempt.Then() for a scenario
// with clients ("" else). Widths count runes, as fmt's do.
func (t *tableWriter) appendRow(b []byte, r *model.Record) []byte {
	d := &r.Decision
	start := len(b)
	b = algorithms.AppendSeconds(b, r.Request.At)
	b = padFront(b, start, timeWidth)
	b = append(b, "  "...)
	b = appendPadded(b, t.lanes[r.Lane].Name, t.laneWidth)
	b = append(b, "  "...)
	b = appendPadded(b, r.Request.Key, t.keyWidth)
	b = append(b, "  "...)
	start = len(b)
	b = strconv.AppendInt(b, r.Request.Cost, 10)
	b = padFront(b, start, 4)
	b = append(b, "  "...)
	if t.tries {
		start = len(b)
		b = strconv.AppendInt(b, int64(r.Attempt.N), 10)
		b = append(padFront(b, start, 3), "  "...)
	}
	b = appendPadded(b, d.Outcome.String(), 8)
	b = append(b, "  "...)
	start = len(b)
	b = appendWait(b, d)
	b = padBack(b, start, 12)
	b = append(b, "  "...)
	b = d.AppendExplain(b)
	if t.tries {
		b = append(append(b, "; "...), r.Attempt.Then()...)
	}
	return append(b, '\n')
}

// spaces pads the table's columns.
const spaces = "                "

// padFront right-aligns what was appended to b since start in width
// runes, as fmt's %*s does: it moves it right by the missing runes and
// fills the gap with spaces.
func padFront(b []byte, start, width int) []byte {
	pad := width - utf8.RuneCount(b[start:])
	if pad <= 0 {
		return b
	}
	n := len(b)
	b = appendSpaces(b, pad)
	copy(b[start+pad:], b[start:n])
	copy(b[start:start+pad], spaces)
	for i := start + len(spaces); i < start+pad; i++ {
		b[i] = ' '
	}
	return b
}

// padBack left-aligns what was appended to b since start in width runes,
// as fmt's %-*s does.
func padBack(b []byte, start, width int) []byte {
	return appendSpaces(b, width-utf8.RuneCount(b[start:]))
}

// appendPadded appends s left-aligned in width runes, as fmt's %-*s does.
func appendPadded(b []byte, s string, width int) []byte {
	return appendSpaces(append(b, s...), width-utf8.RuneCountInString(s))
}

// appendSpaces appends n spaces (none if n ≤ 0).
func appendSpaces(b []byte, n int) []byte {
	for n > len(spaces) {
		b = append(b, spaces...)
		n -= len(spaces)
	}
	if n > 0 {
		b = append(b, spaces[:n]...)
	}
	return b
}

func (t *tableWriter) Close([]model.Stats) error {
	t.head()
	return t.w.Flush()
}

// Wait describes the time a decision makes the client wait: "+0.5s" for a
// delay, "retry 0.25s" for a rejection, "never" when it can never fit.
func Wait(d algorithms.Decision) string { return string(appendWait(nil, &d)) }

// appendWait appends Wait(*d) to b.
func appendWait(b []byte, d *algorithms.Decision) []byte {
	switch {
	case d.Outcome == algorithms.Delayed:
		return algorithms.AppendSeconds(append(b, '+'), d.Delay)
	case d.Outcome == algorithms.Rejected && d.RetryAfter == algorithms.Never:
		return append(b, "never"...)
	case d.Outcome == algorithms.Rejected:
		return algorithms.AppendSeconds(append(b, "retry "...), d.RetryAfter)
	}
	return b
}

// A line of --format json is one object with these members, in this order
// (what encoding/json wrote for the struct this package used to marshal,
// kept byte for byte). Times are integer nanoseconds.
//
//	at_ns, lane, key, cost, outcome, delay_ns, retry_after_ns,
//	retry_after_s: the HTTP Retry-After header in whole seconds, rounded up;
//	  -1 when the request can never fit (retry_after_ns is then -1 too).
//	  Lanes whose library sends no such header (nginx, Envoy) or replies
//	  with its own rounding (redis-cell) still get this figure: their why
//	  text says what the library itself tells the client.
//	status: the HTTP status of a rejection: 429, or the lane's library's
//	  own (nginx's limit_req: 503); absent for an admission.
//	gateway: the gateway that took the request (0-based; 0 for a lane of
//	  one), and by what decided: "limiter", or "fallback" while its store
//	  did not answer.
//	index,
//	attempt: the try's number (1 for the request itself), client the name
//	  of the request's client ("" for none), fate what became of the
//	  request after this try: served, retrying, abandoned or unfinished.
//	why: Decision.Explain.
type jsonWriter struct {
	w       *bufio.Writer
	lanes   []model.Lane
	clients []scenarios.Client
	// laneNames and clientNames are the lanes' and the clients' names as
	// JSON strings, quoted once for every line.
	laneNames, clientNames [][]byte
	// buf is the line being written and why its explanation, both kept
	// between records, so that a record costs no allocation.
	buf, why []byte
}

func newJSONWriter(w *bufio.Writer, lanes []model.Lane, clients []scenarios.Client) *jsonWriter {
	j := &jsonWriter{w: w, lanes: lanes, clients: clients}
	for _, l := range lanes {
		j.laneNames = append(j.laneNames, appendJSONString(nil, l.Name))
	}
	for _, c := range clients {
		j.clientNames = append(j.clientNames, appendJSONString(nil, c.Name))
	}
	return j
}

func (j *jsonWriter) Record(r model.Record) error {
	j.buf = j.appendLine(j.buf[:0], &r)
	_, err := j.w.Write(j.buf)
	return err
}

// appendLine appends r's line of JSON, and a newline, to b.
func (j *jsonWriter) appendLine(b []byte, r *model.Record) []byte {
	d := &r.Decision
	retry := int64(d.RetryAfter)
	if d.RetryAfter == algorithms.Never {
		retry = -1
	}
	client := []byte(`""`)
	if r.Attempt.Client > 0 {
		client = j.clientNames[r.Attempt.Client-1]
	}
	b = append(b, `{"at_ns":`...)
	b = strconv.AppendInt(b, int64(r.Request.At), 10)
	b = append(append(b, `,"lane":`...), j.laneNames[r.Lane]...)
	b = appendJSONString(append(b, `,"key":`...), r.Request.Key)
	b = strconv.AppendInt(append(b, `,"cost":`...), r.Request.Cost, 10)
	b = appendJSONString(append(b, `,"outcome":`...), d.Outcome.String())
	b = strconv.AppendInt(append(b, `,"delay_ns":`...), int64(d.Delay), 10)
	b = strconv.AppendInt(append(b, `,"retry_after_ns":`...), retry, 10)
	b = strconv.AppendInt(append(b, `,"retry_after_s":`...), d.RetryAfterSeconds(), 10)
	if status := d.Status(j.lanes[r.Lane].Policy); status != 0 { // omitempty
		b = strconv.AppendInt(append(b, `,"status":`...), int64(status), 10)
	}
	b = strconv.AppendInt(append(b, `,"gateway":`...), int64(d.Gateway), 10)
	if d.Fallback != algorithms.NoFallback {
		b = append(b, `,"by":"fallback"`...)
	} else {
		b = append(b, `,"by":"limiter"`...)
	}
	b = strconv.AppendInt(append(b, `,"index":`...), int64(r.Index), 10)
	b = strconv.AppendInt(append(b, `,"attempt":`...), int64(r.Attempt.N), 10)
	b = append(append(b, `,"client":`...), client...)
	b = appendJSONString(append(b, `,"fate":`...), r.Attempt.Fate.String())
	j.why = d.AppendExplain(j.why[:0])
	b = appendJSONString(append(b, `,"why":`...), j.why)
	return append(b, "}\n"...)
}

func (j *jsonWriter) Close([]model.Stats) error { return j.w.Flush() }

type summaryWriter struct {
	w       *bufio.Writer
	lanes   []model.Lane
	clients bool
}

func (s *summaryWriter) Record(model.Record) error { return nil }

func (s *summaryWriter) Close(stats []model.Stats) error {
	WriteSummary(s.w, s.lanes, stats)
	if s.clients {
		WriteClients(s.w, s.lanes, stats)
	}
	return s.w.Flush()
}

// WriteClients prints per lane what the clients' requests came to: the
// originals, every attempt, the amplification (attempts ÷ originals),
// those served, abandoned (of them at a deadline), unfinished, and the
// served requests' latency from their first attempt.
func WriteClients(w io.Writer, lanes []model.Lane, stats []model.Stats) {
	rows := [][]string{{"lane", "originals", "attempts", "×", "served", "abandoned", "deadline", "unfinished", "latency p50", "p95", "p99"}}
	for i, l := range lanes {
		st := stats[i]
		rows = append(rows, append(clientCells(l.Name, st),
			algorithms.FormatSeconds(st.Latency.P50), algorithms.FormatSeconds(st.Latency.P95), algorithms.FormatSeconds(st.Latency.P99)))
	}
	writeClientRows(w, rows, 1)
	fmt.Fprintln(w, "latency: from a request's first attempt to its release, over the served, nearest rank")
}

// WriteClientsByKey is WriteClients with a row per lane and key, after the
// lane a key column.
func WriteClientsByKey(w io.Writer, lanes []model.Lane, byKey []model.KeyStats) {
	rows := [][]string{clientsKeysHead}
	for i, l := range lanes {
		for _, k := range byKey {
			st := k.Lanes[i]
			cells := clientCells(l.Name, st)
			rows = append(rows, append(append([]string{cells[0], k.Key}, cells[1:]...),
				algorithms.FormatSeconds(st.Latency.P50), algorithms.FormatSeconds(st.Latency.P95), algorithms.FormatSeconds(st.Latency.P99)))
		}
	}
	writeClientRows(w, rows, 2)
	fmt.Fprintln(w, "latency: from a request's first attempt to its release, over the served, nearest rank")
}

// WriteClientsKeys is WriteClientsByKey reading each key's totals from kt
// (model.RunKeys), in two passes as WriteSummaryKeys: it holds one row at
// a time, whatever the keys.
func WriteClientsKeys(w io.Writer, lanes []model.Lane, kt *model.KeyTotals) {
	alignKeys(w, clientsRight(2), clientsKeysHead, lanes, kt, func(t *columns, _ int, st model.Stats) {
		t.int(st.Originals)
		t.int(st.Requests())
		t.text(st.AmplificationText())
		for _, n := range [...]int64{st.Served, st.Abandoned, st.TimedOut, st.Unfinished} {
			t.int(n)
		}
		t.seconds(st.Latency.P50)
		t.seconds(st.Latency.P95)
		t.seconds(st.Latency.P99)
	})
	writeClientsNotes(w)
	fmt.Fprintln(w, "latency: from a request's first attempt to its release, over the served, nearest rank")
}

// alignKeys writes a table by key of kt's totals aligned (alignRows):
// head, then a row per lane and key, lane by lane, each the lane's name,
// the key and the cells that cells adds of the key's totals on lane.
func alignKeys(w io.Writer, right func(c int) bool, head []string, lanes []model.Lane, kt *model.KeyTotals,
	cells func(t *columns, lane int, st model.Stats)) {
	alignRows(w, right, func(t *columns) {
		t.row(head)
		for i, l := range lanes {
			for k := range kt.Len() {
				t.text(l.Name)
				t.text(kt.Key(k))
				cells(t, i, kt.Stats(k, i))
				t.end()
			}
		}
	})
}

// clientsKeysHead is the header of the clients' table by key.
var clientsKeysHead = []string{"lane", "key", "originals", "attempts", "×", "served", "abandoned", "deadline", "unfinished", "latency p50", "p95", "p99"}

func clientCells(lane string, st model.Stats) []string {
	return []string{lane, itoa(st.Originals), itoa(st.Requests()), st.AmplificationText(), itoa(st.Served),
		itoa(st.Abandoned), itoa(st.TimedOut), itoa(st.Unfinished)}
}

// writeClientRows aligns rows, the first left columns to the left and the
// numbers to the right, and explains the columns.
func writeClientRows(w io.Writer, rows [][]string, left int) {
	alignCells(w, clientsRight(left), rows)
	writeClientsNotes(w)
}

// clientsRight aligns a clients' table: its first left columns (the lane,
// and the key by key) to the left, the numbers after them to the right.
func clientsRight(left int) func(c int) bool {
	return func(c int) bool { return c >= left }
}

// writeClientsNotes explains a clients' table's columns.
func writeClientsNotes(w io.Writer) {
	fmt.Fprintln(w, "requests count every attempt; ×: attempts ÷ originals, the load retries multiply the traffic by")
	fmt.Fprintln(w, "served: finally admitted; abandoned: the client gave up (deadline: of them, at its deadline); unfinished: the next attempt came after the end")
}

// WriteSummary prints per lane the requests, admitted, delayed, rejected,
// the peak admitted cost in any trailing window, and the state per key: the
// most bytes one key's state took after a request (model.Stats.KeyBytes).
func WriteSummary(w io.Writer, lanes []model.Lane, stats []model.Stats) {
	var window time.Duration
	if len(stats) > 0 {
		window = stats[0].PeakWindow
	}
	gateways := slices.ContainsFunc(lanes, func(l model.Lane) bool { return !l.Fleet.Plain() })
	outages := slices.ContainsFunc(lanes, func(l model.Lane) bool { return len(l.Fleet.Outages) > 0 })
	forgets := slices.ContainsFunc(lanes, func(l model.Lane) bool { return l.Fleet.Forgets() })
	dryRuns := slices.ContainsFunc(lanes, func(l model.Lane) bool { return l.Policy.DryRun })
	head := append(summaryHead(nil, window), "state/key")
	if gateways {
		head = append(head, "beyond")
	}
	if outages {
		head = append(head, "fallback ✓", "fallback ✗")
	}
	if forgets {
		head = append(head, "forgot")
	}
	if dryRuns {
		head = append(head, "dry delayed", "dry rejected")
	}
	rows := [][]string{head}
	for i, l := range lanes {
		row := append(summaryRow(l, nil, stats[i]), model.FormatBytes(stats[i].KeyBytes))
		if gateways {
			row = append(row, beyondText(l, stats[i].Beyond))
		}
		if outages {
			row = append(row, itoa(stats[i].FallbackAdmitted), itoa(stats[i].FallbackRejected))
		}
		if forgets {
			if l.Fleet.Forgets() {
				row = append(row, beyondText(l, stats[i].Forgot))
			} else {
				row = append(row, "–")
			}
		}
		if dryRuns {
			row = append(row, itoa(stats[i].DryRunDelayed), itoa(stats[i].DryRunRejected))
		}
		rows = append(rows, row)
	}
	writeSummaryRows(w, rows, window)
	fmt.Fprintln(w, "state/key: the most bytes one key's state took after a request (a sliding log's grows with its recent admissions)")
	if gateways {
		fmt.Fprintln(w, "beyond: requests a lane of several gateways admitted beyond its policy on one shared atomic store, fed the same traffic")
	}
	if outages {
		fmt.Fprintln(w, "fallback: requests decided while the lane's store did not answer (its refusals are 503s, not 429s), counted in admitted and rejected too")
	}
	if forgets {
		fmt.Fprintln(w, "forgot: requests admitted through an idle expiry or a store that came back empty, beyond the same lane forgetting nothing (part of beyond)")
	}
	if dryRuns {
		fmt.Fprintln(w, "dry delayed, dry rejected: requests a dry_run lane let through at once that it would have delayed or refused (counted in admitted)")
	}
	for i, l := range lanes {
		if t, ok := model.TwinIn(lanes, i); ok {
			fmt.Fprintf(w, "%s, a mistake, admitted %s %s, its exact twin\n", l.Name, twinDifference(stats[i].Admitted, stats[t].Admitted), lanes[t].Name)
		}
	}
}

// beyondText is a lane's admissions beyond its policy, "+30", "0", or "–"
// for a lane of one gateway (its own yardstick).
func beyondText(l model.Lane, n int64) string {
	switch {
	case l.Fleet.Plain():
		return "–"
	case n > 0:
		return "+" + itoa(n)
	}
	return itoa(n)
}

// twinDifference is how a mistake's admissions compare with its twin's:
// "3 more than", "2 fewer than", "as many as".
func twinDifference(mine, exact int64) string {
	switch {
	case mine > exact:
		return itoa(mine-exact) + " more than"
	case mine < exact:
		return itoa(exact-mine) + " fewer than"
	}
	return "as many as"
}

// WriteSummaryByKey prints the summary with one row per lane per key, after
// the lane a key column: the totals and the peak of that key's requests
// alone, over peakWindow. Rows go lane by lane, each lane's keys in the order
// of byKey.
func WriteSummaryByKey(w io.Writer, lanes []model.Lane, peakWindow time.Duration, byKey []model.KeyStats) {
	rows := [][]string{summaryHead([]string{"key"}, peakWindow)}
	for i, l := range lanes {
		for _, k := range byKey {
			rows = append(rows, summaryRow(l, []string{k.Key}, k.Lanes[i]))
		}
	}
	writeSummaryRows(w, rows, peakWindow)
}

// WriteSummaryKeys is WriteSummaryByKey reading each key's totals from
// kt (model.RunKeys), in two passes, the columns' widths and then the
// rows (alignRows): it holds one row at a time, whatever the keys, and a
// cell allocates nothing (a row of strings, six times a key, was most of
// the time of a run of many keys).
func WriteSummaryKeys(w io.Writer, lanes []model.Lane, peakWindow time.Duration, kt *model.KeyTotals) {
	head := summaryHead([]string{"key"}, peakWindow)
	policies := make([]string, len(lanes))
	for i, l := range lanes {
		policies[i] = summaryPolicy(l)
	}
	alignKeys(w, summaryRight(slices.Index(head, "policy")), head, lanes, kt, func(t *columns, lane int, st model.Stats) {
		t.text(policies[lane])
		for _, n := range summaryCounts(&st) {
			t.int(n)
		}
		t.num = appendPeak(t.num[:0], &st)
		t.bytes(t.num)
	})
	writePeakNote(w, peakWindow)
}

// summaryCounts are the four counts of a summary row.
func summaryCounts(st *model.Stats) [4]int64 {
	return [4]int64{st.Requests(), st.Admitted, st.Delayed, st.Rejected}
}

// appendPeak appends a summary row's peak: "12 by 3.5s", or "0".
func appendPeak(b []byte, st *model.Stats) []byte {
	if st.Peak <= 0 {
		return append(b, '0')
	}
	b = strconv.AppendInt(b, st.Peak, 10)
	b = append(b, " by "...)
	return algorithms.AppendSeconds(b, st.PeakAt)
}

// summaryHead is the header row, with extra columns after the lane's name;
// a zero window leaves the peak's window unsaid.
func summaryHead(extra []string, window time.Duration) []string {
	peakHead := "peak"
	if window > 0 {
		peakHead = "peak per " + algorithms.FormatSeconds(window)
	}
	return slices.Concat([]string{"lane"}, extra, []string{"policy", "requests", "admitted", "delayed", "rejected", peakHead})
}

func summaryRow(l model.Lane, extra []string, st model.Stats) []string {
	peak := "0"
	if st.Peak > 0 {
		peak = fmt.Sprintf("%d by %s", st.Peak, algorithms.FormatSeconds(st.PeakAt))
	}
	return slices.Concat([]string{l.Name}, extra, []string{summaryPolicy(l), itoa(st.Requests()), itoa(st.Admitted),
		itoa(st.Delayed), itoa(st.Rejected), peak})
}

// summaryPolicy is a summary row's policy: the lane's, its stack's or its
// fleet's.
func summaryPolicy(l model.Lane) string {
	policy := l.Policy.String()
	if l.Stack != nil {
		policy = StackText(l.Stack)
	}
	if !l.Fleet.Plain() {
		policy += " " + l.Fleet.Short()
	}
	return policy
}

// writeSummaryRows aligns the columns (summaryRight) and adds the peak's
// footnote.
func writeSummaryRows(w io.Writer, rows [][]string, window time.Duration) {
	alignCells(w, summaryRight(slices.Index(rows[0], "policy")), rows)
	writePeakNote(w, window)
}

// summaryRight aligns a summary whose policy is column policy: the four
// counts after it and every column after the peak (the state, beyond,
// fallbacks, forgot) to the right, the rest to the left.
func summaryRight(policy int) func(c int) bool {
	return func(c int) bool { return c > policy && c <= policy+4 || c > policy+5 }
}

// writePeakNote explains the peak column over window; a zero window, which
// the header leaves unsaid too, has none.
func writePeakNote(w io.Writer, window time.Duration) {
	if window > 0 {
		fmt.Fprintf(w, "peak: the largest admitted cost passing in any trailing %s window (a delayed request passes on release)\n",
			algorithms.FormatSeconds(window))
	}
}

// StackText is a stacked lane's policies in one line: "token-bucket
// capacity 10, rate 1/s + fixed-window limit 200 per 1s over all keys".
func StackText(layers []algorithms.Layer) string {
	parts := make([]string, len(layers))
	for i, l := range layers {
		parts[i] = l.Policy.String()
		if l.AllKeys {
			parts[i] += " over all keys"
		}
	}
	return strings.Join(parts, " + ")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

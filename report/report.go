// Package report writes what the lanes decided, for the command line: an
// aligned table, JSON Lines, or a per-lane summary. Writers stream: they hold
// one record at a time, never the whole run.
package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

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
		return &jsonWriter{w: bw, lanes: lanes, clients: clients}
	case Summary:
		return &summaryWriter{w: bw, lanes: lanes, clients: len(clients) > 0}
	}
	return newTableWriter(bw, lanes, keys, len(clients) > 0)
}

// tableWriter prints one aligned row per request per lane. Column widths come
// from the lane names and keys known up front, so rows stream.
type tableWriter struct {
	w          *bufio.Writer
	lanes      []model.Lane
	laneWidth  int
	keyWidth   int
	wroteHeads bool
	// tries adds the attempt's number after the cost, for a scenario
	// with clients.
	tries bool
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
	d := r.Decision
	try, then := "", ""
	if t.tries {
		try = fmt.Sprintf("%3d  ", r.Attempt.N)
		then = "; " + r.Attempt.Then()
	}
	_, err := fmt.Fprintf(t.w, "%*s  %-*s  %-*s  %4d  %s%-8s  %-12s  %s%s\n",
		timeWidth, algorithms.FormatSeconds(r.Request.At), t.laneWidth, t.lanes[r.Lane].Name,
		t.keyWidth, r.Request.Key, r.Request.Cost, try, d.Outcome, Wait(d), d.Explain(), then)
	return err
}

func (t *tableWriter) Close([]model.Stats) error {
	t.head()
	return t.w.Flush()
}

// Wait describes the time a decision makes the client wait: "+0.5s" for a
// delay, "retry 0.25s" for a rejection, "never" when it can never fit.
func Wait(d algorithms.Decision) string {
	switch {
	case d.Outcome == algorithms.Delayed:
		return "+" + algorithms.FormatSeconds(d.Delay)
	case d.Outcome == algorithms.Rejected && d.RetryAfter == algorithms.Never:
		return "never"
	case d.Outcome == algorithms.Rejected:
		return "retry " + algorithms.FormatSeconds(d.RetryAfter)
	}
	return ""
}

// jsonRecord is one line of --format json. Times are integer nanoseconds.
type jsonRecord struct {
	AtNs         int64  `json:"at_ns"`
	Lane         string `json:"lane"`
	Key          string `json:"key"`
	Cost         int64  `json:"cost"`
	Outcome      string `json:"outcome"`
	DelayNs      int64  `json:"delay_ns"`
	RetryAfterNs int64  `json:"retry_after_ns"`
	// RetryAfterS is the HTTP Retry-After header in whole seconds, rounded
	// up; -1 when the request can never fit (RetryAfterNs is then -1 too).
	// Lanes whose library sends no such header (nginx, Envoy) or replies
	// with its own rounding (redis-cell) still get this figure: their why
	// text says what the library itself tells the client.
	RetryAfterS int64 `json:"retry_after_s"`
	// Status is the HTTP status of a rejection: 429, or the lane's
	// library's own (nginx's limit_req: 503); absent for an admission.
	Status int `json:"status,omitempty"`
	// Gateway is the gateway that took the request (0-based; 0 for a lane
	// of one), and By what decided: "limiter", or "fallback" while its
	// store did not answer.
	Gateway int    `json:"gateway"`
	By      string `json:"by"`
	Index   int    `json:"index"`
	// Attempt is the try's number (1 for the request itself), Client the
	// name of the request's client ("" for none), Fate what became of the
	// request after this try: served, retrying, abandoned or unfinished.
	Attempt int    `json:"attempt"`
	Client  string `json:"client"`
	Fate    string `json:"fate"`
	Why     string `json:"why"`
}

type jsonWriter struct {
	w       *bufio.Writer
	lanes   []model.Lane
	clients []scenarios.Client
}

func (j *jsonWriter) Record(r model.Record) error {
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
	line, err := json.Marshal(jsonRecord{
		AtNs: int64(r.Request.At), Lane: j.lanes[r.Lane].Name, Key: r.Request.Key, Cost: r.Request.Cost,
		Outcome: d.Outcome.String(), DelayNs: int64(d.Delay), RetryAfterNs: retry,
		RetryAfterS: d.RetryAfterSeconds(), Status: status, Gateway: int(d.Gateway), By: by, Index: r.Index,
		Attempt: r.Attempt.N, Client: client, Fate: r.Attempt.Fate.String(), Why: d.Explain(),
	})
	if err != nil {
		return err
	}
	j.w.Write(line)
	return j.w.WriteByte('\n')
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
	rows := [][]string{{"lane", "key", "originals", "attempts", "×", "served", "abandoned", "deadline", "unfinished", "latency p50", "p95", "p99"}}
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

func clientCells(lane string, st model.Stats) []string {
	return []string{lane, itoa(st.Originals), itoa(st.Requests()), st.AmplificationText(), itoa(st.Served),
		itoa(st.Abandoned), itoa(st.TimedOut), itoa(st.Unfinished)}
}

// writeClientRows aligns rows, the first left columns to the left and the
// numbers to the right, and explains the columns.
func writeClientRows(w io.Writer, rows [][]string, left int) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for c, cell := range row {
			widths[c] = max(widths[c], len([]rune(cell)))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for c, cell := range row {
			pad := strings.Repeat(" ", widths[c]-len([]rune(cell)))
			switch {
			case c == 0:
				b.WriteString(cell + pad)
			case c < left:
				b.WriteString("  " + cell + pad)
			default:
				b.WriteString("  " + pad + cell)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
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
	policy := l.Policy.String()
	if l.Stack != nil {
		policy = StackText(l.Stack)
	}
	if !l.Fleet.Plain() {
		policy += " " + l.Fleet.Short()
	}
	return slices.Concat([]string{l.Name}, extra, []string{policy, itoa(st.Requests()), itoa(st.Admitted),
		itoa(st.Delayed), itoa(st.Rejected), peak})
}

// writeSummaryRows aligns the columns, the four counts (after the policy)
// and a state column after the peak to the right, and adds the peak's
// footnote.
func writeSummaryRows(w io.Writer, rows [][]string, window time.Duration) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for c, cell := range row {
			widths[c] = max(widths[c], len([]rune(cell)))
		}
	}
	policy := slices.Index(rows[0], "policy")
	last := len(widths) - 1
	for _, row := range rows {
		var b strings.Builder
		for c, cell := range row {
			pad := strings.Repeat(" ", widths[c]-len([]rune(cell)))
			if c > policy && c <= policy+4 || c > policy+5 { // numbers align right
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
			if c < last {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
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

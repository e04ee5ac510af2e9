package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"ratelab/algorithms"
	"ratelab/fit"
)

// FitView shapes what WriteFit writes.
type FitView struct {
	// TopKeys is how many of the keys above the quantile a ByKey fit lists
	// per frontier, largest need first; 0 lists 10.
	TopKeys int
	// NoChart leaves out each frontier's picture.
	NoChart bool
}

// WriteFit writes a fit's result for the command line: a line on the
// traffic, then per algorithm a table of its frontier (rate or window →
// the smallest size refusing nothing, the knee marked ◆, what the real
// limiters said where they ran, the quantile's size for a ByKey fit and
// the budget's when refusals were allowed), a picture of the frontier,
// the knee's policy, and for a ByKey fit the keys above the quantile.
func WriteFit(w io.Writer, r *fit.Result, v FitView) error {
	if v.TopKeys == 0 {
		v.TopKeys = 10
	}
	bw := bufio.NewWriter(w)
	writeFitHead(bw, r)
	for i := range r.Frontiers {
		bw.WriteByte('\n')
		writeFrontier(bw, r, &r.Frontiers[i], v)
	}
	return bw.Flush()
}

// writeFitHead is the line on the traffic and how it was fitted.
func writeFitHead(w io.Writer, r *fit.Result) {
	head := fmt.Sprintf("fit of %s requests (cost %s) from %s to %s, %s %s: ", algorithms.Thousands(r.Requests), algorithms.Thousands(r.Cost),
		algorithms.FormatSeconds(r.First), algorithms.FormatSeconds(r.Last), algorithms.Thousands(int64(r.Keys)), plural(int64(r.Keys), "key", "keys"))
	if r.ByKey {
		head += fmt.Sprintf("one limiter state a key; sizes are the largest any key needs, %s the %s quantile of the keys' needs",
			quantileName(r.KeyShare), ppmText(r.KeyShare))
	} else {
		head += "one limiter state for all the traffic"
	}
	io.WriteString(w, Wrapped("", head, "  "))
	if r.RejectAtMost > 0 {
		io.WriteString(w, Wrapped("", fmt.Sprintf("budget: the smallest size refusing at most %s of the requests, measured by the real limiters", ppmText(r.RejectAtMost)), "  "))
	}
}

// writeFrontier is one algorithm's table, picture, knee and top keys.
func writeFrontier(w io.Writer, r *fit.Result, f *fit.Frontier, v FitView) {
	fmt.Fprintf(w, "%s: %s (%s) by %s\n", f.Algorithm, f.SizeName, sizeUnit(f), axisName(f.Axis))
	if len(f.Points) == 0 {
		fmt.Fprintln(w, "  no point to fit: no rate the algorithm takes, or no traffic")
		return
	}
	waits := false
	for _, p := range f.Points {
		waits = waits || p.LongestWait > 0
	}
	head := []string{"  " + axisName(f.Axis), "", f.SizeName}
	if waits {
		head = append(head, "longest wait")
	}
	if r.ByKey {
		head = append(head, quantileName(r.KeyShare))
	}
	if r.RejectAtMost > 0 {
		head = append(head, "≤ "+ppmText(r.RejectAtMost)+" refused")
	}
	rows := [][]string{head}
	for i, p := range f.Points {
		mark := ""
		if i == f.Knee {
			mark = "◆"
		}
		row := []string{"  " + axisValue(f.Axis, p), mark}
		if !p.Feasible {
			rows = append(rows, append(row, "—"))
			continue
		}
		row = append(row, itoa(p.Size))
		if waits {
			row = append(row, algorithms.FormatSeconds(p.LongestWait))
		}
		if r.ByKey {
			row = append(row, itoa(p.Quantile.Size))
		}
		if r.RejectAtMost > 0 {
			row = append(row, budgetText(p.Budget))
		}
		rows = append(rows, row)
	}
	// Right-aligned: the size and every number after it.
	alignCells(w, func(c int) bool { return c >= 2 }, rows)
	writeInfeasible(w, f)
	writeConfirmations(w, f)
	if !v.NoChart {
		writeChart(w, f)
	}
	if f.Knee < 0 {
		fmt.Fprintln(w, "  knee: none, no point is feasible")
		return
	}
	k := f.Points[f.Knee]
	fmt.Fprintf(w, "  knee ◆: %s\n", k.Policy)
	if q := k.Quantile; q != nil {
		writeTopKeys(w, r, f, k, v.TopKeys)
	}
}

// writeConfirmations says, under the table, what the real limiters did
// where they ran (the knee, or every point), a line a point:
//
//	the real limiter over the whole traffic:
//	  1/s ◆: capacity 22 refuses 0; 21 refuses 6 of 2,400, the first at 120s
func writeConfirmations(w io.Writer, f *fit.Frontier) {
	var at, texts []string
	for i, p := range f.Points {
		if p.Feasible && p.Confirmation.Ran {
			at, texts = append(at, pointLabel(f, i)), append(texts, confirmationText(f, p))
		}
	}
	if len(at) > 0 {
		writePointLines(w, fmt.Sprintf("the real %s over the whole traffic:", plural(int64(len(at)), "limiter", "limiters")), at, texts)
	}
}

// writeInfeasible says, under the table, why no size fits where it shows
// "—".
func writeInfeasible(w io.Writer, f *fit.Frontier) {
	var at, texts []string
	for i, p := range f.Points {
		if !p.Feasible {
			at, texts = append(at, pointLabel(f, i)), append(texts, p.Why)
		}
	}
	if len(at) > 0 {
		writePointLines(w, "where no size fits (—):", at, texts)
	}
}

// pointLabel is point i's rate or window, the knee marked.
func pointLabel(f *fit.Frontier, i int) string {
	if i == f.Knee {
		return axisValue(f.Axis, f.Points[i]) + " ◆"
	}
	return axisValue(f.Axis, f.Points[i])
}

// writePointLines writes a title, then a line for each point: its label,
// padded to the longest, and its text, wrapped under itself.
func writePointLines(w io.Writer, title string, labels, texts []string) {
	width := 0
	for _, l := range labels {
		width = max(width, utf8.RuneCountInString(l))
	}
	fmt.Fprintf(w, "  %s\n", title)
	indent := strings.Repeat(" ", 4+width+2)
	for i, l := range labels {
		io.WriteString(w, Wrapped("    "+l+strings.Repeat(" ", width-utf8.RuneCountInString(l))+"  ", texts[i], indent))
	}
}

// confirmationText says what the real limiters did at a point: "capacity
// 12 refuses 0; 11 refuses 3 of 10,000, the first at 4.2s".
func confirmationText(f *fit.Frontier, p fit.Point) string {
	c := p.Confirmation
	if !c.Ran {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d refuses %s", f.SizeName, p.Size, algorithms.Thousands(c.Refused))
	switch {
	case !c.Confirmed:
		b.WriteString(": not confirmed")
	case c.SmallerValid:
		fmt.Fprintf(&b, "; %d refuses %s of %s, the first at %s", p.Size-1, algorithms.Thousands(c.SmallerRefused), algorithms.Thousands(c.Requests),
			algorithms.FormatSeconds(c.FirstRefusal))
	default:
		b.WriteString(", the smallest valid")
	}
	if c.Searched {
		b.WriteString(" (found by a search with real runs)")
	}
	return b.String()
}

// budgetText is a budget's size and what it and the size below refused.
func budgetText(b *fit.Budget) string {
	if b == nil {
		return "—"
	}
	s := itoa(b.Size) + " (" + algorithms.Thousands(b.Refused) + " refused"
	if b.SmallerValid {
		s += "; " + itoa(b.Size-1) + ": " + algorithms.Thousands(b.SmallerRefused)
	}
	return s + ")"
}

// writeTopKeys lists the keys the knee's quantile policy refuses.
func writeTopKeys(w io.Writer, r *fit.Result, f *fit.Frontier, k fit.Point, top int) {
	q := k.Quantile
	if len(q.Keys) == 0 {
		fmt.Fprintf(w, "  every key fits in %s %d at the knee\n", f.SizeName, q.Size)
		return
	}
	fmt.Fprintf(w, "  keys above the %s %s %d at the knee: %s of %s", quantileName(r.KeyShare), f.SizeName, q.Size,
		algorithms.Thousands(int64(len(q.Keys))), algorithms.Thousands(int64(r.Keys)))
	if len(q.Keys) > top {
		fmt.Fprintf(w, ", the %d that need most", top)
	}
	fmt.Fprintln(w)
	rows := [][]string{{"    key", "requests", "needs", "refused", "first", "last"}}
	for _, t := range q.Keys[:min(top, len(q.Keys))] {
		row := []string{"    " + t.Key, itoa(t.Requests), itoa(t.Size)}
		if q.Measured {
			row = append(row, itoa(t.Refused), algorithms.FormatSeconds(t.FirstRefusal), algorithms.FormatSeconds(t.LastRefusal))
		} else {
			row = append(row, "", "", "")
		}
		rows = append(rows, row)
	}
	alignCells(w, func(c int) bool { return c > 0 }, rows)
}

// chartWidth and chartRows are the picture's plot area, in columns and
// rows; each row holds eight levels (the block elements ▁ to █).
const (
	chartWidth = 60
	chartRows  = 8
)

var blocks = []rune(" ▁▂▃▄▅▆▇█")

// writeChart draws the frontier as bars, one a point in the order of the
// table, each as tall as its size over the largest (rounded up to an
// eighth of a row, so that a size above 0 shows); an infeasible point is
// a × on the axis. Under the axis, the first, knee's and last point's
// rate or window.
func writeChart(w io.Writer, f *fit.Frontier) {
	var top int64
	for _, p := range f.Points {
		top = max(top, p.Size)
	}
	if top == 0 {
		return
	}
	n := len(f.Points)
	slot := max(1, chartWidth/n)
	bar := max(1, slot-1)
	// eighths is each point's height in eighths of a row.
	eighths := make([]int64, n)
	for i, p := range f.Points {
		eighths[i] = (p.Size*chartRows*8 + top - 1) / top
	}
	label := itoa(top)
	pad := utf8.RuneCountInString(label)
	fmt.Fprintf(w, "  %s (%s), a bar a row of the table\n", f.SizeName, sizeUnit(f))
	for row := range chartRows {
		floor := int64(chartRows-1-row) * 8 // eighths below this row
		var line strings.Builder
		switch row {
		case 0:
			fmt.Fprintf(&line, "  %*s ┤", pad, label)
		case chartRows - 1:
			fmt.Fprintf(&line, "  %*s ┤", pad, "0")
		default:
			fmt.Fprintf(&line, "  %*s │", pad, "")
		}
		for i := range n {
			cell := ' '
			switch h := eighths[i] - floor; {
			case !f.Points[i].Feasible:
				if row == chartRows-1 {
					cell = '×'
				}
			case h >= 8:
				cell = blocks[8]
			case h > 0:
				cell = blocks[h]
			}
			line.WriteString(strings.Repeat(string(cell), bar))
			line.WriteString(strings.Repeat(" ", slot-bar))
		}
		fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
	}
	fmt.Fprintf(w, "  %*s └%s\n", pad, "", strings.Repeat("─", slot*n))
	// The labels, each at its bar unless it would run into the one before.
	ticks := []rune(strings.Repeat(" ", slot*n+20))
	end := 0
	for _, i := range []int{0, f.Knee, n - 1} {
		if i < 0 {
			continue
		}
		text := axisValue(f.Axis, f.Points[i])
		if i == f.Knee {
			text = "◆" + text
		}
		// The last label ends at the axis's end rather than past it.
		at := min(i*slot, slot*n-utf8.RuneCountInString(text))
		if at < end {
			continue
		}
		for j, r := range []rune(text) {
			if at+j < len(ticks) {
				ticks[at+j] = r
			}
		}
		end = at + utf8.RuneCountInString(text) + 1
	}
	fmt.Fprintf(w, "  %*s  %s\n", pad, "", strings.TrimRight(string(ticks), " "))
}

// axisName is what a frontier's points vary.
func axisName(a fit.Axis) string {
	if a == fit.ByWindow {
		return "window"
	}
	return "rate"
}

// axisValue is a point's rate ("2/s", "120/min") or window ("10s").
func axisValue(a fit.Axis, p fit.Point) string {
	if a == fit.ByWindow {
		return algorithms.FormatDuration(p.Window)
	}
	return p.Rate.String()
}

// sizeUnit is what a frontier's size counts.
func sizeUnit(f *fit.Frontier) string {
	switch {
	case f.Algorithm == algorithms.TokenBucket:
		return "tokens"
	case f.Axis == fit.ByWindow:
		return "cost per window"
	case f.Algorithm == algorithms.LeakyBucket:
		return "requests waiting"
	case f.Algorithm == algorithms.NginxLimitReq || f.Algorithm == algorithms.RedisCell:
		return "requests beyond the first"
	}
	return "requests at once"
}

// quantileName is a ByKey fit's quantile column: "p99", "p99.9".
func quantileName(share int64) string {
	return "p" + strings.TrimSuffix(ppmText(share), "%")
}

// ppmText writes parts per million as a percentage, exact: "1%",
// "0.05%", "99.99%".
func ppmText(ppm int64) string {
	s := strconv.FormatInt(ppm/10_000, 10)
	if frac := ppm % 10_000; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%04d", frac), "0")
	}
	return s + "%"
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

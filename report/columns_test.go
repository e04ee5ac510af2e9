package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// fmtAligned is what alignRows must write, by fmt: each cell padded with
// %-*s or %*s to its column's widest in runes, two spaces apart, trailing
// spaces trimmed.
func fmtAligned(rows [][]string, right func(int) bool) string {
	var widths []int
	for _, row := range rows {
		for c, cell := range row {
			if c == len(widths) {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		cells := make([]string, len(row))
		for c, cell := range row {
			if right(c) {
				cells[c] = fmt.Sprintf("%*s", widths[c], cell)
			} else {
				cells[c] = fmt.Sprintf("%-*s", widths[c], cell)
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(cells, "  "), " ") + "\n")
	}
	return b.String()
}

// TestColumnsAlignAsFmt: the aligner writes what fmt's padding writes,
// for cells of runes of several bytes, empty cells, cells ending in
// spaces, a last column aligned either way, and a header alone.
func TestColumnsAlignAsFmt(t *testing.T) {
	tests := []struct {
		name  string
		rows  [][]string
		right func(int) bool
	}{
		{"summary", [][]string{
			{"lane", "policy", "requests", "peak"},
			{"log", "sliding-log limit 3 per 2s", "40", "3 by 1.5s"},
			{"clé ünï", "token-bucket", "1200000", "0"},
		}, summaryRight(1)},
		{"clients, right to the end", [][]string{
			{"lane", "key", "×", "p99"},
			{"a", "clé ünïcödé ", "–", "1.5s"},
			{"bbbbbbbbbb", "", "10.25", "0s"},
		}, clientsRight(2)},
		{"a last cell ending in spaces", [][]string{{"a", "b  "}, {"ccc", "d"}}, clientsRight(9)},
		{"a header alone", [][]string{{"lane", "key", "policy"}}, summaryRight(2)},
		{"wider than 16 spaces", [][]string{{"x", "y"}, {strings.Repeat("é", 40), strings.Repeat("9", 37)}}, clientsRight(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bytes.Buffer
			alignCells(&got, tt.right, tt.rows)
			if want := fmtAligned(tt.rows, tt.right); got.String() != want {
				t.Errorf("got\n%q\nwant\n%q", got.String(), want)
			}
		})
	}
}

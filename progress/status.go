package progress

import (
	"math"
	"strconv"
	"time"
)

// separator divides the line's parts.
const separator = " · "

// appendStatus appends the progress line's text: lines read, bytes read
// (of total, when known), the mean rate since the start, and, when total
// is known, the percent read and the time left at that rate:
//
//	1,234,567 lines · 210.3 MiB of 412.0 MiB · 812,000 lines/s · 51% · 3s left
//	1,234,567 lines · 210.3 MiB · 812,000 lines/s
//
// The rate is left out before any time has passed, the time left before
// any byte has been read.
func appendStatus(b []byte, lines, bytes, total int64, elapsed time.Duration) []byte {
	b = appendGrouped(b, lines)
	b = append(b, " lines"...)
	b = append(b, separator...)
	b = appendSize(b, bytes)
	if total > 0 {
		b = append(b, " of "...)
		b = appendSize(b, total)
	}
	secs := elapsed.Seconds()
	if secs > 0 {
		b = append(b, separator...)
		b = appendGrouped(b, roundSignificant(float64(lines)/secs, 3))
		b = append(b, " lines/s"...)
	}
	if total > 0 {
		b = append(b, separator...)
		b = strconv.AppendInt(b, min(bytes, total)*100/total, 10)
		b = append(b, '%')
		if bytes > 0 && secs > 0 {
			left := float64(max(total-bytes, 0)) / (float64(bytes) / secs)
			b = append(b, separator...)
			b = appendLeft(b, left)
			b = append(b, " left"...)
		}
	}
	return b
}

// appendGrouped appends n with commas between groups of three digits:
// 1234567 → 1,234,567.
func appendGrouped(b []byte, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], n, 10)
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return b
}

// roundSignificant rounds x to n significant digits, so that a rate does
// not flicker in its last digits at every redraw: 812,345.6 → 812,000.
func roundSignificant(x float64, n int) int64 {
	if x < 1 {
		return int64(math.Round(x))
	}
	scale := math.Pow(10, math.Max(0, math.Floor(math.Log10(x))+1-float64(n)))
	return int64(math.Round(x/scale) * scale)
}

// appendSize appends a count of bytes in the largest binary unit it
// reaches, with one decimal: 512 B, 12.3 KiB, 210.3 MiB, 1.2 GiB.
func appendSize(b []byte, n int64) []byte {
	const unit = 1024
	if n < unit {
		b = strconv.AppendInt(b, n, 10)
		return append(b, " B"...)
	}
	x, i := float64(n)/unit, 0
	for x >= unit-0.05 && i < 3 { // 1023.97 KiB shows as 1.0 MiB, not 1024.0 KiB
		x /= unit
		i++
	}
	b = strconv.AppendFloat(b, x, 'f', 1, 64)
	return append(b, [...]string{" KiB", " MiB", " GiB", " TiB"}[i]...)
}

// appendLeft appends a time left, rounded up to the second, in the two
// largest units it has: 3s, 2m05s, 1h02m.
func appendLeft(b []byte, secs float64) []byte {
	s := int64(math.Ceil(secs))
	switch {
	case s < 60:
		b = strconv.AppendInt(b, s, 10)
		return append(b, 's')
	case s < 3600:
		b = strconv.AppendInt(b, s/60, 10)
		b = append(b, 'm')
		return appendTwoDigits(b, s%60, 's')
	}
	b = strconv.AppendInt(b, s/3600, 10)
	b = append(b, 'h')
	return appendTwoDigits(b, s/60%60, 'm')
}

func appendTwoDigits(b []byte, n int64, unit byte) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10), unit)
}

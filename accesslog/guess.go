package accesslog

// guessTimeKeys are the keys and columns Guess tries as a JSON or CSV
// format's time.
var guessTimeKeys = []string{"time", "timestamp", "ts", "@timestamp", "date", "datetime", "time_local", "time_iso8601", "msec"}

// Guess finds which format reads the most of lines, the first lines of a
// log: combined, common, JSON Lines with its time under one of the keys
// time, timestamp, ts, @timestamp, date, datetime, time_local,
// time_iso8601 or msec (unit auto), or CSV whose first line is a header
// with such a column. It returns that format and how many of lines it
// reads (a CSV header counting as read); of formats reading as many, the
// first in that order wins. With no line read by any it returns a zero
// Format and 0.
func Guess(lines []string) (Format, int) {
	var best Format
	bestN := 0
	try := func(f Format) {
		if n := countParsed(f, lines); n > bestN {
			best, bestN = f, n
		}
	}
	try(Combined)
	try(Common)
	for _, name := range []string{"json", "csv"} {
		for _, key := range guessTimeKeys {
			f, err := ParseFormat(name, "time="+key)
			if err != nil {
				panic(err) // the keys are all valid
			}
			try(f)
		}
	}
	return best, bestN
}

// countParsed counts the lines f reads, a CSV header included; a CSV
// header without the time column reads nothing.
func countParsed(f Format, lines []string) int {
	p := f.newParser()
	rec := &Record{}
	n := 0
	for _, line := range lines {
		rec.reset()
		rec.buf = append(rec.buf, line...)
		switch err := p.parse(rec); err {
		case nil, errHeader:
			n++
		default:
			if _, fatal := err.(*fatalError); fatal {
				return 0
			}
		}
	}
	return n
}

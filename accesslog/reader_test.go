package accesslog

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// at is a line of combined format at the second s past a fixed time,
// from the address addr.
func at(s int, addr string) string {
	t := time.Date(2024, 3, 1, 12, 0, 0, 0, zone(5, 30)).Add(time.Duration(s) * time.Second)
	return combinedLine(nginxEscape, addr, "", t, "GET /s"+fmt.Sprint(s)+" HTTP/1.1", 200, 10, "", "")
}

// short describes records by line and time past the fixed time of at.
func short(lines []string) []string {
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, zone(5, 30)).UnixNano()
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "error: ") {
			out = append(out, l)
			continue
		}
		var n int
		var ts string
		fmt.Sscanf(l, "line %d %s", &n, &ts)
		tm, _ := time.Parse(time.RFC3339Nano, ts)
		out = append(out, fmt.Sprintf("line %d +%v", n, time.Duration(tm.UnixNano()-base)))
	}
	return out
}

func TestLineEnds(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want, bad  []string
	}{{
		name: "BOM, CRLF, empty lines, a last line without newline",
		text: "\ufeff" + at(0, "a") + "\r\n\r\n\n" + at(1, "b") + "\r\n" + at(2, "c"),
		want: []string{"line 1 +0s", "line 4 +1s", "line 5 +2s"},
	}, {
		name: "a cut last line",
		text: at(0, "a") + "\n" + at(1, "b")[:40],
		want: []string{"line 1 +0s"},
		bad:  []string{`line 2: no closing '"' for $request opened at column 36 (the last line, which has no newline: cut short?)`},
	}, {
		name: "a BOM on a later line is not dropped",
		text: at(0, "a") + "\n\ufeff" + at(1, "b") + "\n",
		want: []string{"line 1 +0s", "line 2 +1s"},
	}, {
		name: "nothing",
		text: "",
	}, {
		name: "only a BOM and empty lines",
		text: "\ufeff\r\n\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, r := readAll(t, tc.text, Combined, Options{})
			diffLines(t, "records", short(got), tc.want)
			var bad []string
			for _, e := range r.BadLines() {
				bad = append(bad, e.Error())
			}
			diffLines(t, "bad lines", bad, tc.bad)
		})
	}
}

func TestBOMOnALaterLineIsKeptInTheAddress(t *testing.T) {
	got, _ := readAll(t, at(0, "a")+"\n\ufeff"+at(1, "b")+"\n", Combined, Options{})
	if len(got) != 2 || !strings.Contains(got[1], `remote_addr="\ufeffb"`) {
		t.Errorf("got %q", got)
	}
}

func TestOrder(t *testing.T) {
	lines := func(secs ...int) string {
		var b strings.Builder
		for i, s := range secs {
			b.WriteString(at(s, fmt.Sprint("10.0.0.", i)) + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name       string
		text       string
		lookBehind time.Duration
		want       []string
	}{{
		name: "in order, ties kept in file order",
		text: lines(0, 1, 1, 2),
		want: []string{"line 1 +0s", "line 2 +1s", "line 3 +1s", "line 4 +2s"},
	}, {
		name: "sorted within the look-behind",
		text: lines(10, 5, 70, 11, 10, 130),
		want: []string{"line 2 +5s", "line 1 +10s", "line 5 +10s", "line 4 +11s", "line 3 +1m10s", "line 6 +2m10s"},
	}, {
		name: "exactly the look-behind back is in time",
		text: lines(60, 0),
		want: []string{"line 2 +0s", "line 1 +1m0s"},
	}, {
		name: "beyond the look-behind: an error, then reading on",
		text: lines(0, 100, 30, 101),
		want: []string{"line 1 +0s", "error: line 3: 1m10s earlier than line 2, the latest so far, beyond the 1m0s look-behind", "line 2 +1m40s", "line 4 +1m41s"},
	}, {
		name:       "a longer look-behind",
		text:       lines(0, 100, 30, 101),
		lookBehind: 2 * time.Minute,
		want:       []string{"line 1 +0s", "line 3 +30s", "line 2 +1m40s", "line 4 +1m41s"},
	}, {
		name:       "no look-behind",
		text:       lines(0, 1, 1, 0, 2),
		lookBehind: NoLookBehind,
		want:       []string{"line 1 +0s", "line 2 +1s", "line 3 +1s", "error: line 4: 1s earlier than line 3, the latest so far, beyond the 0s look-behind", "line 5 +2s"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, r := readAll(t, tc.text, Combined, Options{LookBehind: tc.lookBehind})
			diffLines(t, "records", short(got), tc.want)
			wantOut := int64(strings.Count(strings.Join(tc.want, "\n"), "error: "))
			if s := r.Stats(); s.OutOfOrder != wantOut {
				t.Errorf("OutOfOrder = %d, want %d", s.OutOfOrder, wantOut)
			}
		})
	}
}

func TestOrderErrorNamed(t *testing.T) {
	r := NewReader(strings.NewReader(at(0, "a")+"\n"+at(100, "b")+"\n"+at(1, "c")+"\n"), "access.log", Combined, Options{})
	var errs []string
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		var oe *OrderError
		if errors.As(err, &oe) {
			errs = append(errs, err.Error())
			if oe.Line != 3 || oe.Latest != 2 || oe.Behind != 99*time.Second || oe.LookBehind != time.Minute {
				t.Errorf("%+v", oe)
			}
		}
	}
	diffLines(t, "errors", errs, []string{"access.log:3: 1m39s earlier than line 2, the latest so far, beyond the 1m0s look-behind"})
}

func TestMemoryIsBoundedByTheLookBehind(t *testing.T) {
	var b strings.Builder
	for s := range 5000 {
		b.WriteString(at(s, "10.0.0.1") + "\n")
		if s%7 == 3 { // one a little out of order
			b.WriteString(at(s-30, "10.0.0.2") + "\n")
		}
	}
	r := NewReader(strings.NewReader(b.String()), "", Combined, Options{})
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if held := len(r.order.fifo) - r.order.head + len(r.order.heap); held > 100 {
			t.Fatalf("%d records held", held)
		}
	}
	if made := len(r.free); made > 100 {
		t.Errorf("%d records made for a minute's look-behind of one a second", made)
	}
	if s := r.Stats(); s.Records != 5000+714 || s.OutOfOrder != 0 {
		t.Errorf("%+v", s)
	}
}

func TestSpreadEven(t *testing.T) {
	text := at(0, "a") + "\n" + at(0, "b") + "\n" + at(0, "c") + "\n" + at(2, "d") + "\n" + at(1, "e") + "\n" + at(1, "f") + "\n"
	got, _ := readAll(t, text, Combined, Options{Spread: SpreadEven})
	diffLines(t, "records", short(got), []string{
		"line 1 +0s", "line 2 +333.333333ms", "line 3 +666.666666ms",
		"line 5 +1s", "line 6 +1.5s",
		"line 4 +2s",
	})

	msec := mustFormat(t, "nginx", `$msec $status`)
	got, _ = readAll(t, "1700000000.250 200\n", msec, Options{Spread: SpreadEven})
	diffLines(t, "msec", got, []string{"error: spreading evenly needs times in whole seconds, and nginx $msec $status has times in steps of 1ms"})

	got, _ = readAll(t, `{"time":"2024-03-01T12:00:00.5Z"}`+"\n", mustFormat(t, "json", ""), Options{Spread: SpreadEven})
	diffLines(t, "json", got, []string{"error: spreading evenly needs times in whole seconds, and json has times in steps of 1ms"})

	got, _ = readAll(t, `{"time":"2024-03-01T12:00:00Z"}`+"\n"+`{"time":"2024-03-01T12:00:00Z"}`+"\n", mustFormat(t, "json", ""), Options{Spread: SpreadEven})
	diffLines(t, "json in seconds", got, []string{
		`line 1 2024-03-01T12:00:00Z status=0 time="2024-03-01T12:00:00Z"`,
		`line 2 2024-03-01T12:00:00.5Z status=0 time="2024-03-01T12:00:00Z"`,
	})
}

func TestSpreadKeepsItsSecondAcrossAnOrderError(t *testing.T) {
	text := at(100, "a") + "\n" + at(100, "b") + "\n" + at(0, "late") + "\n" + at(100, "c") + "\n" + at(101, "d") + "\n"
	got, _ := readAll(t, text, Combined, Options{Spread: SpreadEven})
	diffLines(t, "records", short(got), []string{
		"error: line 3: 1m40s earlier than line 2, the latest so far, beyond the 1m0s look-behind",
		"line 1 +1m40s", "line 2 +1m40.333333333s", "line 4 +1m40.666666666s", "line 5 +1m41s",
	})
}

func TestGzip(t *testing.T) {
	var z bytes.Buffer
	for _, part := range []string{at(0, "a") + "\n" + at(1, "b") + "\n", at(2, "c")} {
		w := gzip.NewWriter(&z)
		io.WriteString(w, part)
		w.Close()
	}
	for _, name := range []string{"access.log.gz", "access.log", ""} {
		n := 0
		each(t, NewReader(bytes.NewReader(z.Bytes()), name, Combined, Options{}), func(Record) { n++ })
		if n != 3 {
			t.Errorf("%s: %d records from two gzip members, want 3", name, n)
		}
	}

	r := NewReader(strings.NewReader(at(0, "a")+"\n"), "access.log.gz", Combined, Options{})
	if _, err := r.Next(); err == nil || err.Error() != "access.log.gz: named .gz but not gzip data (no gzip magic bytes)" {
		t.Errorf("plain text named .gz: %v", err)
	}
	cut := z.Bytes()[:z.Len()-12]
	r = NewReader(bytes.NewReader(cut), "cut.gz", Combined, Options{})
	var err error
	for err == nil {
		_, err = r.Next()
	}
	if err.Error() != "cut.gz: unexpected EOF" {
		t.Errorf("a cut gzip stream: %v", err)
	}
}

func TestStrict(t *testing.T) {
	text := at(0, "a") + "\n" + "garbage\n" + at(1, "b") + "\n"
	got, _ := readAll(t, text, Combined, Options{Strict: true})
	// The error comes at once, before line 1, still held for ordering.
	diffLines(t, "strict", got, []string{"error: line 2: no ' ' after $remote_addr at column 1"})

	r := NewReader(strings.NewReader(text), "x.log", Combined, Options{Strict: true})
	var err error
	for err == nil {
		_, err = r.Next()
	}
	var le *LineError
	if !errors.As(err, &le) || le.Error() != "x.log:2: no ' ' after $remote_addr at column 1" || le.Line != 2 {
		t.Errorf("%v", err)
	}
}

func TestBadLinesKeptAndCounted(t *testing.T) {
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "bad %d\n", i)
	}
	b.WriteString(at(0, "a") + "\n")
	for _, tc := range []struct {
		keep, want int
	}{{0, 5}, {2, 2}, {-1, 0}, {20, 10}} {
		_, r := readAll(t, b.String(), Combined, Options{KeepBad: tc.keep})
		if len(r.BadLines()) != tc.want || r.Stats().Bad != 10 || r.Stats().Records != 1 {
			t.Errorf("KeepBad %d: kept %d, stats %+v", tc.keep, len(r.BadLines()), r.Stats())
		}
	}
}

func TestLongLines(t *testing.T) {
	long := at(0, strings.Repeat("x", 200_000))
	text := long + "\n" + at(1, "b") + "\n" + long
	got, r := readAll(t, text, Combined, Options{MaxLineBytes: 1000})
	diffLines(t, "records", short(got), []string{"line 2 +1s"})
	var bad []string
	for _, e := range r.BadLines() {
		bad = append(bad, e.Error())
	}
	diffLines(t, "bad", bad, []string{"line 1: longer than 1000 bytes", "line 3: longer than 1000 bytes"})

	got, _ = readAll(t, text, Combined, Options{})
	if len(got) != 3 || !strings.Contains(got[0], strings.Repeat("x", 200_000)) {
		t.Errorf("a 200 kB line under the default bound was not read")
	}
}

func TestDiagnosisAndGuess(t *testing.T) {
	common := `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`
	json := `{"ts":1700000000,"path":"/"}`
	csv := "when,ip\n2024-03-01T12:00:00Z,10.0.0.1\n2024-03-01T12:00:01Z,10.0.0.2\n"
	for _, tc := range []struct {
		name string
		f    Format
		text string
		want string
	}{{
		name: "common read as combined",
		f:    Combined,
		text: strings.Repeat(common+"\n", 3) + at(0, "a") + "\n",
		want: "3 of 4 lines did not parse as combined: the format is probably wrong; the first 4 lines parse best as common (3 of 4)",
	}, {
		name: "json read as combined",
		f:    Combined,
		text: strings.Repeat(json+"\n", 4),
		want: "4 of 4 lines did not parse as combined: the format is probably wrong; the first 4 lines parse best as json time=ts (4 of 4)",
	}, {
		name: "csv read as json",
		f:    mustFormat(t, "json", ""),
		text: csv,
		want: "3 of 3 lines did not parse as json: the format is probably wrong; no built-in format fits the first lines better",
	}, {
		name: "half good",
		f:    Combined,
		text: common + "\n" + at(0, "a") + "\n",
	}, {
		name: "garbage",
		f:    Common,
		text: "a\nb\nc\n",
		want: "3 of 3 lines did not parse as common: the format is probably wrong; no built-in format fits the first lines better",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := readAll(t, tc.text, tc.f, Options{})
			if got := r.Diagnosis(); got != tc.want {
				t.Errorf("Diagnosis()\n got %q\nwant %q", got, tc.want)
			}
		})
	}

	for _, tc := range []struct {
		lines []string
		want  string
		n     int
	}{
		{[]string{at(0, "a"), at(1, "b")}, "combined", 2},
		{[]string{common}, "common", 1},
		{[]string{json, json, "x"}, "json time=ts", 2},
		{[]string{`{"@timestamp":"2024-03-01T12:00:00Z"}`}, "json time=@timestamp", 1},
		{strings.Split("timestamp,ip\n1700000000,10.0.0.1", "\n"), "csv time=timestamp", 2},
		{[]string{"nothing"}, "", 0},
		{nil, "", 0},
	} {
		f, n := Guess(tc.lines)
		if f.String() != tc.want || n != tc.n {
			t.Errorf("Guess(%q) = %s, %d, want %s, %d", tc.lines, f, n, tc.want, tc.n)
		}
	}
}

func TestOrderMatchesASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		lookBehind := time.Duration(rng.IntN(90)) * time.Second
		var b strings.Builder
		type want struct{ s, line int }
		var wants []want
		latest := 0
		for i := range 300 {
			s := latest + rng.IntN(5) - rng.IntN(int(lookBehind/time.Second)+1)
			if s < 0 {
				s = 0
			}
			latest = max(latest, s)
			b.WriteString(at(s, "a") + "\n")
			wants = append(wants, want{s, i + 1})
		}
		slices.SortStableFunc(wants, func(a, b want) int { return a.s - b.s })
		var expect []string
		for _, w := range wants {
			expect = append(expect, fmt.Sprintf("line %d +%v", w.line, time.Duration(w.s)*time.Second))
		}
		got, _ := readAll(t, b.String(), Combined, Options{LookBehind: lookBehind})
		if g, w := strings.Join(short(got), "\n"), strings.Join(expect, "\n"); g != w {
			t.Fatalf("round %d, look-behind %v: the order differs from a sort", round, lookBehind)
		}
	}
}

func TestZeroFormat(t *testing.T) {
	got, _ := readAll(t, at(0, "a")+"\n", Format{}, Options{})
	diffLines(t, "records", got, []string{"error: accesslog: no format (the zero Format); make one with ParseFormat"})
}

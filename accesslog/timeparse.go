package accesslog

import "time"

// months are the English three-letter month names $time_local uses.
var months = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseTimeLocal reads nginx's $time_local and Apache's %t (without the
// brackets): "10/Oct/2000:13:55:36 -0700", exactly 26 bytes.
func parseTimeLocal(b []byte) (int64, bool) {
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' {
		return 0, false
	}
	day, ok1 := digits(b[0:2])
	year, ok2 := digits(b[7:11])
	hour, ok3 := digits(b[12:14])
	min, ok4 := digits(b[15:17])
	sec, ok5 := digits(b[18:20])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return 0, false
	}
	month := 0
	for i, m := range months {
		if string(b[3:6]) == m {
			month = i + 1
			break
		}
	}
	off, ok := zoneOffset(b[21], b[22:24], b[24:26])
	if month == 0 || !ok || !validClock(year, month, day, hour, min, sec) {
		return 0, false
	}
	return unixNano(year, month, day, hour, min, sec, 0, off), true
}

// parseRFC3339 reads an RFC 3339 time, "2000-10-10T13:55:36-07:00" with
// any fraction of a second after the seconds (digits past the ninth are
// dropped), 'Z' or an offset, 'T', 't' or a space between date and time.
// frac is how many fraction digits it had.
func parseRFC3339(b []byte) (ns int64, frac int, ok bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[13] != ':' || b[16] != ':' {
		return 0, 0, false
	}
	if c := b[10]; c != 'T' && c != 't' && c != ' ' {
		return 0, 0, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	min, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || !validClock(year, month, day, hour, min, sec) {
		return 0, 0, false
	}
	rest := b[19:]
	var nanos int64
	if rest[0] == '.' {
		rest = rest[1:]
		scale := int64(1e8)
		for len(rest) > 0 && '0' <= rest[0] && rest[0] <= '9' {
			nanos += int64(rest[0]-'0') * scale
			scale /= 10
			frac++
			rest = rest[1:]
		}
		if frac == 0 {
			return 0, 0, false
		}
	}
	var off int
	switch {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
	case len(rest) == 6 && rest[3] == ':':
		if off, ok = zoneOffset(rest[0], rest[1:3], rest[4:6]); !ok {
			return 0, 0, false
		}
	default:
		return 0, 0, false
	}
	return unixNano(year, month, day, hour, min, sec, nanos, off), frac, true
}

// Epoch units: how many nanoseconds one unit is.
const (
	unitSecond      = int64(time.Second)
	unitMillisecond = int64(time.Millisecond)
	unitMicrosecond = int64(time.Microsecond)
	unitNanosecond  = int64(time.Nanosecond)
)

// inferUnit is the unit of an epoch count whose whole part is whole: a
// count below 1e11 is seconds (up to the year 5138), below 1e14
// milliseconds, below 1e17 microseconds, and nanoseconds beyond, so that
// any time from 1973 on is read in its own unit.
func inferUnit(whole int64) int64 {
	switch {
	case whole < 1e11:
		return unitSecond
	case whole < 1e14:
		return unitMillisecond
	case whole < 1e17:
		return unitMicrosecond
	}
	return unitNanosecond
}

// splitDecimal reads a non-negative decimal "123" or "123.456": its whole
// part and the fraction's digits. ok is false for anything else,
// including a whole part past int64.
func splitDecimal(b []byte) (whole int64, frac []byte, ok bool) {
	i := 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		if whole > (1<<63-1-9)/10 {
			return 0, nil, false
		}
		whole = whole*10 + int64(b[i]-'0')
	}
	if i == 0 {
		return 0, nil, false
	}
	if i == len(b) {
		return whole, nil, true
	}
	if b[i] != '.' || i+1 == len(b) {
		return 0, nil, false
	}
	frac = b[i+1:]
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, nil, false
		}
	}
	return whole, frac, true
}

// parseEpoch reads a decimal count of unit (unitSecond ... unitNanosecond;
// 0 infers it from the whole part by inferUnit) since the Unix epoch, as
// nanoseconds; fraction digits finer than a nanosecond are dropped. It
// returns the unit used.
func parseEpoch(b []byte, unit int64) (ns, used int64, ok bool) {
	whole, frac, ok := splitDecimal(b)
	if !ok {
		return 0, 0, false
	}
	if unit == 0 {
		unit = inferUnit(whole)
	}
	if whole > (1<<63-1)/unit {
		return 0, 0, false
	}
	ns = whole * unit
	for scale := unit / 10; len(frac) > 0 && scale > 0; scale /= 10 {
		ns += int64(frac[0]-'0') * scale
		frac = frac[1:]
	}
	if ns < 0 {
		return 0, 0, false
	}
	return ns, unit, true
}

// digits reads a fixed-width run of decimal digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// zoneOffset reads "+hhmm" split as sign, hh, mm into seconds east of UTC.
func zoneOffset(sign byte, hh, mm []byte) (int, bool) {
	h, ok1 := digits(hh)
	m, ok2 := digits(mm)
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	switch sign {
	case '+':
		return off, true
	case '-':
		return -off, true
	}
	return 0, false
}

// validClock reports whether the fields name a real date from 1678 to
// 2261 (whose Unix nanoseconds int64 holds) and a clock time (a leap
// second's :60 is allowed, as the next second's start).
func validClock(year, month, day, hour, min, sec int) bool {
	if year < 1678 || year > 2261 || month < 1 || month > 12 || day < 1 || hour > 23 || min > 59 || sec > 60 {
		return false
	}
	dim := [12]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		dim = 29
	}
	return day <= dim
}

// unixNano is the Unix time in nanoseconds of a civil date and time at
// offset seconds east of UTC (days from civil, after Howard Hinnant).
func unixNano(year, month, day, hour, min, sec int, nanos int64, offset int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := era*146097 + doe - 719468
	secs := days*86400 + int64(hour)*3600 + int64(min)*60 + int64(sec) - int64(offset)
	return secs*1e9 + nanos
}

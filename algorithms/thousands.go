package algorithms

import "strconv"

// Thousands writes n in decimal with commas between groups of three
// digits, as the command line and the screen write counts: 1,000,000;
// -12,345; 999.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := s
	if n < 0 {
		digits = s[1:]
	}
	if len(digits) <= 3 {
		return s
	}
	b := make([]byte, 0, len(s)+len(digits)/3)
	if n < 0 {
		b = append(b, '-')
	}
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, digits[i])
	}
	return string(b)
}

package ui

// agree is one when n is 1, else many: a word that agrees with a count
// of n ("is" or "are", "it" or "them").
func agree[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// counted is n and its noun in the number n takes: "1 request",
// "0 requests", "2 requests".
func counted[N ~int | ~int64](n N, one, many string) string {
	return itoa(int64(n)) + " " + agree(n, one, many)
}

package ui

import "ratelab/algorithms"

// agree is one when n is 1, else many: a word that agrees with a count
// of n ("is" or "are", "it" or "them").
func agree[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// counted is n, its digits grouped (algorithms.Thousands), and its noun in
// the number n takes: "1 request", "0 requests", "999,999 requests".
func counted[N ~int | ~int64](n N, one, many string) string {
	return algorithms.Thousands(int64(n)) + " " + agree(n, one, many)
}

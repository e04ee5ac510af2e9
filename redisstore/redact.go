package redisstore

import "strings"

// redact is rawURL with everything between :// and its last @ (or, with
// no scheme, everything before it) replaced by "xxxxx". A password need
// not be %-encoded for a message to show it: with an @ / ? or # in it,
// url.Parse takes part of it for the host, the path or the query, so
// nothing before the last @ is shown, the user's name included.
func redact(rawURL string) string {
	at := strings.LastIndex(rawURL, "@")
	if at < 0 {
		return rawURL
	}
	start := 0
	if i := strings.Index(rawURL, "://"); i >= 0 && i < at && isScheme(rawURL[:i]) {
		start = i + len("://")
	}
	return rawURL[:start] + "xxxxx" + rawURL[at:]
}

// isScheme reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, + - .): a "://" after anything else is in a password.
func isScheme(s string) bool {
	for i, r := range s {
		letter := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !letter && (i == 0 || !('0' <= r && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

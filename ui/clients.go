package ui

import (
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// A scenario's clients retry what a lane refuses (see model.Attempt). The
// ui shows, for a lab that has them, whose request a decision was, which
// attempt and what its client does next (the why panel), and what the
// retries cost a lane: its originals, attempts, amplification, what became
// of the requests and how long the served ones took (the lane's totals).
// A lab without clients shows none of it.

// attemptText is which try of its request rec was: "attempt 3 of 5" for a
// client that retries, "attempt 1" for one that gives up at once.
func attemptText(rec model.Record, clients []scenarios.Client) string {
	a := rec.Attempt
	text := "attempt " + itoa(int64(a.N))
	if c := clientOf(rec, clients); c != nil && c.Retry != scenarios.GiveUp {
		text += " of " + itoa(int64(c.Attempts))
	}
	return text
}

// clientOf is the client of rec's request, nil for none.
func clientOf(rec model.Record, clients []scenarios.Client) *scenarios.Client {
	if c := rec.Attempt.Client; c > 0 && c <= len(clients) {
		return &clients[c-1]
	}
	return nil
}

// clientParts are the pieces the attempt line is made of: "attempt 3 of
// 5", the same with " (first at 0.5s)" for a retry, whose request it is
// ("client eager", or "no client") with the name alone, and the rule.
func clientParts(rec model.Record, clients []scenarios.Client) (attempt, since, who, name, rule string) {
	attempt = attemptText(rec, clients)
	since = attempt
	if a := rec.Attempt; a.N > 1 {
		since += " (first at " + secs(a.First) + ")"
	}
	who, name, rule = "no client", "no client", "gives up when refused"
	if c := clientOf(rec, clients); c != nil {
		who, name, rule = "client "+c.Name, c.Name, c.Rule()
	}
	return attempt, since, who, name, rule
}

// clientTexts say, longest first, which attempt of whose request rec was,
// the client's rule and what happens next: "attempt 3 of 5 (first at
// 0.5s) · client eager: retries at once, 5 attempts → attempt 4 at 0.5s".
// The shorter ones drop the first arrival, then the rule, then the name.
func clientTexts(rec model.Record, clients []scenarios.Client) []string {
	attempt, since, who, name, rule := clientParts(rec, clients)
	then := " → " + rec.Attempt.ThenIn(secs)
	return []string{
		since + " · " + who + ": " + rule + then,
		attempt + " · " + name + ": " + rule + then,
		attempt + " · " + name + then,
		attempt + then,
	}
}

// amplification is attempts ÷ originals: "×2.81".
func amplification(s model.Stats) string { return "×" + s.AmplificationText() }

// latencyText is the served requests' latency from their first attempt:
// "p50 0s p95 1.2s p99 ≈1.364s".
func latencyText(l model.Latency) string {
	return "p50 " + roughSecs(l.P50) + " p95 " + roughSecs(l.P95) + " p99 " + roughSecs(l.P99)
}

// roughSecs is a latency to the millisecond, "≈" marking a rounding
// (jittered backoffs make latencies of any nanosecond, whose nine
// decimals say nothing in a summary), or under one as the screen writes
// it (secs: "≈0.000833s").
func roughSecs(d time.Duration) string {
	switch {
	case d%time.Millisecond == 0:
		return algorithms.FormatSeconds(d)
	case d < time.Millisecond:
		return secs(d)
	}
	return "≈" + algorithms.FormatSeconds(d.Round(time.Millisecond))
}

// endsText is what became of a lane's requests: "served 47 · abandoned
// 15 (2 at their deadline) · unfinished 1 · queued 3 · retrying 4" (served:
// released by the clock; queued: admitted, released after it); short
// leaves out the deadline, the unfinished, the queued and those still
// retrying.
func endsText(s model.Stats, short bool) string {
	text := "served " + itoa(s.Served) + " · abandoned " + itoa(s.Abandoned)
	if short {
		return text
	}
	if s.TimedOut > 0 {
		text += " (" + itoa(s.TimedOut) + " at their deadline)"
	}
	if s.Unfinished > 0 {
		text += " · unfinished " + itoa(s.Unfinished)
	}
	if s.Queued > 0 {
		text += " · queued " + itoa(s.Queued)
	}
	if p := s.Pending(); p > 0 {
		text += " · retrying " + itoa(p)
	}
	return text
}

// clientStatsTexts are a lane's totals as its clients see them, longest
// first: "originals 67 · attempts 157 ×2.34 · served 47 · abandoned 15 ·
// latency p50 0s p95 1.2s p99 1.5s", down to "×2.34 · served 47"; with
// two lines, the counts and the latency apart. With a key pinned they are
// that key's, "key p" first.
func clientStatsTexts(v laneView) (counts, latency []string) {
	s, whose := v.stats, ""
	if v.pinned {
		s, whose = v.keyStats, "key "+keyText(v.key)+" "
	}
	if s.Originals == 0 {
		return []string{whose + "no request yet"}, nil
	}
	amp := amplification(s)
	orig, tries := itoa(s.Originals), itoa(s.Requests())
	// The words of the summary and the help: originals, attempts,
	// served, abandoned; shorter forms drop words, never change them.
	gaveUp := " · served " + itoa(s.Served) + " · abandoned " + itoa(s.Abandoned)
	counts = []string{
		whose + "originals " + orig + " · attempts " + tries + " " + amp + " · " + endsText(s, false),
		whose + "originals " + orig + " · attempts " + tries + " " + amp + " · " + endsText(s, true),
		whose + "originals " + orig + " " + amp + " · " + endsText(s, true),
		whose + "originals " + orig + " " + amp + gaveUp,
		whose + amp + gaveUp,
		amp + gaveUp,
		amp + " · served " + itoa(s.Served),
		amp,
	}
	lat := latencyText(s.Latency)
	return counts, []string{"latency from first attempt " + lat + " (" + itoa(s.Latency.N) + " served)", "latency " + lat, lat}
}

// clientStatsText is the lane's client totals in one line of width w:
// the counts with the latency when they fit together.
func clientStatsText(v laneView, w int) string {
	counts, latency := clientStatsTexts(v)
	var both []string
	for _, l := range latency {
		for _, c := range counts[:4] {
			both = append(both, c+" · "+l)
		}
	}
	return first(append(both, counts...), w)
}

// clientStatsLines are the lane's client totals in n lines (1 or 2) of
// width w: with two, the counts on the first and the latency on the
// second.
func clientStatsLines(v laneView, w, n int) []string {
	counts, latency := clientStatsTexts(v)
	if n < 2 || latency == nil {
		return []string{clientStatsText(v, w)}
	}
	return []string{first(counts, w), first(latency, w)}
}

// laneStateLines are a lane cell's n state lines of width w: the
// picture's, and in a lab with clients the lane's client totals in the
// last of them (the last two when n ≥ 5, a tall box): what the retries
// cost is the lesson of a scenario with clients, more than the picture's
// last words.
func laneStateLines(st *styles, v laneView, w, n int) []string {
	if len(v.clients) == 0 || n < 2 {
		return stateLines(st, v, w, n)
	}
	k := 1
	if n >= 5 {
		k = 2
	}
	lines := stateLines(st, v, w, n-k)
	for len(lines) < n-k {
		lines = append(lines, "")
	}
	return append(lines, clientStatsLines(v, w, k)...)
}

// clientLines are the why panel's lines on whose attempt rec was, in at
// most n lines of width w: one when the whole text fits it, else, given
// two, the attempt, client and rule on the first and what happens next
// on the second, else the longest text that fits one.
func clientLines(rec model.Record, clients []scenarios.Client, w, n int) []string {
	texts := clientTexts(rec, clients)
	if n < 2 || ansi.StringWidth(texts[0]) <= w {
		return []string{first(texts, w)}
	}
	attempt, since, who, name, rule := clientParts(rec, clients)
	return []string{
		first([]string{since + " · " + who + ": " + rule, attempt + " · " + name + ": " + rule}, w),
		fit("  → "+rec.Attempt.ThenIn(secs), w),
	}
}

// anyRetries reports whether some client retries a refused request (more
// than one attempt): only then does the timeline mark retries.
func anyRetries(clients []scenarios.Client) bool { return mostAttempts(clients) > 1 }

// mostAttempts is the most attempts any of clients makes at a request
// (0 with none).
func mostAttempts(clients []scenarios.Client) int {
	most := 0
	for _, c := range clients {
		most = max(most, c.Attempts)
	}
	return most
}

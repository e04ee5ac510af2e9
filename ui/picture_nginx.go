package ui

import (
	"time"

	"ratelab/algorithms"
)

func init() { register(algorithms.NginxLimitReq, nginxPicture{}) }

// nginxPicture shows nginx's node for the key as nginx's log writes it:
// the excess in thousandths of a request against the burst, what the next
// request would be given and done with, and the millisecond the node was
// last updated.
type nginxPicture struct{}

func (nginxPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.NginxLimitReqSnapshot)
	gauge := gaugeLine(st, nginxFill(s), "excess "+algorithms.NginxMilli(s.Left)+" of burst "+itoa(s.Burst), w)
	lines := []string{gauge, first(nginxNext(s, v.policy.DryRun), w)}
	if n <= 2 {
		return lines
	}
	node := "no node yet"
	if s.Node {
		node = "node " + algorithms.NginxMilli(s.Excess) + " at " + itoa(s.Last) + " ms"
	}
	rate := "rate " + algorithms.NginxMilli(s.RateMilli) + "/s"
	return append(lines,
		first([]string{node + " · " + rate + " · " + nginxDelayWord(s), node + " · " + rate, node}, w),
		st.muted.Render(first([]string{"503 iff excess − rate×ms/1000 + 1 > burst", "503 iff excess + 1 > burst"}, w)),
		st.muted.Render(first([]string{"wait (excess − delay) ÷ rate, whole ms", "wait (excess − delay) ÷ rate"}, w)),
	)
}

// nginxFill is how full the gauge is: what is left of the excess, of the
// burst.
func nginxFill(s algorithms.NginxLimitReqSnapshot) float64 {
	return fraction(s.Left, s.Burst*1000)
}

// nginxNext says what the next request of cost 1 would meet, longest
// first; a dry run lets it through and only says what it would do.
func nginxNext(s algorithms.NginxLimitReqSnapshot, dry bool) []string {
	next := "next: excess " + algorithms.NginxMilli(s.Next)
	switch {
	case s.Next > s.Burst*1000 && dry:
		return []string{next + " > burst → passes, would 503", next + " → would 503", "next → would 503"}
	case s.Next > s.Burst*1000:
		return []string{next + " > burst → 503", next + " → 503", "next → 503"}
	case s.NextDelay > 0 && dry:
		d := secs(s.NextDelay)
		return []string{next + " → passes, would wait " + d, next + " → would wait " + d, "next would wait " + d}
	case s.NextDelay > 0:
		d := secs(s.NextDelay)
		return []string{next + " → waits " + d, next + " → " + d, "next waits " + d}
	case !s.Node:
		return []string{"next: a new node, excess 0 → at once", "next: new node → at once", "next → at once"}
	}
	return []string{next + " → at once", "next → at once"}
}

// nginxDelayWord is the policy's delay threshold: "delay 5", "nodelay".
func nginxDelayWord(s algorithms.NginxLimitReqSnapshot) string {
	if s.NoDelay {
		return "nodelay"
	}
	return "delay " + itoa(s.Delay)
}

func (nginxPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.NginxLimitReqSnapshot)
	return nginxFill(s), algorithms.NginxMilli(s.Left) + "/" + itoa(s.Burst) + " excess"
}

func (nginxPicture) titles(p algorithms.Policy) []string {
	rate := " @" + itoa(p.Rate.N) + "r/s"
	if p.Rate.Per == time.Minute {
		rate = " @" + itoa(p.Rate.N) + "r/m"
	}
	flag := ""
	switch {
	case p.NoDelay:
		flag = " nodelay"
	case p.Delay > 0:
		flag = " delay=" + itoa(p.Delay)
	}
	return []string{
		p.String(),
		"nginx burst=" + itoa(p.Burst) + flag + rate,
		"nginx " + itoa(p.Burst) + flag + rate,
		"nginx " + itoa(p.Burst) + rate,
	}
}

func (nginxPicture) glossary(p algorithms.Policy) []string {
	words := []string{
		"nginx limit_req: each key's node keeps an excess, requests beyond the rate in thousandths (nginx's log writes 7.500), drained at the rate by nginx's clock of whole milliseconds. A request adds 1 and is refused with 503 when that would pass the burst; a key's first request counts 0, so burst N admits N + 1 at once.",
		"nginx's delay: an admitted request whose excess is above delay (0 unless set; never with nodelay) waits (excess − delay) ÷ rate, truncated to whole ms. The timeline's ↦ row marks when delayed requests leave.",
	}
	if p.NoDelay {
		return words[:1] // nodelay: no request waits
	}
	return words
}

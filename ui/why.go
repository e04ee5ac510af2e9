package ui

import (
	"cmp"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/fleet"
)

// whyBlock explains the focused lane's last decision in at most h lines of
// width w (fewer when it needs fewer; the caller gives the rest away):
// a heading naming the request, the lane's own reasoning with its numbers
// (Decision.Explain), and what the client gets back: for a rejection the
// 429 a server would send, with Retry-After in whole seconds rounded up.
// When the panel has room, the other lanes' verdicts on the same request
// follow, those that decided otherwise first, so the learner sees at once
// why one limiter admits what another refuses.
//
// label is the width of the lane-name column; extras, when given, are
// sentences of which one comes first (how a quiz's answers went and the
// lesson's explanation of the moment just answered).
func whyBlock(st *styles, views []laneView, focus, w, h, label int, extras ...string) []string {
	if len(extras) == 0 || h < 2 {
		return whyBody(st, views, focus, w, h, label)
	}
	// The extra sentence (how a quiz's answers went, the lesson's word on
	// the moment) comes first: it takes the rows it needs under the
	// heading, leaving the focused lane its heading, one line and its
	// reply where there is room (whyFloor), and at least one row however
	// small the panel. The first of extras that fits so whole is written;
	// else the last, cut, ending "… (e: read all)", never dropped unsaid.
	rows := max(h-min(whyFloor, whyFocusRows(st, views, focus, w)), 1)
	extra := extras[len(extras)-1]
	for _, e := range extras {
		if len(wrap(e, w, rows+1)) <= rows {
			extra = e
			break
		}
	}
	need := len(wrap(extra, w, h))
	room := min(need, rows)
	var pre []string
	for _, l := range wrapMore(extra, w, room) {
		pre = append(pre, fit(st.note.Render(l), w))
	}
	body := whyBody(st, views, focus, w, h-len(pre), label)
	return append(body[:1:1], append(pre, body[1:]...)...)
}

// whyBody is the why panel without the extra sentence.
func whyBody(st *styles, views []laneView, focus, w, h, label int) []string {
	if h <= 0 || focus >= len(views) {
		return nil
	}
	v := views[focus]
	head := st.title.Render("why") + " " + st.accent.Render(ansi.Truncate(v.name, max(label-1, 1), "…"))
	if v.verdictPending {
		lines := []string{fit(head+st.muted.Render(" · working out the verdict on key "+keyText(v.key)+"'s latest request…"), w)}
		if h > 1 {
			// Two wordings, the longer where it fits whole: a cut
			// sentence explains nothing.
			lines = append(lines, fit(first([]string{
				st.muted.Render("the lanes replay its requests from a saved state; every key still works meanwhile"),
				st.muted.Render("replaying its requests from a saved state; keys still work meanwhile"),
				st.muted.Render("replaying its requests; keys still work"),
			}, w), w))
		}
		return lines
	}
	if !v.hasLast {
		lines := []string{fit(head+st.muted.Render(" · no request has arrived yet"), w)}
		if h > 1 {
			lines = append(lines, fit(st.muted.Render("space fires one now · n jumps to the next request · p plays"), w))
		}
		return lines
	}
	r := v.last.Request
	d := v.last.Decision
	head += st.muted.Render(" · request at " + v.secs(r.At) + ", cost " + itoa(r.Cost) + ", key " + keyText(r.Key))
	if n := v.fleet.Gateways; n > 1 {
		head += st.muted.Render(" · gateway " + itoa(int64(d.Gateway)+1) + " of " + itoa(int64(n)))
	}
	// The state the lane keeps for the key, where the heading has room,
	// before the hint.
	state, hint := st.muted.Render(" · state "+stateText(v)), st.muted.Render("  (tab: next lane)")
	// The heading alone last: a hint that does not fit is left out, not
	// cut ("gateway 2 of 2  (tab:…" at 80×24 in racy-store).
	lines := []string{fit(first([]string{head + state + hint, head + state, head + hint, head}, w), w)}
	if h == 1 {
		return lines
	}
	// Rows: the heading, the explanation (as much as it needs, up to
	// whyExplain), the reply, then the other lanes in the rows left: up to
	// whyOther each, or one each for as many as fit.
	avail := h - 1
	if h >= 3 {
		avail-- // the reply
	}
	text := outcomeWord(st, d.Outcome) + ": " + v.explain()
	rows := min(avail, whyExplain)
	if len(v.clients) > 0 {
		// Whose attempt it was keeps a row or two, the explanation giving
		// up its later lines (e reads them): the reply is never given up.
		want := len(clientLines(v.last, v.clients, w, 2))
		rows = max(min(rows, len(wrap(text, w, whyExplain)), avail-want), min(1, avail))
	}
	explain := wrapMore(text, w, rows)
	for _, l := range explain {
		lines = append(lines, fit(l, w))
	}
	if h >= 3 {
		lines = append(lines, fit(first(replyTexts(st, v), w), w))
	}
	rest, others := avail-len(explain), len(views)-1
	if len(v.clients) > 0 {
		// Whose attempt this was and what its client does next, in the
		// rows the explanation left (the reply keeps its own).
		client := clientLines(v.last, v.clients, w, min(rest, 2))
		for _, l := range client[:min(len(client), rest)] {
			lines = append(lines, fit(st.accent.Render(l), w))
			rest--
		}
	}
	if len(v.gateways) > 0 && rest > 0 {
		// Each gateway's own view of the key, the one that decided marked.
		var parts []string
		for g, numbers := range v.gateways {
			mark := ""
			if g == int(d.Gateway) {
				mark = "▸"
			}
			parts = append(parts, mark+"g"+itoa(int64(g)+1)+" "+numbers)
		}
		lines = append(lines, fit(st.muted.Render("  each gateway: "+strings.Join(parts, " · ")), w))
		rest--
	}
	if store := storeTexts(v); len(store) > 0 {
		if rest > 0 {
			for _, l := range storeLines(st, store, w, min(rest, 3)) {
				lines = append(lines, l)
				rest--
			}
		} else if h >= 3 {
			// No row left: where the state is outside the process is what
			// --store came for; the reply's verdict is in the explanation.
			lines[len(lines)-1] = storeLines(st, store, w, 1)[0]
		}
	}
	if rest <= 0 || others == 0 {
		return lines
	}
	perOther := max(min(rest/others, whyOther), 1)
	indent := label + 3 // "  name    ✗ "
	// When not every lane fits, the ones that decided otherwise come
	// first: they are the lesson ("why does that one admit?").
	order := make([]int, 0, len(views))
	for _, differs := range []bool{true, false} {
		for i, o := range views {
			if i != focus && o.hasLast && (o.last.Decision.Outcome.Admitted() != d.Outcome.Admitted()) == differs {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		o := views[i]
		if len(lines) >= h {
			break
		}
		text := wrap(o.explain(), w-indent, min(perOther, h-len(lines)))
		for j, t := range text {
			prefix := strings.Repeat(" ", indent)
			if j == 0 {
				prefix = "  " + fit(o.name, label-2) + " " + outcomeGlyph(st, o.last.Decision.Outcome) + " "
			}
			lines = append(lines, fit(prefix+st.muted.Render(t), w))
		}
	}
	return lines
}

// storeTexts say where the focused lane keeps the key's state outside the
// process (ratelab --store): the store's key and what it holds, as the
// last call left it, and that call; or that the lane keeps its state in
// memory; or the store's failure. None without a store.
func storeTexts(v laneView) []string {
	s := v.store
	switch {
	case !v.hasStore:
		return nil
	case s.Err != nil:
		return []string{"  the store failed, so every lane decides in memory only for the rest of the session (restart ratelab to use it again): " + s.Err.Error()}
	case s.Store == "":
		mode := cmp.Or(v.fleet.Store, fleet.Local)
		return []string{"  not in the store: this lane's gateways keep their own state in memory (store: " + string(mode) + ")"}
	}
	held := "(no such key)"
	if len(s.Contents) > 0 {
		held = strings.Join(s.Contents, " · ") + " (as its last call left it)"
	}
	text := []string{"  " + s.Store + " · key " + s.Key + " → " + held}
	if s.Last != "" {
		text = append(text, "  last call: "+s.Last)
	}
	return text
}

// storeLines are text (storeTexts) in at most h lines of width w, the
// first text given all but a line for each that follows.
func storeLines(st *styles, text []string, w, h int) []string {
	var lines []string
	for _, t := range text {
		for _, l := range wrap(t, w, max(h-len(lines)-(len(text)-1), 1)) {
			if len(lines) < h {
				lines = append(lines, fit(st.muted.Render(l), w))
			}
		}
	}
	return lines
}

// replyTexts are what the client sees, longest first: the request goes
// through now, later, or comes back as a 429 (or the status the lane's
// library answers with, nginx's 503) with Retry-After (whole seconds,
// rounded up), the exact wait, and when a retry fits as a time and as a
// wait from the clock.
func replyTexts(st *styles, v laneView) []string {
	p, rec := v.policy, v.last
	d := rec.Decision
	switch d.Outcome {
	case algorithms.Allowed:
		return []string{st.allowed.Render("→ passed to the service now")}
	case algorithms.Delayed:
		// A shaper's queue, or a caller told to wait (x/time/rate's
		// reservation, Guava's acquire): either way it goes on later.
		if rec.Attempt.Cancelled {
			// Its caller left and gave the slot back: it never passes.
			return []string{st.delayed.Render("→ would pass at " + v.secs(d.At+d.Delay) + ", past its caller's deadline: cancelled, it never passes")}
		}
		// Its release in the tense the clock gives it.
		release := d.At + d.Delay
		if release > v.now {
			return []string{st.delayed.Render("→ held back " + v.secs(d.Delay) + ", passes at " + v.secs(release) + " (in " + v.secs(release-v.now) + ")")}
		}
		return []string{st.delayed.Render("→ held back " + v.secs(d.Delay) + ", passed at " + v.secs(release))}
	}
	status := "← " + httpStatus(d.Status(p))
	if d.Fallback != algorithms.NoFallback {
		// The store is down: an outage answers 503, not the limiter's 429.
		head := st.http.Render(status + " · Retry-After: " + strconv.FormatInt(d.RetryAfterSeconds(), 10))
		return []string{head + st.muted.Render(" (the store is down, not the client over its limit)"), head}
	}
	s := d.RetryAfterSeconds()
	if s < 0 {
		return []string{st.http.Render(status) + st.muted.Render(" (no Retry-After: this cost can never fit)")}
	}
	retry := v.retryText()
	if d := algorithms.Describe(p.Algorithm); d != nil && d.NoRetryAfter {
		// A library whose rejection carries no Retry-After (nginx's 503,
		// Envoy's 429): only the exact wait is shown.
		head := st.http.Render(status)
		return []string{
			head + st.muted.Render(" (no Retry-After) · "+retry),
			head + st.muted.Render(" · "+retry),
			head,
		}
	}
	head := st.http.Render(status + " · Retry-After: " + strconv.FormatInt(s, 10))
	if d.RetryAfter%time.Second == 0 {
		// A whole number of seconds: nothing was rounded.
		return []string{head + st.muted.Render(" · "+retry), head}
	}
	// The wait in the screen's time format, as everywhere on it; the
	// header rounds it up to whole seconds, which is said before when a
	// retry fits (the lane's box says that too), so that a narrow panel
	// never shows "Retry-After: 1" beside a wait of 0.2s unexplained.
	wait := " (wait " + v.secs(d.RetryAfter)
	return []string{
		head + st.muted.Render(wait+", rounded up) · "+retry),
		head + st.muted.Render(wait+", rounded up)"),
		head + st.muted.Render(wait+")"),
		head,
	}
}

// whyFocusRows is how many rows the why panel needs for the focused lane
// alone: the heading, its explanation (up to whyExplain rows) and the
// reply.
func whyFocusRows(st *styles, views []laneView, focus, w int) int {
	if focus >= len(views) || !views[focus].hasLast {
		return 2
	}
	d := views[focus].last.Decision
	rows := 1 + len(wrap(outcomeWord(st, d.Outcome)+": "+views[focus].explain(), w, whyExplain)) + 1
	if v := views[focus]; len(v.clients) > 0 {
		rows += len(clientLines(v.last, v.clients, w, 2)) // whose attempt
	}
	return rows
}

// httpStatus is an HTTP status with its reason phrase: "429 Too Many
// Requests", "503 Service Unavailable" (the two a rejection answers).
func httpStatus(code int) string {
	switch code {
	case 429:
		return "429 Too Many Requests"
	case 503:
		return "503 Service Unavailable"
	}
	return strconv.Itoa(code)
}

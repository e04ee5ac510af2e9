package ui

import (
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/fleet"
	"ratelab/model"
	"ratelab/scenarios"
)

// laneView is what one lane shows at the clock, as model computed it.
type laneView struct {
	name    string
	policy  algorithms.Policy
	now     time.Duration
	snap    algorithms.Snapshot
	last    model.Record
	hasLast bool
	// verdictPending tells that the lane's verdict on the shown key's
	// latest request is still being worked out (verdict.go): last is
	// not known, and nothing is shown in its place.
	verdictPending bool
	// stats are the lane's totals over every key; keyStats over the shown
	// key's requests alone, when a key is pinned (pinned).
	stats    model.Stats
	keyStats model.Stats
	key      string
	pinned   bool
	multiKey bool // the timeline has several keys: say which numbers are whose
	// watchState is set when the lesson asks to watch the lanes' state
	// (scenarios.Scenario.WatchState): every form of the totals keeps it.
	watchState bool
	// exact is, for a sliding counter, the true admitted cost of the
	// trailing window, which the counter only estimates.
	exact   int64
	focused bool
	// twin is, for a mistake lane, the name of the lane running its exact
	// twin ("" when none does), and twinStats that lane's totals (of the
	// pinned key when one is pinned).
	twin      string
	twinStats model.Stats
	// fleet is the gateways the lane stands for, and gateways, for the
	// focused lane, each gateway's view of the shown key (its row numbers:
	// "9/10 tokens") when they see different states; nil otherwise.
	fleet    fleet.Config
	gateways []string
	// keyBytes is the size of the lane's state for the shown key at the
	// clock (model.Lab.KeyStateBytes).
	keyBytes int64
	// expiredAt is when the lane's store dropped the shown key for being
	// idle (expired): the box shows a new key's state.
	expiredAt time.Duration
	expired   bool
	// store is, for the focused lane of a lab whose state lives in a store
	// outside the process (ratelab --store), where the shown key's state
	// is there and the call that last changed it; hasStore says there is one.
	store    algorithms.StoreView
	hasStore bool
	// clients are the scenario's clients, nil when it has none: then the
	// lane shows its client totals and the why panel whose attempt its
	// last decision was.
	clients []scenarios.Client
	// layers are a lane of several policies' (nil for one policy per
	// key), layerSnaps each one's state for the shown key.
	layers     []algorithms.Layer
	layerSnaps []algorithms.Snapshot
	// times is how the screen writes its times (timeForm).
	times timeForm
}

// explain is the lane's last decision explained, its times in the screen's
// form.
func (v laneView) explain() string { return v.times.explain(v.last.Decision) }

// secs writes a time as the screen and the lane's explanation do (times):
// the box, the why panel's heading and its equations name an instant
// alike.
func (v laneView) secs(d time.Duration) string { return v.times.secs(d) }

// quantitySecs writes a duration held as a Quantity of nanoseconds (GCRA's
// T and τ) in the lab's form: "≈0.000833s" at 1200/s, never "≈833.333µs".
func (v laneView) quantitySecs(q algorithms.Quantity) string {
	return string(algorithms.AppendQuantitySecondsAt(nil, q, int(v.times)))
}

// layerView is v as its i-th policy alone would show: its picture draws it.
func (v laneView) layerView(i int) laneView {
	w := v
	w.policy, w.snap, w.layers, w.layerSnaps = v.layers[i].Policy, v.layerSnaps[i], nil, nil
	return w
}

// laneViews reads every lane's state for the shown key from the lab, its
// verdict on that key's latest request, the totals (of every key, and of
// the key when pinned), and for a sliding counter the true count of its
// trailing window.
func laneViews(ctx *programContext) []laneView {
	lab := ctx.lab
	key := ctx.key()
	lanes := lab.Lanes()
	views := make([]laneView, len(lanes))
	// Read only: the replay a verdict needs is done after each message
	// (workOnVerdict), never while a frame is drawn.
	_, pending := lab.PendingLastDecisionFor(key)
	for i := range lanes {
		views[i] = laneViewOf(ctx, lanes, i, key, pending)
	}
	return views
}

// focusedView is the focused lane's view alone, as laneViews has it, for
// what needs no other lane's; ok is false when no lane is focused.
func focusedView(ctx *programContext) (v laneView, ok bool) {
	lanes := ctx.lab.Lanes()
	if ctx.focus >= len(lanes) {
		return laneView{}, false
	}
	key := ctx.key()
	_, pending := ctx.lab.PendingLastDecisionFor(key)
	return laneViewOf(ctx, lanes, ctx.focus, key, pending), true
}

// laneViewOf is lane i's view (see laneViews), pending whether the shown
// key's latest verdict is still being worked out.
func laneViewOf(ctx *programContext, lanes []model.Lane, i int, key string, pending bool) laneView {
	lab, l := ctx.lab, lanes[i]
	v := laneView{name: l.Name, policy: l.Policy, now: lab.Now(), focused: i == ctx.focus, key: key,
		pinned: ctx.pinned(), multiKey: len(lab.Keys()) > 1, clients: lab.Clients(), watchState: lab.Scenario().WatchState,
		times: ctx.form()}
	v.snap = lab.Snapshot(i, key)
	if l.Stack != nil {
		v.layers, v.layerSnaps = l.Stack, lab.LayerSnapshots(i, key)
	}
	v.stats = lab.Stats(i)
	if v.pinned {
		v.keyStats = lab.StatsFor(i, key)
	}
	v.verdictPending = pending
	if !pending {
		v.last, v.hasLast = lab.LastDecisionFor(i, key)
	}
	v.fleet = l.Fleet
	// Each gateway's view is read for the focused lane only: the why
	// panel shows no other lane's.
	if i == ctx.focus && !l.Fleet.Plain() && l.Fleet.Store != fleet.Shared && lab.Gateways(i) > 1 {
		for g := range lab.Gateways(i) {
			gv := v
			gv.snap = lab.GatewaySnapshot(i, g, key)
			_, numbers := pictureOf(l.Policy).row(gv)
			v.gateways = append(v.gateways, numbers)
		}
	}
	if t, ok := lab.TwinOf(i); ok {
		v.twin, v.twinStats = lanes[t].Name, lab.Stats(t)
		if v.pinned {
			v.twinStats = lab.StatsFor(t, key)
		}
	}
	v.keyBytes = lab.KeyStateBytes(i, key)
	v.expiredAt, v.expired = lab.ExpiredAt(i, key)
	if i == ctx.focus {
		v.store, v.hasStore = lab.StoreView(i, key)
	}
	if tp, ok := pictureOf(l.Policy).(trailingPicture); ok {
		v.exact = lab.TrailingAdmitted(i, key, tp.trailing(l.Policy))
	}
	return v
}

// outcomeGlyph is the mark of an outcome: never colour alone.
func outcomeGlyph(st *styles, o algorithms.Outcome) string { return outcomeMark(st, o, "") }

// outcomeWord is the mark with the outcome's name: "✓ allowed".
func outcomeWord(st *styles, o algorithms.Outcome) string { return outcomeMark(st, o, " "+o.String()) }

func outcomeMark(st *styles, o algorithms.Outcome, suffix string) string {
	switch o {
	case algorithms.Allowed:
		return st.allowed.Render("✓" + suffix)
	case algorithms.Delayed:
		return st.delayed.Render("◷" + suffix)
	}
	return st.rejected.Render("✗" + suffix)
}

// verdictTexts are the lane's last verdict from longest to shortest: with
// time and retry, with retry, (for a rejection, with the retry's time
// alone,) the word, the glyph. A rejection says when a retry fits, as a
// time and as a wait from the clock, so that it stays true as the clock
// moves. With several keys the longest names the key the lane shows.
//
// The last two are always the verdict's word and its glyph, which the
// compact and the one-row forms take.
func verdictTexts(st *styles, v laneView) []string {
	if v.verdictPending {
		return []string{st.muted.Render("… working out the latest verdict on key " + keyText(v.key)),
			st.muted.Render("… working out its verdict"), st.muted.Render("… working"), st.muted.Render("…")}
	}
	if !v.hasLast {
		none := st.muted.Render("· no request yet")
		return []string{none, none, st.muted.Render("· none yet"), st.muted.Render("·")}
	}
	d := v.last.Decision
	word := outcomeWord(st, d.Outcome)
	// Marked where it happens: a fallback's decision (the store was down:
	// 503, not 429) and an admission beyond the policy (a double spend, a
	// lost or expired state, a copy counting apart).
	switch {
	case d.Fallback != algorithms.NoFallback && d.Outcome == algorithms.Rejected:
		word += st.http.Render(" 503 (store down)")
	case d.Fallback != algorithms.NoFallback:
		word += st.muted.Render(" (store down, fails " + d.Fallback.String() + ")")
	case d.Beyond > 0:
		word += st.http.Render(" beyond the policy")
	case d.DryRun == algorithms.Rejected:
		word += st.rejected.Render(" (dry run: would refuse)")
	case d.DryRun == algorithms.Delayed:
		word += st.delayed.Render(" (dry run: would delay)")
	}
	at := " at " + v.secs(v.last.Request.At)
	whose := ""
	if v.multiKey {
		whose = st.muted.Render(" · key " + keyText(v.key))
	}
	switch d.Outcome {
	case algorithms.Delayed:
		return []string{word + " " + v.secs(d.Delay) + at + whose, word + " " + v.secs(d.Delay), word, outcomeGlyph(st, d.Outcome)}
	case algorithms.Rejected:
		// The retry time stays while there is room for its short form:
		// a box that shows a rejection says when to come back.
		retry, short := v.retryText(), v.shortRetryText()
		return []string{word + at + " · " + retry + whose, word + " · " + retry, word + " · " + short, word, outcomeGlyph(st, d.Outcome)}
	}
	return []string{word + at + whose, word, word, outcomeGlyph(st, d.Outcome)}
}

// retryText says when a rejected request would fit if nothing else came:
// "retry at 61s (in 0.9s)"; at the clock "retry due now, at 61s"; once
// the clock is past it "retry was due at 61s" (what fits now is the
// lane's state to tell); or "never fits".
func (v laneView) retryText() string {
	at, ok := v.retryAt()
	switch {
	case !ok:
		return "never fits"
	case at > v.now:
		return "retry at " + v.secs(at) + " (in " + v.secs(at-v.now) + ")"
	}
	return v.dueRetryText(at)
}

// shortRetryText is retryText without the wait from the clock: "retry at
// 61s", and as retryText once the clock has reached it (a stale time read
// as still ahead would mislead).
func (v laneView) shortRetryText() string {
	at, ok := v.retryAt()
	switch {
	case !ok:
		return "never fits"
	case at > v.now:
		return "retry at " + v.secs(at)
	}
	return v.dueRetryText(at)
}

// retryAt is when the lane's last rejected request would fit; ok false
// when it never does.
func (v laneView) retryAt() (at time.Duration, ok bool) {
	d := v.last.Decision
	if d.RetryAfter == algorithms.Never {
		return 0, false
	}
	return v.last.Request.At + d.RetryAfter, true
}

// dueRetryText is a retry time the clock has reached, in words: due now,
// or due before.
func (v laneView) dueRetryText(at time.Duration) string {
	if at == v.now {
		return "retry due now, at " + v.secs(at)
	}
	return "retry was due at " + v.secs(at)
}

// totalsTexts are the lane's totals from longest to shortest, written one
// way everywhere: "✓238 ◷2 ✗0", then the peak, the largest admitted cost in
// any trailing PeakWindow (for a fixed window it shows the boundary burst as
// a number). With several keys they say whose: every key's ("all keys"),
// and with a key pinned that key's first. A lane of gateways says how far
// it went beyond its policy, and one whose store expired the shown key
// says when, giving up totals first.
func totalsTexts(st *styles, v laneView) []string {
	texts := countTexts(st, v)
	if !v.fleet.Plain() {
		// A lane of gateways says first how far it went beyond its policy.
		b := " · " + beyondText(v.stats.Beyond)
		if v.fleet.Forgets() {
			b += ", forgot " + signed(v.stats.Forgot)
		}
		texts = withFirst(texts, "", b)
	}
	if v.expired {
		// The box shows a new key's state: say why in every form that
		// fits, before any total (the forms without it stay, last).
		texts = withFirst(texts, "", expiryText(v))
	}
	if v.twin != "" {
		// A mistake lane says first how far it is off its exact twin.
		texts = append([]string{texts[0] + " · " + twinText(v), texts[len(texts)-1] + " · " + twinText(v)}, texts...)
	}
	// Where there is room for every total, the state the lane keeps for
	// the shown key; in every form when the lesson asks to watch it.
	state := st.muted.Render(" · state " + stateText(v))
	if v.watchState {
		for i := range texts {
			texts[i] += state
		}
		return texts
	}
	return append([]string{texts[0] + state}, texts...)
}

// withFirst is texts each between prefix and suffix, then texts as they
// were: forms longest first, which give up the rest before the prefix and
// suffix.
func withFirst(texts []string, prefix, suffix string) []string {
	out := make([]string, 0, 2*len(texts))
	for _, t := range texts {
		out = append(out, prefix+t+suffix)
	}
	return append(out, texts...)
}

// expiryText is " · expired at 3s" for a lane whose store dropped the
// shown key for being idle, "" for any other.
func expiryText(v laneView) string {
	if !v.expired {
		return ""
	}
	return " · expired at " + v.secs(v.expiredAt)
}

// beyondText is a lane of gateways' admissions beyond its policy on one
// shared atomic store: "beyond +30", "beyond 0".
//
// A negative count says what it means where it shows: the lane admitted
// fewer than its policy would on one atomic store (a slow clock's refill
// clamped away, a fallback failing closed), "beyond -1 (1 fewer than one
// store)".
func beyondText(n int64) string {
	if n < 0 {
		return "beyond " + signed(n) + " (" + itoa(-n) + " fewer than one store)"
	}
	return "beyond " + signed(n)
}

// signed is n with its sign: "+30", "0", "-2".
func signed(n int64) string {
	if n > 0 {
		return "+" + itoa(n)
	}
	return itoa(n)
}

// stateText is the lane's state for the shown key: "48 B/key".
func stateText(v laneView) string { return model.FormatBytes(v.keyBytes) + "/key" }

// twinText is how many more (or fewer) requests a mistake lane admitted than
// its exact twin: "2 more than bucket", "same as bucket".
func twinText(v laneView) string {
	mine, exact := v.stats.Admitted, v.twinStats.Admitted
	if v.pinned {
		mine = v.keyStats.Admitted
	}
	switch {
	case mine > exact:
		return itoa(mine-exact) + " more than " + v.twin
	case mine < exact:
		return itoa(exact-mine) + " fewer than " + v.twin
	}
	return "same as " + v.twin
}

// countTexts are the totals without the state or a mistake's difference,
// longest first.
func countTexts(st *styles, v laneView) []string {
	all := tallyCounts(st, v.policy, v.stats)
	peak := func(s model.Stats) string { return "peak " + itoa(s.Peak) }
	per := " per " + v.secs(v.stats.PeakWindow)
	if !v.multiKey {
		return []string{all + " · " + peak(v.stats) + per, all + " · " + peak(v.stats), all}
	}
	if !v.pinned {
		return []string{
			"all keys " + all + " · " + peak(v.stats) + per,
			"all keys " + all + " · " + peak(v.stats),
			"all " + all + " · " + peak(v.stats),
			"all " + all,
		}
	}
	mine := tallyCounts(st, v.policy, v.keyStats)
	k := keyText(v.key)
	return []string{
		"key " + k + " " + mine + " · " + peak(v.keyStats) + per + st.muted.Render(" │ all keys ") + all + " · " + peak(v.stats),
		"key " + k + " " + mine + " · " + peak(v.keyStats) + st.muted.Render(" │ all ") + all + " · " + peak(v.stats),
		"key " + k + " " + mine + " · " + peak(v.keyStats) + per,
		"key " + k + " " + mine + " · " + peak(v.keyStats),
		"key " + k + " " + mine,
		// Narrower, the key's name stays and the word goes: a box that
		// must also show the state a lesson watches has room for both.
		k + " " + mine,
		"key " + mine,
	}
}

// tallyCounts is "✓238 ◷2 ✗0": allowed outright, delayed (for a lane that
// delays, or when any was), rejected; for a dry run (nginx's dry_run,
// which lets every request through) what it would have done:
// "✓12 ✗0 · would have refused 8".
func tallyCounts(st *styles, p algorithms.Policy, s model.Stats) string {
	out := st.allowed.Render("✓" + itoa(s.Admitted-s.Delayed))
	if canDelay(p) || s.Delayed > 0 {
		out += " " + st.delayed.Render("◷"+itoa(s.Delayed))
	}
	out += " " + st.rejected.Render("✗"+itoa(s.Rejected))
	if w := dryWords(p, s); w != "" {
		out += st.muted.Render(" · ") + st.rejected.Render(w)
	}
	return out
}

// dryWords is what a dry run would have done to the requests it let
// through: "would have refused 8", "would have delayed 3 and refused 8";
// "" for a lane that is no dry run.
func dryWords(p algorithms.Policy, s model.Stats) string {
	if !p.DryRun && s.DryRunDelayed == 0 && s.DryRunRejected == 0 {
		return ""
	}
	if s.DryRunDelayed > 0 {
		return "would have delayed " + itoa(s.DryRunDelayed) + " and refused " + itoa(s.DryRunRejected)
	}
	return "would have refused " + itoa(s.DryRunRejected)
}

// laneTitle is the lane's name and policy (one of policyTexts), marked ▶
// when focused; unmarked is a space of the mark's width, unless tight.
func laneTitle(st *styles, v laneView, policy string, tight bool) string {
	mark := "  "
	if tight {
		mark = " "
	}
	name := st.title.Render(v.name)
	if v.focused {
		mark = st.accent.Render("▶ ")
		name = st.accent.Render(v.name)
	}
	return mark + name + " " + st.muted.Render(policy) + " "
}

// laneCell draws one lane in mode, w cells wide, mode.cellHeight(tall)
// lines; label and rc are the columns of the row form.
func laneCell(st *styles, v laneView, mode laneMode, tall bool, w, label int, rc rowColumns) []string {
	policies := policyTexts(v.policy)
	if len(v.layers) > 0 {
		// A stack names its further policies after the first's words.
		policies = stackTitles(v.layers)
	} else if alg := string(v.policy.Algorithm); policies[len(policies)-1] != alg {
		// Where no text with its parameters fits, the algorithm's name
		// alone, rather than one cut after a bare number
		// ("x-time-rate-reserve 1…" at 80×24).
		policies = append(slices.Clone(policies), alg)
	}
	if short := v.fleet.Short(); short != "" {
		// The gateways matter more than the policy's last words: a title
		// that cannot hold both keeps the algorithm and the store.
		withShort := make([]string, 0, len(policies)+2)
		for _, p := range policies {
			withShort = append(withShort, p+" "+short)
		}
		policies = append(withShort, string(v.policy.Algorithm)+" "+short, short)
	}
	switch mode {
	case laneBoxed:
		inner := w - 4
		n := mode.stateLines(tall)
		body := []string{first(verdictTexts(st, v), inner)}
		body = append(body, laneStateLines(st, v, inner, n)...)
		for len(body) < 1+n {
			body = append(body, "")
		}
		body = append(body, first(totalsTexts(st, v), inner))
		var titles []string
		for _, p := range policies {
			titles = append(titles, laneTitle(st, v, p, true))
		}
		return box(st, first(titles, w-4), body, w, v.focused)
	case laneCompact:
		inner := w - 2
		// The title with the verdict's word, else its glyph, with the
		// longest policy text that fits; the verdict flush right. A
		// rejection's retry time comes before the policy's words: the
		// lane's name alone if need be (the lane's other rows say the
		// rest).
		verdicts := verdictTexts(st, v)
		words := verdicts[len(verdicts)-2:] // the verdict's word and its glyph
		titles := make([]string, len(policies), len(policies)+1)
		for i, p := range policies {
			titles[i] = laneTitle(st, v, p, false)
		}
		tries := []struct{ titles, verdicts []string }{{titles, words}}
		if v.hasLast && !v.verdictPending && v.last.Decision.Outcome == algorithms.Rejected {
			named := append(titles, laneTitle(st, v, "", false))
			short := v.shortRetryText()
			tries = append([]struct{ titles, verdicts []string }{
				{named, []string{words[0] + " · " + short}},
				{named, []string{words[1] + " " + short}},
			}, tries...)
		}
		title, verdict := titles[len(titles)-1], words[1]
	pick:
		for _, try := range tries {
			for _, t := range try.titles {
				tw := ansi.StringWidth(t)
				for _, vt := range try.verdicts {
					if tw+1+ansi.StringWidth(vt) <= w {
						title, verdict = t, vt
						break pick
					}
				}
			}
		}
		head := joinFit(title, verdict, w)
		lines := []string{head}
		for _, l := range laneStateLines(st, v, inner, mode.stateLines(false)) {
			lines = append(lines, "  "+fit(l, inner))
		}
		for len(lines) < 1+mode.stateLines(false) {
			lines = append(lines, fit("", w))
		}
		return append(lines, "  "+fit(first(totalsTexts(st, v), inner), inner))
	}
	return []string{laneRowLine(st, v, w, label, rc)}
}

// rowColumns are the widths the one-row form aligns its lanes on: the
// numbers beside the gauges and the totals after them; retry is whether
// the numbers say when a rejected lane's retry fits (rowNumbers).
type rowColumns struct {
	numbers, totals int
	retry           bool
}

// rowColumnsOf measures the widest numbers and totals of views for rows w
// cells wide with names in label cells, so that every lane's gauge,
// numbers and totals start in the same column. The numbers say a
// rejection's retry time where the totals still fit beside them uncut
// (the gauge gives up its cells first); on a row too narrow for that, they
// leave it to the why panel.
func rowColumnsOf(st *styles, views []laneView, w, label int) rowColumns {
	c := rowColumns{retry: true}
	for _, v := range views {
		_, numbers := rowNumbers(v, true)
		c.numbers = max(c.numbers, ansi.StringWidth(numbers))
	}
	if w-(label+3)-c.numbers-3 < minTotals {
		c = rowColumns{}
		for _, v := range views {
			_, numbers := rowNumbers(v, false)
			c.numbers = max(c.numbers, ansi.StringWidth(numbers))
		}
	}
	for _, v := range views {
		c.totals = max(c.totals, ansi.StringWidth(rowTotals(st, v, w)))
	}
	return c
}

// minTotals is the fewest cells the one-row form's totals take.
const minTotals = 12

// rowTotals is the totals text of the one-row form, at most a third of w;
// with a key pinned, at most five twelfths, so that the key's name and
// peak keep their place ("key default ✓240 ✗0 · peak 240" at 80 columns),
// the gauge giving up the cells.
func rowTotals(st *styles, v laneView, w int) string {
	room := w / 3
	if v.pinned || v.watchState {
		room = w * 5 / 12
	}
	return rowTotalsWithin(st, v, room)
}

// rowTotalsWithin is the longest totals text of the one-row form that
// fits in room cells (at least minTotals).
func rowTotalsWithin(st *styles, v laneView, room int) string {
	texts := totalsTexts(st, v)
	s := v.stats
	if v.pinned {
		s = v.keyStats
		texts = texts[len(texts)-4:] // the name, with the peak if it fits (countTexts' last four)
	} else {
		texts = texts[len(texts)-2:]
	}
	if v.expired {
		// The row shows a new key's state: why, where it fits.
		texts = withFirst(texts, "", expiryText(v))
	}
	if len(v.clients) > 0 && s.Originals > 0 {
		// A lab with clients: the amplification first, what the row has
		// room for of the retries' cost.
		texts = withFirst(texts, amplification(s)+" · ", "")
	}
	if v.watchState {
		// The counts and the state alone, the peak given up first, and
		// at the narrowest the bytes without "/key".
		texts = append(texts, tallyCounts(st, v.policy, s)+st.muted.Render(" · "+stateText(v)),
			tallyCounts(st, v.policy, s)+st.muted.Render(" · "+model.FormatBytes(v.keyBytes)))
	}
	return first(texts, max(room, minTotals))
}

// rowNumbers is a lane's gauge and numbers in the one-row form: its
// picture's, and after a rejection when a retry fits, as a box says it
// ("0.2/120 tokens · retry at 60.4s"): a row that shows a rejection says
// when to come back.
func rowNumbers(v laneView, retry bool) (float64, string) {
	fill, numbers := laneNumbers(v)
	if retry && v.hasLast && !v.verdictPending && v.last.Decision.Outcome == algorithms.Rejected {
		numbers += " · " + v.shortRetryText()
	}
	return fill, numbers
}

// laneRowLine is a lane in one line, its parts in the columns c:
// "▶ fixed   ✗ [███  ] 61/120 window · ✓181 ✗0 · peak 181".
func laneRowLine(st *styles, v laneView, w, label int, c rowColumns) string {
	mark := "  "
	name := fit(v.name, label-2)
	if v.focused {
		mark = st.accent.Render("▶ ")
		name = st.accent.Render(name)
	}
	verdicts := verdictTexts(st, v)
	head := mark + name + " " + verdicts[len(verdicts)-1] + " "
	fill, numbers := rowNumbers(v, c.retry)
	totals, column := rowTotals(st, v, w), c.totals
	if room := w - ansi.StringWidth(head) - c.numbers - 3; column > room {
		// No room left for a gauge, and not even for the widest totals:
		// the shorter totals that fit, rather than a cut.
		totals, column = rowTotalsWithin(st, v, room), room
	}
	tail := " · " + fit(totals, column)
	gw := min(w-ansi.StringWidth(head)-ansi.StringWidth(tail)-c.numbers-1, maxGauge+2)
	state := fit(numbers, c.numbers)
	if gw >= 5 {
		state = gauge(st, fill, gw-2) + " " + state
	}
	return fit(head+state+tail, w)
}

// box draws lines in a rounded border with title in its top edge; a
// focused box has a heavy border, so focus shows without colour too.
func box(st *styles, title string, lines []string, w int, focused bool) []string {
	h, v, tl, tr, bl, br := "─", "│", "╭", "╮", "╰", "╯"
	bs := st.border
	if focused {
		h, v, tl, tr, bl, br = "━", "┃", "┏", "┓", "┗", "┛"
		bs = st.borderFocus
	}
	inner := w - 2
	if ansi.StringWidth(title) > inner-2 {
		title = cutAtWord(title, inner-3) + "…"
	}
	rest := max(inner-1-ansi.StringWidth(title), 0)
	top := bs.Render(tl+h) + title + bs.Render(strings.Repeat(h, rest)+tr)
	out := make([]string, 0, len(lines)+2)
	out = append(out, top)
	side := bs.Render(v)
	for _, l := range lines {
		out = append(out, side+" "+fit(l, inner-2)+" "+side)
	}
	out = append(out, bs.Render(bl+strings.Repeat(h, max(inner, 0))+br))
	return out
}

// lanesBlock lays the lane cells out in the layout's grid, height l.lanes.
func lanesBlock(st *styles, views []laneView, l layout) []string {
	var out []string
	var rc rowColumns
	if l.mode == laneRow {
		rc = rowColumnsOf(st, views, l.width, l.label)
	}
	for r := 0; r < l.rows; r++ {
		lo := r * l.cols
		hi := min(lo+l.cols, len(views))
		if lo >= hi {
			break
		}
		if r > 0 && l.mode == laneCompact {
			out = append(out, strings.Repeat(" ", l.width))
		}
		// Every box of the grid is as wide as the others (columnWidth): a
		// short last row's boxes stand under the ones above, the rest of
		// the row blank, rather than widen beyond them. Compact cells,
		// unframed, share their row's width: a short last row's cells
		// widen to show what they can.
		n := hi - lo
		avail := l.width
		if l.mode == laneCompact {
			avail -= (n - 1) * compactGap
		}
		widths := make([]int, 0, n)
		for c := range n {
			switch {
			case l.mode == laneBoxed:
				widths = append(widths, l.columnWidth(c))
			case c < avail%n:
				widths = append(widths, avail/n+1)
			default:
				widths = append(widths, avail/n)
			}
		}
		var cells [][]string
		for i := lo; i < hi; i++ {
			cells = append(cells, laneCell(st, views[i], l.mode, l.tall, widths[i-lo], l.label, rc))
		}
		sep, gap := "", 0
		if l.mode == laneCompact {
			sep, gap = st.border.Render(" │ "), compactGap
		}
		for line := 0; line < l.mode.cellHeight(l.tall); line++ {
			var b strings.Builder
			w := 0
			for c, cell := range cells {
				if c > 0 {
					b.WriteString(sep)
					w += gap
				}
				b.WriteString(cell[line])
				w += widths[c]
			}
			b.WriteString(strings.Repeat(" ", max(l.width-w, 0)))
			out = append(out, b.String())
		}
	}
	return out
}

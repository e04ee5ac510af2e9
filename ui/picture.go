package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

// A picture is how one algorithm's lane is drawn: its state in every form the
// layout asks for, its parameters in a few words, and the terms it uses,
// explained for a newcomer. What the algorithm is — whether it delays, its
// promise in a sentence (policyWords) — is its algorithms.Description's, not
// the picture's: the glossary stays here because it explains what the
// picture draws ("exact", "as tokens", the ↦ row). Each algorithm's picture lives in
// its own file (picture_*.go) and registers itself, so a new lane kind adds a
// file and one registration, and nothing else in the ui changes.
//
// A picture draws only what the lane's Snapshot (and the laneView's figures
// from model) hold: it decides nothing.
type picture interface {
	// state is the lane's state in n lines (1 to maxStateLines) of w cells,
	// most telling first: a gauge of the balance or count against its bound,
	// then the numbers that move it, then the rule. It may return fewer
	// than n lines.
	state(st *styles, v laneView, w, n int) []string
	// row is the state for the one-row form: how full its gauge is (0 to
	// 1; below 0 for tokens owed, a reservation's negative balance, which
	// the state chart draws under its zero and a gauge as empty) and the
	// numbers beside it, "61/120 window".
	row(v laneView) (fill float64, numbers string)
	// titles are the algorithm and its parameters in a few words, longest
	// first, so that a narrow lane drops a word rather than cut a number.
	titles(p algorithms.Policy) []string
	// glossary explains the terms the picture shows of a lane of p ("TAT:
	// …"), one sentence each, for the about and help pages: only those a
	// lane of p uses (no sub-windows for a sliding counter without them).
	glossary(p algorithms.Policy) []string
}

// trailingPicture is a picture that shows, beside its own state, the exact
// admitted cost of a trailing window (the sliding counter's truth, which it
// only estimates): laneViews fills laneView.exact for it.
type trailingPicture interface {
	trailing(p algorithms.Policy) time.Duration
}

// maxStateLines is the most state lines a picture is asked for: a tall
// boxed lane on a big terminal.
const maxStateLines = 5

var pictures = map[algorithms.Algorithm]picture{}

// register adds the picture of an algorithm; each picture file calls it once.
func register(a algorithms.Algorithm, p picture) {
	if _, dup := pictures[a]; dup {
		panic("ui: two pictures for " + string(a))
	}
	pictures[a] = p
}

// pictureOf is the picture of p's algorithm, or a plain one that shows the
// policy's words for an algorithm without a picture.
func pictureOf(p algorithms.Policy) picture {
	if pic, ok := pictures[p.Algorithm]; ok {
		return pic
	}
	return plainPicture{}
}

// plainPicture stands in for an algorithm that has no picture yet: it says
// so rather than draw nothing.
type plainPicture struct{}

func (plainPicture) state(st *styles, _ laneView, _, _ int) []string {
	return []string{st.muted.Render("(no picture of this algorithm)")}
}
func (plainPicture) row(laneView) (float64, string)      { return 0, "(no picture)" }
func (plainPicture) titles(p algorithms.Policy) []string { return []string{p.String()} }
func (plainPicture) glossary(algorithms.Policy) []string { return nil }

// stateLines draws a lane's state in n lines of w cells with its picture.
// A lane of several policies draws its first policy's picture and a line
// for each further one (its one-row numbers), or, with too few lines, every
// policy's numbers on one.
func stateLines(st *styles, v laneView, w, n int) []string {
	if len(v.layers) > 1 && n <= len(v.layers)-1 {
		_, numbers := laneNumbers(v)
		return []string{fit(numbers, w)}
	}
	more := max(len(v.layers)-1, 0)
	lines := pictureOf(v.policy).state(st, v, w, n-more)
	if len(lines) > n-more {
		lines = lines[:n-more]
	}
	for i := 1; i < len(v.layers); i++ {
		_, numbers := pictureOf(v.layers[i].Policy).row(v.layerView(i))
		lines = append(lines, fit(st.muted.Render("and "+v.layers[i].Name+" ("+scopeWord(v.layers[i])+"): ")+numbers, w))
	}
	return lines
}

// laneNumbers is a lane's one-row gauge and numbers: its picture's, or for a
// lane of several policies the first one's gauge and every policy's
// numbers, named.
func laneNumbers(v laneView) (float64, string) {
	fill, numbers := pictureOf(v.policy).row(v)
	if len(v.layers) < 2 {
		return fill, numbers
	}
	numbers = v.layers[0].Name + " " + numbers
	for i := 1; i < len(v.layers); i++ {
		_, n := pictureOf(v.layers[i].Policy).row(v.layerView(i))
		numbers += " · " + v.layers[i].Name + " " + n
	}
	return fill, numbers
}

// owingPicture is a picture whose lanes of some policies can owe: their
// gauge can go below zero (row's fill), so the state chart keeps rows
// under its zero for them.
type owingPicture interface {
	canOwe(p algorithms.Policy) bool
	// full is the tokens of a full gauge (row's fill of 1).
	full(p algorithms.Policy) float64
}

// canOwe reports whether a lane of p can owe (owingPicture).
func canOwe(p algorithms.Policy) bool {
	o, ok := pictureOf(p).(owingPicture)
	return ok && o.canOwe(p)
}

// owedFull is the tokens of a full gauge of a lane of p that can owe.
func owedFull(p algorithms.Policy) float64 { return pictureOf(p).(owingPicture).full(p) }

// scopeWord is "all keys" for a policy over all keys, "per key" otherwise.
func scopeWord(l algorithms.Layer) string {
	if l.AllKeys {
		return "all keys"
	}
	return "per key"
}

// stackWords says what a stack of policies promises, each in its
// algorithm's words: "admitted only if all admit: account (per key): token
// bucket: …; total (all keys): fixed window: …".
func stackWords(layers []algorithms.Layer) string {
	parts := make([]string, len(layers))
	for i, l := range layers {
		parts[i] = l.Name + " (" + scopeWord(l) + "): " + policyWords(l.Policy)
	}
	if len(layers) == 1 {
		return "one allowance for all keys together: " + policyWords(layers[0].Policy)
	}
	return "admitted only if every policy admits, then spent in each: " + strings.Join(parts, "; ")
}

// stackTitles are a stack's titles, longest first: each policy's shortest
// words, then the first's with the others' names.
func stackTitles(layers []algorithms.Layer) []string {
	if len(layers) == 1 { // one policy over all keys
		var out []string
		for _, t := range policyTexts(layers[0].Policy) {
			out = append(out, t+" (all keys)")
		}
		return append(out, policyTexts(layers[0].Policy)...)
	}
	var all, named []string
	for _, l := range layers {
		ts := policyTexts(l.Policy)
		short := ts[len(ts)-1]
		if l.AllKeys {
			short += " (all keys)"
		}
		all = append(all, short)
		named = append(named, l.Name)
	}
	first := policyTexts(layers[0].Policy)
	return []string{strings.Join(all, " + "), first[len(first)-1] + " + " + strings.Join(named[1:], " + "), strings.Join(named, " + ")}
}

// policyTexts are a lane's algorithm and parameters, longest first.
func policyTexts(p algorithms.Policy) []string { return pictureOf(p).titles(p) }

// policyWords says what a policy promises, in its algorithm's words (they
// belong to the algorithm, not to its picture): "sliding log: at most 120 in
// any 60s".
func policyWords(p algorithms.Policy) string {
	if d := algorithms.Describe(p.Algorithm); d != nil {
		return d.Words(p)
	}
	return p.String()
}

// familyWords says, for a lane that is not a textbook algorithm, whose
// rule it runs: " (nginx's rule, as src/http/…/ngx_http_limit_req_module.c
// has it)" for a library, " (a mistake: …)" for a mistake; "" otherwise.
func familyWords(p algorithms.Policy) string {
	d := algorithms.Describe(p.Algorithm)
	switch {
	case d == nil || d.Source == "":
		return ""
	case d.Family == algorithms.Mistake:
		return " (a classic mistake: " + d.Source + ")"
	}
	return " (the library's own rule: " + d.Source + ")"
}

// canDelay reports whether p holds requests back rather than reject them,
// as its description's MaxDelay says for these parameters (nginx with
// nodelay never does): its lane then has a row of releases on the timeline
// and a count of delayed requests.
func canDelay(p algorithms.Policy) bool {
	d := algorithms.Describe(p.Algorithm)
	return d != nil && d.Delays() && p.MaxDelay() > 0
}

// maxGauge is the widest a gauge grows on a wide lane.
const maxGauge = 60

// gaugeLine is a gauge followed by its numbers, the gauge taking what the
// numbers leave (3 to maxGauge cells); only the numbers when there is no
// room.
func gaugeLine(st *styles, frac float64, numbers string, w int) string {
	gw := min(w-ansi.StringWidth(numbers)-3, maxGauge) // 2 for the brackets, 1 space
	if gw < 3 {
		return numbers
	}
	return gauge(st, frac, gw) + " " + numbers
}

// fraction is n / of, how much of a gauge is filled; ratio is the same for
// a Quantity. Both draw, never decide.
func fraction(n, of int64) float64 { return float64(n) / float64(max(of, 1)) }

func ratio(q algorithms.Quantity, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return q.Float64() / float64(of)
}

package algorithms

import (
	"time"
	"unsafe"
)

// A Decision has no room for several layers' numbers (each layer's v,
// RetryAfter and outcome, beside the decision's own), and a caller may keep
// a decision and ask for its explanation long after (the explorer explains
// each lane's last decision, check its first mismatch at the end): so a
// decision of a stack of several layers carries its layers' verdicts in
// the one allocation of its explain func, a method value holding a copy of
// them. The numbers are all that is copied (no pointer: the garbage
// collector never scans them); what is the same for every decision of the
// stack (the layers, their policies, the funcs that explain their
// verdicts) is in the stack's stackInfo, which the decision's policy
// points into.

// stackInfo is what every decision of a stack of several layers is
// explained with, made once by NewStack and shared by its clones (it never
// changes).
type stackInfo struct {
	layers []Layer
	// entries are, by layer, the policy a decision the layer decided
	// points at.
	entries []layerEntry
	// explains are, by layer, the func that explains its verdicts (every
	// decision of an algorithm has the same).
	explains []func(b []byte, d Decision) []byte
}

// layerEntry is a layer's policy, first, so that a decision's policy that
// points at it also points at the entry.
type layerEntry struct {
	p    Policy
	info *stackInfo
}

// newStackInfo is the stackInfo of layers, whose limiters are lims: the
// func that explains each one's verdicts is that of a decision of a clone
// of it on key (which changes nothing of the layer).
func newStackInfo(layers []Layer, lims []Limiter, key Key) *stackInfo {
	info := &stackInfo{layers: layers, entries: make([]layerEntry, len(layers)), explains: make([]func(b []byte, d Decision) []byte, len(layers))}
	for i, l := range layers {
		info.entries[i] = layerEntry{p: l.Policy, info: info}
		info.explains[i] = lims[i].Clone().DecideKey(0, key, 1).explain
	}
	return info
}

// with is info, or for verdicts that some layer explains with another func
// than info says (none of the algorithms does: each explains every
// decision with one func), a stackInfo of their own funcs.
func (info *stackInfo) with(verdicts []Decision) *stackInfo {
	for i := range verdicts {
		if funcID(verdicts[i].explain) != funcID(info.explains[i]) {
			alt := &stackInfo{layers: info.layers, entries: make([]layerEntry, len(info.entries)), explains: make([]func(b []byte, d Decision) []byte, len(info.entries))}
			for j := range verdicts {
				alt.entries[j] = layerEntry{p: info.entries[j].p, info: alt}
				alt.explains[j] = verdicts[j].explain
			}
			return alt
		}
	}
	return info
}

// explainer is the explain func of a decision whose layers' verdicts are
// vs: a method value holding a copy of their numbers (one allocation, of
// no pointer).
func explainer(vs []Decision) func(b []byte, d Decision) []byte {
	switch len(vs) {
	case 2:
		return verdicts2{verdictOf(&vs[0]), verdictOf(&vs[1])}.explain
	case 3:
		return verdicts3{verdictOf(&vs[0]), verdictOf(&vs[1]), verdictOf(&vs[2])}.explain
	}
	return verdicts4{verdictOf(&vs[0]), verdictOf(&vs[1]), verdictOf(&vs[2]), verdictOf(&vs[3])}.explain
}

// funcID tells two funcs apart: the same function's value is one funcval.
func funcID(f func(b []byte, d Decision) []byte) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&f))
}

// layerVerdict is one layer's numbers on a request: with the request's At
// and Cost, which the stack's decision carries, and the layer's policy and
// explain func, its Decision (a layer of a stack never delays, and has no
// gateway, scope or fallback).
type layerVerdict struct {
	v          [4]int64
	retryAfter time.Duration
	outcome    Outcome
}

func verdictOf(d *Decision) layerVerdict {
	return layerVerdict{v: d.v, retryAfter: d.RetryAfter, outcome: d.Outcome}
}

// decision is layer i's Decision again, on the request of the stack's
// decision d.
func (info *stackInfo) decision(i int, v *layerVerdict, d *Decision) Decision {
	return Decision{Outcome: v.outcome, At: d.At, Cost: d.Cost, RetryAfter: v.retryAfter, explain: info.explains[i], policy: &info.entries[i].p, v: v.v}
}

// verdicts2, 3 and 4 are the verdicts of a stack of that many layers, as a
// decision's explain func holds them (its explain method as a value).
type (
	verdicts2 [2]layerVerdict
	verdicts3 [3]layerVerdict
	verdicts4 [4]layerVerdict
)

func (r verdicts2) explain(b []byte, d Decision) []byte { return explainLayers(b, &d, r[:]) }
func (r verdicts3) explain(b []byte, d Decision) []byte { return explainLayers(b, &d, r[:]) }
func (r verdicts4) explain(b []byte, d Decision) []byte { return explainLayers(b, &d, r[:]) }

// explainLayers words every layer's verdict: "per-account (per key): … →
// allowed; total (all keys together): … → rejected ⇒ refused by total; no
// layer spends it". d is the stack's decision, whose policy is a layer's
// entry's in the stack's stackInfo.
func explainLayers(b []byte, d *Decision, verdicts []layerVerdict) []byte {
	info := (*layerEntry)(unsafe.Pointer(d.policy)).info
	refused := d.Outcome == Rejected
	refusers := 0
	for i, l := range info.layers {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = appendf(b, "%s (%s): ", l.Name, l.Scope())
		v := &verdicts[i]
		b = info.decision(i, v, d).AppendExplain(b)
		switch {
		case v.outcome == Rejected:
			refusers++
		case refused:
			b = append(b, " (had all admitted)"...)
		}
	}
	if refusers == 0 {
		return append(b, " ⇒ every policy admits: spent in all"...)
	}
	b = append(b, " ⇒ refused by "...)
	first := true
	for i, l := range info.layers {
		if verdicts[i].outcome != Rejected {
			continue
		}
		if !first {
			b = append(b, " and "...)
		}
		b, first = append(b, l.Name...), false
	}
	b = append(b, ": no policy spends it"...)
	if refusers > 1 {
		b = appendf(b, "; retry after %s, the longest of their waits", secs(d.RetryAfter))
	}
	return b
}

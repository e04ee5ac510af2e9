package algorithms

// stackVerdicts is what explains a decision of a stack of several layers:
// each layer's own verdict on the request, kept with the decision.
type stackVerdicts struct {
	layers   []Layer
	verdicts [MaxLayers]Decision
}

// explain words every layer's verdict: "per-account (per key): … →
// allowed; total (all keys together): … → rejected ⇒ refused by total; no
// layer spends it". d is the stack's decision.
func (r *stackVerdicts) explain(b []byte, d Decision) []byte {
	refused := d.Outcome == Rejected
	refusers := 0
	for i, l := range r.layers {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = appendf(b, "%s (%s): ", l.Name, l.Scope())
		v := r.verdicts[i]
		b = v.AppendExplain(b)
		switch {
		case v.Outcome == Rejected:
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
	for i, l := range r.layers {
		if r.verdicts[i].Outcome != Rejected {
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

package algorithms

import (
	"fmt"
	"strings"
)

// explainStack words every layer's verdict: "per-account (per key): … →
// allowed; total (all keys together): … → rejected ⇒ refused by total; no
// layer spends it".
func explainStack(layers []Layer, verdicts []Decision, d *Decision) string {
	if len(layers) == 1 {
		return layers[0].Scope() + ": " + verdicts[0].Explain()
	}
	var b strings.Builder
	var refusers []string
	refused := d.Outcome == Rejected
	for i, v := range verdicts {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%s): %s", layers[i].Name, layers[i].Scope(), v.Explain())
		switch {
		case v.Outcome == Rejected:
			refusers = append(refusers, layers[i].Name)
		case refused:
			b.WriteString(" (had all admitted)")
		}
	}
	if len(refusers) == 0 {
		b.WriteString(" ⇒ every policy admits: spent in all")
		return b.String()
	}
	fmt.Fprintf(&b, " ⇒ refused by %s: no policy spends it", strings.Join(refusers, " and "))
	if len(refusers) > 1 {
		fmt.Fprintf(&b, "; retry after %s, the longest of their waits", FormatSeconds(d.RetryAfter))
	}
	return b.String()
}

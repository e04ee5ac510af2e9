package model

import (
	"reflect"
	"slices"

	"ratelab/scenarios"
)

// Relane is Rebase for a scenario that differs from the lab's in its
// lanes alone (M adds or takes away mistake lanes): the new lab takes over
// the lab's timeline, as it is, rather than expanding the traffic again and
// firing the learner's actions anew, so that it costs no more than its
// lanes, whatever the requests. The result is Rebase's: the same requests,
// the actions since the latest reset one Undo each, the axis as the new
// lanes' horizon stretches it, the clock where it was. The lab is spent:
// its timeline is the new lab's, and it must not be used again. When s's
// traffic is not the lab's, or some action no longer fits s, it is
// Rebase.
func (l *Lab) Relane(s *scenarios.Scenario) (nl *Lab, kept, dropped int, err error) {
	if !sameTraffic(l.scenario, s) {
		return l.Rebase(s)
	}
	defs := LanesOf(s)
	window := l.peakChoice
	if window <= 0 {
		window = DefaultPeakWindow(defs)
	}
	tl := l.timeline
	e, err := newEngine(tl, defs, window, nil, newClientBook(s))
	if err != nil {
		return nil, 0, 0, err
	}
	nl = &Lab{scenario: s, peakChoice: l.peakChoice, timeline: tl, engine: e, clock: newClock(tl, e), caches: newCaches()}
	acts := tl.fireActions()
	for _, f := range acts {
		if nl.CheckCost(f.cost) != nil {
			return l.Rebase(s) // the timeline is untouched yet
		}
		kept += f.n
	}
	// The history is the actions fired again, with the axis each found.
	h := horizon(defs)
	hist := make([]action, 0, len(acts))
	tl.end = tl.duration
	for i, a := range tl.history[len(tl.history)-len(acts):] {
		a.end = tl.end
		hist = append(hist, a)
		f := acts[i]
		tl.end = max(tl.end, min(f.item().Time(int64(f.n-1))+h, scenarios.MaxTime))
	}
	tl.history = hist
	nl.clock.seek(0)
	nl.Seek(l.clock.now)
	return nl, kept, 0, nil
}

// sameTraffic reports whether a and b expand to the same requests: the
// same traffic, the very same logs, clients, duration and seed (the lanes,
// notes and quiz aside).
func sameTraffic(a, b *scenarios.Scenario) bool {
	return a.Duration == b.Duration && a.Seed == b.Seed &&
		reflect.DeepEqual(a.Traffic, b.Traffic) && slices.Equal(a.Logs, b.Logs) && reflect.DeepEqual(a.Clients, b.Clients)
}

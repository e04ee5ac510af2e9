package ui

import (
	tea "charm.land/bubbletea/v2"

	"ratelab/model"
)

// A pinned key's verdict is the lanes' decision on its latest request,
// which the lab finds by replaying from the checkpoint before it: with
// 100,000 keys, checkpoints lie a hundred thousand requests apart, and the
// replay would freeze the screen. So the explorer works it out a slice at
// a time after each message (workOnVerdict), keys and frames going on
// between slices; until it is done the lanes say that it is being worked
// out and show no verdict (never one of another request). The work is kept
// while the key's latest request and the decisions stay the same, so a
// clock that moves on (play, steps) does not start it again.

// syncVerdict is the replay short enough to do at once, whatever the
// time it takes: two checkpoint intervals of ordinary traffic, so that a
// small timeline always shows its verdict in the same frame.
const syncVerdict = 2 * model.CheckpointEvery

// verdictMsg asks for the next slice of work on the shown key's verdict.
type verdictMsg struct{}

// workOnVerdict works for about sliceBudget on the shown key's verdict,
// after msg was handled, and asks for another slice if it is still not
// done. A job's slices come first: the verdict waits for its end.
func (a *App) workOnVerdict(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(verdictMsg); ok {
		a.verdictQueued = false
	}
	if a.job != nil || a.lab == nil {
		return nil
	}
	key, lab, p := a.key(), a.lab, &a.pace
	left, pending := lab.PendingLastDecisionFor(key)
	if !pending {
		return nil
	}
	if left <= syncVerdict {
		lab.WorkOnLastDecisionFor(key, left)
		return nil
	}
	start := p.now()
	for {
		n, t0 := min(p.chunk(sliceBudget), left), p.now()
		still := lab.WorkOnLastDecisionFor(key, n)
		t1 := p.now()
		p.learn(n, t1.Sub(t0))
		if !still {
			return nil
		}
		if t1.Sub(start) >= sliceBudget {
			break
		}
		if left, pending = lab.PendingLastDecisionFor(key); !pending {
			return nil
		}
	}
	if a.verdictQueued {
		return nil
	}
	a.verdictQueued = true
	return func() tea.Msg { return verdictMsg{} }
}

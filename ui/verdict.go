package ui

import (
	tea "charm.land/bubbletea/v2"

	"ratelab/model"
)

// A pinned key's verdict is the lanes' decision on its latest request,
// which the lab finds by replaying from the checkpoint before it: with
// 100,000 keys, checkpoints lie a hundred thousand requests apart, and the
// replay would freeze the screen. So the explorer works it out a slice at
// a time, each slice on a message of its own (verdictMsg), keys and frames
// going on between slices; until it is done the lanes say that it is being
// worked out and show no verdict (never one of another request). The work
// is kept while the key's latest request and the decisions stay the same,
// so a clock that moves on (play, steps) does not start it again.
//
// A slice is never added to another message's work: a key, a frame of
// play or a job's slice may already have spent its own budget deciding,
// and the two together would leave the screen unchanged twice as long.

// syncVerdict is the replay short enough to do at once, whatever the
// time it takes: two checkpoint intervals of ordinary traffic, so that a
// small timeline always shows its verdict in the same frame.
const syncVerdict = 2 * model.CheckpointEvery

// verdictMsg asks for the next slice of work on the shown key's verdict.
type verdictMsg struct{}

// workOnVerdict follows the shown key's verdict after msg was handled. A
// verdict that needs no more than syncVerdict requests replayed is worked
// out at once, after any message. A longer one is worked on only on a
// verdictMsg, for about sliceBudget (replaying, timed apart from deciding:
// pacer); after any other message, and after a slice that did not finish
// it, a verdictMsg is asked for, unless one is already on its way. A job's
// slices come first: the verdict waits for its end.
func (a *App) workOnVerdict(msg tea.Msg) tea.Cmd {
	_, own := msg.(verdictMsg)
	if own {
		a.verdictQueued = false
	}
	if a.job != nil || a.lab == nil {
		return nil
	}
	key, lab := a.key(), a.lab
	left, pending := lab.PendingLastDecisionFor(key)
	if !pending {
		return nil
	}
	if left <= syncVerdict {
		lab.WorkOnLastDecisionFor(key, left)
		return nil
	}
	if own && a.pace.slice(&a.pace.replaying, sliceBudget, func(n int) (int, bool) {
		left, pending := lab.PendingLastDecisionFor(key)
		if !pending {
			return 0, false
		}
		n = min(n, left)
		return n, lab.WorkOnLastDecisionFor(key, n)
	}) {
		return nil
	}
	if a.verdictQueued {
		return nil
	}
	a.verdictQueued = true
	return func() tea.Msg { return verdictMsg{} }
}

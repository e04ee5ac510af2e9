package ui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// keyMap is every key binding of the explorer: two that work in every mode,
// then one group per mode (mode.go); a mode may answer some of the lab's
// keys too (a page closes on the key that opened it, the quiz's question
// opens the help). No other file binds or matches a key by its name: the
// modes match these bindings with key.Matches, the footers and the help
// page (?) are drawn from them, and the keyboard reader (input.go) finds
// the quit keys and the passive keys by them before Bubble Tea does.
type keyMap struct {
	// ForceQuit quits at once from any mode, asking nothing; Suspend
	// suspends the explorer as a shell job (fg takes it back).
	ForceQuit, Suspend key.Binding

	Lab     labKeys
	Job     jobKeys
	Confirm confirmKeys
	Prompt  promptKeys
	Picker  pickerKeys
	Page    pageKeys
	Quiz    quizKeys
}

// labKeys are the lab's own bindings, the main screen's. The full help (?)
// is generated from them, so a binding added here is documented there.
type labKeys struct {
	Fire, Burst, Cost, NextKey, NewKey     key.Binding
	StepFwd, StepBack, LeapFwd, LeapBack   key.Binding
	NextReq, PrevReq, NextSplit, PrevSplit key.Binding
	NextNote, PrevNote, Start, End         key.Binding
	Play, ToMoment, Faster, Slower         key.Binding
	StopNotes, Quiz, Mistakes, Fit         key.Binding
	Undo, Reset                            key.Binding
	FocusNext, FocusPrev, ZoomIn, ZoomOut  key.Binding
	Expand, PeakWindow, Chart              key.Binding
	About, Open, Save, Help, Quit          key.Binding

	// short is the footer: some of the keys above, in fewer words; right
	// is what the footer keeps in sight on its right, "? help · q quit".
	short, right []key.Binding
}

// jobKeys answer while a long job decides requests (compute.go); every
// other key waits for it.
type jobKeys struct{ GiveUp, Quit key.Binding }

// confirmKeys answer a confirmation (confirm.go): Yes does what it asks,
// SaveFirst saves and then does it; any other key stays, as Stay says.
type confirmKeys struct{ Yes, SaveFirst, Stay key.Binding }

// promptKeys are the prompt's own keys (prompt.go); the rest edit the text.
// Edit is shown only while a proposal waits: it takes the proposal up for
// editing, where typed text would replace it.
type promptKeys struct{ Submit, Edit, Cancel key.Binding }

// pickerKeys move through the picker's list and choose (picker.go).
type pickerKeys struct {
	Up, Down, First, Last, Choose, Close, Quit key.Binding
	// right is the footer's right: quit (the picker has no help page).
	right []key.Binding
}

// pageKeys scroll and close the help, about and panel pages (pages.go);
// the key that opened a page closes it too.
type pageKeys struct{ Close, Choose, Up, Down, PageUp, PageDown, Quit key.Binding }

// quizKeys answer the quiz's question (quiz.go).
type quizKeys struct{ Admit, Delay, Reject, Leave key.Binding }

func newKeyMap() keyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := func(keys ...string) []string { return keys }
	lab := labKeys{
		Fire:    b(k("space"), "space", "fire a request"),
		Burst:   b(k("b"), "b", "fire a burst"),
		Cost:    b(k("c"), "c", "set the cost"),
		NextKey: b(k("k"), "k", "switch key"),
		NewKey:  b(k("K"), "K", "fire as a new key"),

		StepFwd:   b(k("right", "l"), "→/l", "step forward"),
		StepBack:  b(k("left", "h"), "←/h", "step back"),
		LeapFwd:   b(k("shift+right", "L"), "⇧→/L", "10 steps forward"),
		LeapBack:  b(k("shift+left", "H"), "⇧←/H", "10 steps back"),
		NextReq:   b(k("n"), "n", "next request (one at a time)"),
		PrevReq:   b(k("N"), "N", "previous request"),
		NextSplit: b(k("d"), "d", "next disagreement"),
		PrevSplit: b(k("D"), "D", "prev. disagreement"),
		NextNote:  b(k("]"), "]", "next note"),
		PrevNote:  b(k("["), "[", "previous note"),
		Start:     b(k("home", "g"), "home/g", "to t = 0"),
		End:       b(k("end", "G"), "end/G", "to the end"),

		Play:      b(k("p"), "p", "play / pause"),
		ToMoment:  b(k("P"), "P", "play to next note/disagreement"),
		Faster:    b(k("+", "="), "+", "faster"),
		Slower:    b(k("-", "_"), "-", "slower"),
		StopNotes: b(k("m"), "m", "stop at notes on/off"),
		Quiz:      b(k("t"), "t", "quiz: predict, then see"),
		Mistakes:  b(k("M"), "M", "mistake lanes of this lane on/off"),
		Fit:       b(k("F"), "F", "fitted lane: smallest refusing none, on/off"),
		Chart:     b(k("v"), "v", "state over time on/off"),

		Undo:  b(k("u"), "u", "undo last fire or reset"),
		Reset: b(k("r"), "r", "reset"),

		FocusNext: b(k("tab"), "tab", "next lane"),
		FocusPrev: b(k("shift+tab"), "⇧tab", "previous lane"),
		ZoomIn:    b(k("z"), "z", "zoom in"),
		ZoomOut:   b(k("Z"), "Z", "zoom out"),

		Expand:     b(k("e"), "e", "read notes and why whole"),
		PeakWindow: b(k("w"), "w", "set the peak window"),

		About: b(k("a"), "a", "about scenario"),
		Open:  b(k("o"), "o", "open scenario or file"),
		Save:  b(k("s"), "s", "save as file"),
		Help:  b(k("?"), "?", "this help"),
		Quit:  b(k("q", "ctrl+c"), "q", "quit"),
	}
	// A lesson is gone through note by note, so ] comes first after the
	// fire key (the footer leaves it out when there is no note).
	lab.short = []key.Binding{
		shortly(lab.Fire, "fire"),
		shortly(lab.NextNote, "next note"),
		b(k("right", "left"), "←/→", "step"),
		shortly(lab.Play, "play"),
		shortly(lab.NextSplit, "disagreement"),
		shortly(lab.NextReq, "next request"),
		shortly(lab.Expand, "read all"),
		shortly(lab.FocusNext, "lane"),
		shortly(lab.Quiz, "quiz"),
		shortly(lab.Burst, "burst"),
		shortly(lab.Undo, "undo"),
		shortly(lab.About, "about"),
	}
	lab.right = []key.Binding{shortly(lab.Help, "help"), shortly(lab.Quit, "quit")}
	esc, enter := k("esc"), k("enter")
	return keyMap{
		ForceQuit: b(k("ctrl+c"), "ctrl+c", "quit at once"),
		// Not on the help page: every terminal program takes ctrl+z so.
		Suspend: b(k("ctrl+z"), "ctrl+z", "suspend (fg takes it back)"),

		Lab: lab,
		Job: jobKeys{
			GiveUp: b(esc, "esc", "gives up"),
			Quit:   shortly(lab.Quit, "quits"),
		},
		Confirm: confirmKeys{
			Yes:       b(k("y", "Y"), "y", "yes"),
			SaveFirst: b(k("s"), "s", "save first"),
			Stay:      b(esc, "other", "stay"),
		},
		Prompt: promptKeys{
			Submit: b(enter, "enter", "ok"),
			Edit:   b(k("right", "left", "end", "home"), "→", "edit the proposal"),
			Cancel: b(esc, "esc", "cancel"),
		},
		Picker: pickerKeys{
			Up:     b(k("up", "k"), "↑/k", "up"),
			Down:   b(k("down", "j"), "↓/j", "down"),
			First:  b(k("home", "g"), "home/g", "first"),
			Last:   b(k("end", "G"), "end/G", "last"),
			Choose: b(enter, "enter", "open"),
			Close:  b(k("esc", "o"), "esc", "back"),
			Quit:   lab.Quit,
			right:  []key.Binding{shortly(lab.Quit, "quit")},
		},
		// Only arrows and page keys scroll: every other key of the lab
		// closes the page and does its job, so that a learner who starts
		// typing on the about page is not ignored.
		Page: pageKeys{
			Close:    b(esc, "esc", "close"),
			Choose:   b(enter, "enter", "choose"),
			Up:       b(k("up"), "↑", "scroll up"),
			Down:     b(k("down"), "↓", "scroll down"),
			PageUp:   b(k("pgup"), "pgup", "page up"),
			PageDown: b(k("pgdown"), "pgdn", "page down"),
			Quit:     lab.Quit,
		},
		Quiz: quizKeys{
			Admit:  b(k("a"), "a", "admitted now"),
			Delay:  b(k("d"), "d", "delayed"),
			Reject: b(k("r"), "r", "rejected"),
			Leave:  b(k("esc", "t"), "esc", "leave the quiz"),
		},
	}
}

// passive are the keys that neither fire a request, nor open a prompt,
// nor ask a question: a q typed after them quits as it would before them.
func (k keyMap) passive() []key.Binding {
	l := k.Lab
	return []key.Binding{
		l.StepFwd, l.StepBack, l.LeapFwd, l.LeapBack, l.NextReq, l.PrevReq, l.NextSplit, l.PrevSplit,
		l.NextNote, l.PrevNote, l.Start, l.End, l.Play, l.ToMoment, l.Faster, l.Slower, l.StopNotes,
		l.FocusNext, l.FocusPrev, l.ZoomIn, l.ZoomOut, l.NextKey, l.Expand, l.Help, l.About,
		k.Page.Close, k.Picker.Up, k.Picker.Down,
	}
}

// early are the keys the keyboard reader watches for ahead of the
// explorer (input.go).
func (k keyMap) early() earlyKeys {
	return earlyKeys{quit: k.ForceQuit, quitIfIdle: k.Lab.Quit, passive: k.passive()}
}

// ShortHelp is the footer: the keys a newcomer needs first. The footer
// adds right ("? help · q quit") on the right, always in sight.
func (k labKeys) ShortHelp() []key.Binding { return k.short }

// FullHelp is the ? screen, one column per group.
func (k labKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.StepFwd, k.StepBack, k.LeapFwd, k.LeapBack, k.NextReq, k.PrevReq, k.NextSplit, k.PrevSplit, k.NextNote, k.PrevNote, k.Start, k.End},
		{k.Play, k.ToMoment, k.Faster, k.Slower, k.StopNotes, k.Quiz, k.Fire, k.Burst, k.Cost, k.NextKey, k.NewKey, k.Undo, k.Reset},
		{k.FocusNext, k.FocusPrev, k.ZoomIn, k.ZoomOut, k.Expand, k.PeakWindow, k.Chart, k.Mistakes, k.Fit, k.About, k.Open, k.Save, k.Help, k.Quit},
	}
}

// helpGroupTitles name FullHelp's columns, in order.
var helpGroupTitles = []string{"clock", "play & fire", "view & file"}

// The other groups are help.KeyMaps too: ShortHelp is the mode's footer
// (the job's keys are in its progress, under the lab's footer), FullHelp
// the same keys as one column.

func (k jobKeys) ShortHelp() []key.Binding      { return []key.Binding{k.GiveUp, k.Quit} }
func (k jobKeys) FullHelp() [][]key.Binding     { return [][]key.Binding{k.ShortHelp()} }
func (k confirmKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Yes, k.SaveFirst, k.Stay} }
func (k confirmKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
func (k promptKeys) ShortHelp() []key.Binding   { return []key.Binding{k.Submit, k.Edit, k.Cancel} }
func (k promptKeys) FullHelp() [][]key.Binding  { return [][]key.Binding{k.ShortHelp()} }
func (k pickerKeys) ShortHelp() []key.Binding   { return []key.Binding{k.Up, k.Down, k.Choose, k.Close} }
func (k pickerKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.First, k.Last, k.Choose, k.Close}}
}
func (k quizKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Admit, k.Delay, k.Reject, k.Leave}
}
func (k quizKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func (k pageKeys) ShortHelp() []key.Binding {
	return []key.Binding{
		shortly(k.Close, "back to the lab"),
		key.NewBinding(key.WithKeys(append(k.Up.Keys(), k.Down.Keys()...)...), key.WithHelp("↑/↓", "scroll")),
	}
}

func (k pageKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// shortly rewords b for a footer.
func shortly(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// keysText writes bindings as a sentence of the status line: "esc gives up
// · q quits".
func keysText(bs ...key.Binding) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.Help().Key + " " + b.Help().Desc
	}
	return strings.Join(parts, " · ")
}

// keysRight draws bindings in the footer's styles, for its right part: "?
// help · q quit".
func keysRight(h help.Styles, bs []key.Binding) string {
	var buf [8]string // the footers' right parts have two keys at most
	parts := buf[:0]
	for i, b := range bs {
		if i > 0 {
			parts = append(parts, h.ShortSeparator.Render(" · "))
		}
		parts = append(parts, h.ShortKey.Render(b.Help().Key), " ", h.ShortDesc.Render(b.Help().Desc))
	}
	return strings.Join(parts, "")
}

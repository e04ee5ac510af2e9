package ui

import "charm.land/bubbles/v2/key"

// keyMap is every binding of the explorer's main screen. The full help (?)
// is generated from it, so a binding added here is documented there.
type keyMap struct {
	Fire, Burst, Cost, NextKey, NewKey     key.Binding
	StepFwd, StepBack, LeapFwd, LeapBack   key.Binding
	NextReq, PrevReq, NextSplit, PrevSplit key.Binding
	NextNote, PrevNote, Start, End         key.Binding
	Play, ToMoment, Faster, Slower         key.Binding
	StopNotes, Quiz, Mistakes              key.Binding
	Undo, Reset                            key.Binding
	FocusNext, FocusPrev, ZoomIn, ZoomOut  key.Binding
	Expand, PeakWindow                     key.Binding
	About, Open, Save, Help, Quit, Suspend key.Binding
	Close, Up, Down, Choose                key.Binding // in overlays

	// short is the footer: some of the keys above, in fewer words.
	short []key.Binding
}

func newKeyMap() keyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := func(keys ...string) []string { return keys }
	km := keyMap{
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
		// Not on the help page: every terminal program takes ctrl+z so.
		Suspend: b(k("ctrl+z"), "ctrl+z", "suspend (fg takes it back)"),

		Close:  b(k("esc"), "esc", "close"),
		Up:     b(k("up", "k"), "↑/k", "up"),
		Down:   b(k("down", "j"), "↓/j", "down"),
		Choose: b(k("enter"), "enter", "choose"),
	}
	km.short = []key.Binding{
		shortly(km.Fire, "fire"),
		shortly(km.NextSplit, "next disagreement"),
		key.NewBinding(key.WithKeys("right", "left"), key.WithHelp("←/→", "step")),
		shortly(km.Play, "play"),
		shortly(km.NextReq, "next request"),
		shortly(km.Expand, "read all"),
		shortly(km.FocusNext, "lane"),
		shortly(km.Quiz, "quiz"),
		shortly(km.Burst, "burst"),
		shortly(km.Undo, "undo"),
		shortly(km.About, "about"),
	}
	return km
}

// passive are the keys that neither fire a request, nor open a prompt,
// nor ask a question: a q typed after them quits as it would before them.
func (k keyMap) passive() []key.Binding {
	return []key.Binding{
		k.StepFwd, k.StepBack, k.LeapFwd, k.LeapBack, k.NextReq, k.PrevReq, k.NextSplit, k.PrevSplit,
		k.NextNote, k.PrevNote, k.Start, k.End, k.Play, k.ToMoment, k.Faster, k.Slower, k.StopNotes,
		k.FocusNext, k.FocusPrev, k.ZoomIn, k.ZoomOut, k.NextKey, k.Expand, k.Help, k.About,
		k.Close, k.Up, k.Down,
	}
}

// ShortHelp is the footer: the keys a newcomer needs first. The footer
// adds "? help · q quit" on the right, always in sight.
func (k keyMap) ShortHelp() []key.Binding { return k.short }

// shortly rewords b for the footer.
func shortly(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// FullHelp is the ? screen, one column per group.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.StepFwd, k.StepBack, k.LeapFwd, k.LeapBack, k.NextReq, k.PrevReq, k.NextSplit, k.PrevSplit, k.NextNote, k.PrevNote, k.Start, k.End},
		{k.Play, k.ToMoment, k.Faster, k.Slower, k.StopNotes, k.Quiz, k.Fire, k.Burst, k.Cost, k.NextKey, k.NewKey, k.Undo, k.Reset},
		{k.FocusNext, k.FocusPrev, k.ZoomIn, k.ZoomOut, k.Expand, k.PeakWindow, k.Mistakes, k.About, k.Open, k.Save, k.Help, k.Quit},
	}
}

// helpGroupTitles name FullHelp's columns, in order.
var helpGroupTitles = []string{"clock", "play & fire", "view & file"}

// pageKeys is the footer over the help and about pages.
type pageKeys keyMap

func (k pageKeys) ShortHelp() []key.Binding {
	return []key.Binding{
		shortly(k.Close, "back to the lab"),
		key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "scroll")),
	}
}

func (k pageKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

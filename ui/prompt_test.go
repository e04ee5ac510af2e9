package ui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPromptCarriesItsSubmit: the prompt hands the trimmed answer to its
// ask's submit; an error keeps it open, said in the status line and the
// footer (the refused proposal still waits, and typing replaces it);
// once submit succeeds the prompt closes and its command is returned.
func TestPromptCarriesItsSubmit(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	var got []string
	done := func() tea.Msg { return "done" }
	a.openPrompt(&ask{prompt: "how many? ", value: "1", submit: func(v string) (tea.Cmd, error) {
		got = append(got, v)
		if v != "12" {
			return nil, errors.New("not " + v)
		}
		return done, nil
	}})
	press(a, "enter")
	if !a.prompt.active() || !a.status.err || a.status.text != "not 1" {
		t.Fatalf("an answer refused: prompt open %v, status %q", a.prompt.active(), a.status.text)
	}
	if footer := lastLine(screen(a)); !strings.HasPrefix(footer, "not 1") {
		t.Errorf("the footer does not say what was wrong: %q", footer)
	}
	typeText(a, "12 ")
	cmd := press(a, "enter")
	if a.prompt.active() || cmd == nil || cmd() != "done" {
		t.Fatalf("an answer taken: prompt open %v", a.prompt.active())
	}
	if strings.Join(got, ",") != "1,12" {
		t.Errorf("submit was given %q, want the trimmed answers", got)
	}
}

// TestPromptCancel: esc closes the prompt and does the ask's cancel, or
// says "cancelled" when it has none.
func TestPromptCancel(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	never := func(string) (tea.Cmd, error) { t.Error("submitted"); return nil, nil }
	a.openPrompt(&ask{prompt: "? ", submit: never})
	press(a, "esc")
	if a.prompt.active() || a.status.text != "cancelled" {
		t.Errorf("esc: prompt open %v, status %q", a.prompt.active(), a.status.text)
	}
	cancelled := false
	a.status.clear()
	a.openPrompt(&ask{prompt: "? ", submit: never, cancel: func() { cancelled = true }})
	press(a, "esc")
	if a.prompt.active() || !cancelled || a.status.text == "cancelled" {
		t.Errorf("esc with a cancel: prompt open %v, cancelled %v, status %q", a.prompt.active(), cancelled, a.status.text)
	}
}

// TestPromptEdited: edited is told of the keys that go to the text, not
// of enter or esc.
func TestPromptEdited(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	edits := 0
	a.openPrompt(&ask{prompt: "? ", edited: func() { edits++ }, submit: func(string) (tea.Cmd, error) {
		return nil, errors.New("again")
	}})
	typeText(a, "ab")
	press(a, "left", "backspace", "enter")
	if edits != 4 || a.prompt.input.Value() != "b" {
		t.Errorf("%d edits told, text %q; want 4 and \"b\"", edits, a.prompt.input.Value())
	}
}

// TestPromptAnswerOpensAnother: a submit that asks another question
// leaves that one open.
func TestPromptAnswerOpensAnother(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	second := &ask{prompt: "second? ", submit: func(string) (tea.Cmd, error) { return nil, nil }}
	a.openPrompt(&ask{prompt: "first? ", submit: func(string) (tea.Cmd, error) { return a.openPrompt(second), nil }})
	press(a, "enter")
	if a.prompt.ask != second || a.prompt.input.Prompt != "second? " {
		t.Errorf("after the first answer the prompt asks %q", a.prompt.input.Prompt)
	}
}

func lastLine(s string) string { return s[strings.LastIndex(s, "\n")+1:] }

// TestPromptProposal: a proposed answer is accepted by enter as it is,
// replaced by the first text typed (not appended to: "10" then "120" is
// 120), cleared by a backspace, and taken up for editing by an arrow,
// home or end; the footer offers the editing only while it waits.
func TestPromptProposal(t *testing.T) {
	for _, c := range []struct {
		name  string
		keys  []string // pressed before the text
		text  string
		want  string
		edits bool // the footer still offers → once the keys are pressed
	}{
		{name: "enter accepts it", want: "10 100ms", edits: true},
		{name: "text replaces it", text: "120 100ms", want: "120 100ms"},
		{name: "backspace clears it", keys: []string{"backspace"}, want: ""},
		{name: "backspace then text", keys: []string{"backspace"}, text: "7", want: "7"},
		{name: "right edits at its end", keys: []string{"right"}, text: "0", want: "10 100ms0"},
		{name: "end edits at its end", keys: []string{"end"}, text: "0", want: "10 100ms0"},
		{name: "left edits at its start", keys: []string{"left"}, text: "2", want: "210 100ms"},
		{name: "home edits at its start", keys: []string{"home"}, text: "2", want: "210 100ms"},
		{name: "ctrl+u clears it", keys: []string{"ctrl+u"}, text: "3", want: "3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newTestApp(t, "boundary", 100, 30)
			var got []string
			a.openPrompt(&ask{prompt: "how many? ", value: "10 100ms", submit: func(v string) (tea.Cmd, error) {
				got = append(got, v)
				return nil, nil
			}})
			press(a, c.keys...)
			typeText(a, c.text)
			footer := lastLine(screen(a))
			if offered := strings.Contains(footer, "→ edit"); offered != c.edits {
				t.Errorf("footer %q offers → edit: %v, want %v", footer, offered, c.edits)
			}
			press(a, "enter")
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("submitted %q, want [%q]", got, c.want)
			}
		})
	}
}

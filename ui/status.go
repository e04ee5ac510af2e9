package ui

// statusLine is the line that says what the last action did, or what went
// wrong. Every main-screen key replaces it or clears it, so that it never
// describes an earlier moment.
type statusLine struct {
	ctx  *programContext
	text string
	err  bool
}

func (s *statusLine) set(text string)      { s.text, s.err = text, false }
func (s *statusLine) setError(text string) { s.text, s.err = text, true }
func (s *statusLine) clear()               { s.set("") }

// view draws the status in w cells: errors marked "!" in the error style.
func (s *statusLine) view(w int) string {
	st := s.ctx.st
	switch {
	case s.text == "":
		return fit("", w)
	case s.err:
		return fit(st.errText.Render("! "+s.text), w)
	}
	return fit(st.status.Render(s.text), w)
}

package ui

// statusLine is the line that says what the last action did, or what went
// wrong. Every main-screen key replaces it or clears it, so that it never
// describes an earlier moment.
type statusLine struct {
	ctx  *programContext
	text string
	err  bool
	// draw, when set, is what the line says at a width, worked out as it
	// is drawn (text stays what it is about): how a quiz's answers went,
	// said here only while the why panel does not say it already.
	draw func(w int) string
}

func (s *statusLine) set(text string)      { s.text, s.err, s.draw = text, false, nil }
func (s *statusLine) setError(text string) { s.text, s.err, s.draw = text, true, nil }
func (s *statusLine) clear()               { s.set("") }

// setDrawn is set with what the line says worked out at each drawing.
func (s *statusLine) setDrawn(text string, draw func(w int) string) {
	s.set(text)
	s.draw = draw
}

// view draws the status in w cells: errors marked "!" in the error style.
func (s *statusLine) view(w int) string {
	st := s.ctx.st
	switch {
	case s.text == "":
		return fit("", w)
	case s.draw != nil:
		return fit(st.status.Render(s.draw(w)), w)
	case s.err:
		return fit(st.errText.Render("! "+s.text), w)
	}
	return fit(st.status.Render(s.text), w)
}

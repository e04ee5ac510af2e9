package progress

import (
	"io"

	"github.com/charmbracelet/x/term"
)

// IsTerminal says whether w is a terminal: a file (os.Stderr, say) whose
// descriptor is one. Anything else, a buffer or a pipe, is not.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}

package scenarios

import (
	"errors"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// ParseDuration reads text as a scenario file reads the value of a duration
// field such as `until: TEXT`, with the same rules and the same words: a Go
// duration in [0, MaxTime], or in (0, MaxTime] when positive, and a bare
// number is refused because it needs a unit. The error has no file position:
// "want a positive Go duration such as 60s (a number needs a unit), got 61".
func ParseDuration(text string, positive bool) (time.Duration, error) {
	d := &decoder{}
	n, err := d.parseYAML([]byte(text))
	if _, null := n.(*ast.NullNode); err != nil || null {
		n = ast.String(token.New(text, text, &token.Position{}))
	}
	f := &fields{d: d, node: n, fields: []field{{name: "", key: n, value: n}}}
	v, _, err := f.duration("", positive)
	if e, ok := err.(*Error); ok {
		return 0, errors.New(e.Msg)
	}
	return v, err
}

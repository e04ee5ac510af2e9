package progress

import (
	"bytes"
	"os"
	"testing"
)

func TestPipesAndBuffersAreNotTerminals(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(w) {
		t.Error("IsTerminal(a pipe) = true")
	}
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("IsTerminal(a buffer) = true")
	}
}

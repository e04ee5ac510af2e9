package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"ratelab/model"
	"ratelab/scenarios"
)

// BenchmarkStartupManyKeys is BenchmarkStartup on tools/many-keys.yaml
// (100,000 keys, 1,000,000 requests): reading the file, building the lab
// and drawing the first frame, as `ratelab tools/many-keys.yaml` does
// before its first frame.
func BenchmarkStartupManyKeys(b *testing.B) {
	for b.Loop() {
		s, err := scenarios.Load("../tools/many-keys.yaml")
		if err != nil {
			b.Fatal(err)
		}
		lab, err := model.New(s, 0)
		if err != nil {
			b.Fatal(err)
		}
		a := New(lab, Options{About: true})
		a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		a.render()
	}
}

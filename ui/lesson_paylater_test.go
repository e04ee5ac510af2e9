package ui

import "time"

func init() {
	// Guava's next caller waiting for the large request it granted.
	moreLessons = append(moreLessons, struct {
		name string
		at   time.Duration
	}{"pay-later", 10500 * time.Millisecond})
}

package ui

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	pictureCases = append(pictureCases,
		pictureCase{algorithms.Guava, "{name: guava, algorithm: guava, rate: 2/s}", 1500 * time.Millisecond, "next free"},
		pictureCase{algorithms.GuavaTry, "{name: try, algorithm: guava-try, rate: 2/s, timeout: 1s}", 1500 * time.Millisecond, "stored"},
	)
}

package ui

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	// A window of 2s in 4 sub-windows of 0.5s: the counts of the sub-windows
	// show in a row.
	pictureCases = append(pictureCases, pictureCase{algorithms.SlidingCounter,
		"{name: subs, algorithm: sliding-counter, limit: 12, window: 2s, sub_windows: 4}", 2700 * time.Millisecond, "per 0.5s"})
}

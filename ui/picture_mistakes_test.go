package ui

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	pictureCases = append(pictureCases,
		pictureCase{algorithms.FloatTokenBucket, "{name: float, algorithm: float-token-bucket, capacity: 10, rate: 2/s}", 1500 * time.Millisecond, "float64"},
		pictureCase{algorithms.WholeTokenBucket, "{name: whole, algorithm: whole-token-bucket, capacity: 10, rate: 3/s}", 1500 * time.Millisecond, "whole tokens"},
		pictureCase{algorithms.AttemptLog, "{name: attempts, algorithm: attempt-log, limit: 12, window: 10s}", 1500 * time.Millisecond, "attempts"},
		pictureCase{algorithms.CollapsingLog, "{name: members, algorithm: collapsing-log, limit: 12, window: 10s}", 1500 * time.Millisecond, "members"},
		pictureCase{algorithms.ResettingWindow, "{name: resetting, algorithm: resetting-window, limit: 12, window: 10s}", 1500 * time.Millisecond, "expires at"},
	)
}

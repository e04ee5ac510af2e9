package ui

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	pictureCases = append(pictureCases,
		pictureCase{algorithms.XTimeRate, "{name: xrate, algorithm: x-time-rate, burst: 10, rate: 2/s}", 1500 * time.Millisecond, "tokens"},
		pictureCase{algorithms.XTimeRateReserve, "{name: reserve, algorithm: x-time-rate-reserve, burst: 10, rate: 2/s, max_wait: 10s}", 1500 * time.Millisecond, "debt"},
	)
}

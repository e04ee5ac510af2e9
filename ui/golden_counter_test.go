package ui

import "time"

func init() {
	moreLessons = append(moreLessons,
		// The burst at 67.5s: the classic counter admits 12, 4 sub-windows
		// 49, 60 sub-windows 99 as the log does.
		struct {
			name string
			at   time.Duration
		}{"finer-sub-windows", 67500 * time.Millisecond},
		// The log full at 12,000 entries beside the counters' 32 and 536 bytes.
		struct {
			name string
			at   time.Duration
		}{"memory-price", 80 * time.Second},
	)
}

package progress

import (
	"testing"
	"time"
)

func TestFormatting(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{string(appendGrouped(nil, 0)), "0"},
		{string(appendGrouped(nil, 999)), "999"},
		{string(appendGrouped(nil, 1000)), "1,000"},
		{string(appendGrouped(nil, 1234567)), "1,234,567"},
		{string(appendGrouped(nil, -12345)), "-12,345"},
		{string(appendSize(nil, 0)), "0 B"},
		{string(appendSize(nil, 1023)), "1023 B"},
		{string(appendSize(nil, 1024)), "1.0 KiB"},
		{string(appendSize(nil, 1<<20-1)), "1.0 MiB"},
		{string(appendSize(nil, 412<<20)), "412.0 MiB"},
		{string(appendSize(nil, 3<<40)), "3.0 TiB"},
		{string(appendLeft(nil, 0)), "0s"},
		{string(appendLeft(nil, 2.1)), "3s"},
		{string(appendLeft(nil, 125)), "2m05s"},
		{string(appendLeft(nil, 3600+125)), "1h02m"},
		{string(appendStatus(nil, 5, 10, 0, 0)), "5 lines · 10 B"},
		{string(appendStatus(nil, 5, 10, 100, 0)), "5 lines · 10 B of 100 B · 10%"},
		{string(appendStatus(nil, 5, 10, 100, time.Second)), "5 lines · 10 B of 100 B · 5 lines/s · 10% · 9s left"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestRoundSignificant(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want int64
	}{
		{0.4, 0}, {7, 7}, {45.4, 45}, {999.6, 1000}, {2048, 2050}, {812_345.6, 812_000}, {16_666.7, 16_700},
	} {
		if got := roundSignificant(tc.x, 3); got != tc.want {
			t.Errorf("roundSignificant(%v, 3) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

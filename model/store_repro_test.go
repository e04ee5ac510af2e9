package model

import (
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"ratelab/redisstore"
	"ratelab/scenarios"
)

func TestReproStoreLab(t *testing.T) {
	mini := miniredis.RunT(t)
	st, err := redisstore.Open("redis://" + mini.Addr() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := scenarios.Canned("empty-start")
	l, err := NewOn(s, 0, st.Maker)
	if err != nil {
		t.Fatal(err)
	}
	for _, pos := range []int{3, 1, 5, 2, 10, 0, 7} {
		l.SeekPos(pos)
		if err := st.Err(); err != nil {
			t.Fatalf("pos %d: %v", pos, err)
		}
	}
	_ = time.Second
}

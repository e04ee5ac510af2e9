package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

func init() { register(algorithms.LeakyBucket, leakyBucketPicture{}) }

// leakyBucketPicture shows the queue's slots, when each waiting request
// leaves, and the pace of the pipe.
type leakyBucketPicture struct{}

func (leakyBucketPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.LeakyBucketSnapshot)
	waiting := int64(len(s.Waiting))
	numbers := itoa(waiting) + " of " + itoa(s.Queue) + " queued"
	queue := numbers
	if sw := w - ansi.StringWidth(numbers) - 1; sw >= 3 {
		queue = slots(st, waiting, s.Queue, min(sw, maxGauge)) + " " + numbers
	}
	// Release times take two lines when the box is tall.
	releaseLines := 1
	if n >= 4 {
		releaseLines = 2
	}
	releases := releaseTexts(v, s, w, releaseLines)
	free := "pipe idle"
	if s.NextFree > s.Now {
		free = "next free " + v.secs(s.NextFree)
	}
	pace := "pace " + s.Rate.String()
	lines := append([]string{queue}, releases...)
	return append(lines, first([]string{
		pace + ", 1 per " + v.quantitySecs(s.Interval) + " · " + free,
		pace + " · " + free,
		free,
	}, w), st.muted.Render("delays instead of rejecting"))
}

// releaseTexts are the waiting requests' release times in at most n lines
// of w cells: "out at 0.5s 1s 1.5s +7", written as v writes times.
func releaseTexts(v laneView, s algorithms.LeakyBucketSnapshot, w, n int) []string {
	if len(s.Waiting) == 0 {
		return []string{"queue empty"}
	}
	var lines []string
	var b strings.Builder
	b.WriteString("out at")
	for i, r := range s.Waiting {
		item := " " + v.secs(r.At)
		more := " +" + strconv.Itoa(len(s.Waiting)-i)
		last := i == len(s.Waiting)-1
		room := w
		if len(lines) == n-1 && !last {
			room = w - ansi.StringWidth(more)
		}
		if ansi.StringWidth(b.String()+item) > room {
			if len(lines) == n-1 {
				b.WriteString(more)
				break
			}
			lines = append(lines, b.String())
			b.Reset()
			b.WriteString("      ")
		}
		b.WriteString(item)
	}
	return append(lines, b.String())
}

func (leakyBucketPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.LeakyBucketSnapshot)
	n := int64(len(s.Waiting))
	return fraction(n, s.Queue), itoa(n) + "/" + itoa(s.Queue) + " queued"
}

func (leakyBucketPicture) titles(p algorithms.Policy) []string {
	return sizedTitles(p, "queue", p.Queue)
}

func (leakyBucketPicture) glossary(algorithms.Policy) []string {
	return []string{"leaky bucket (a shaper): requests wait in a queue and leave one per interval at the pace; only a full queue rejects. The timeline's ↦ row marks when delayed requests leave."}
}

package model

import (
	"slices"
	"unsafe"
)

// clone is a copy of p that shares no memory with it: its window's
// passages (the braid's strands, their encoded runs and bits) and its
// pending releases. A checkpoint keeps one where it is small (see
// cloneBytes), so that restoring it refills nothing from the timeline.
func (p *peakTracker) clone() peakTracker {
	c := *p
	c.kept = p.kept.clone()
	c.pending = p.pending.clone()
	c.reorder = nil
	return c
}

func (b *braid) clone() braid {
	c := *b
	c.loose = b.loose.clone()
	c.strands = slices.Clone(b.strands)
	for i := range c.strands {
		c.strands[i].trail = b.strands[i].trail.clone()
	}
	return c
}

func (t *trail) clone() trail {
	c := *t
	c.buf = slices.Clone(t.buf)
	c.head.bits = slices.Clone(t.head.bits)
	c.tail.bits = slices.Clone(t.tail.bits)
	return c
}

// cloneBytes is about what clone allocates, the tracker itself included.
func (p *peakTracker) cloneBytes() int64 {
	n := int64(unsafe.Sizeof(*p)) + p.pending.bytes()
	n += int64(len(p.kept.strands))*int64(unsafe.Sizeof(strand{})) + int64(p.kept.bytes())
	return n
}

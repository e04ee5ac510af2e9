package main

import (
	"io"
	"math/rand/v2"
	"time"
)

// A generator writes the log second by second: it draws how many
// requests each source sends in the second, shuffles them, and writes
// each as a line. It keeps no state per client (a client's traits are a
// hash of its number), so its memory does not grow with the log.
type generator struct {
	cfg   config
	r     *rand.Rand
	w     io.Writer
	clock *clock
	rates rates
	pool  int // how many light clients there are
	odd   oddLines

	written     int64 // lines written so far
	firstSec    int64
	healthOwed  float64
	batchOwed   float64
	scraperNext int64
	// mobileAhead[s%aheadSeconds] holds the mobile client's retries due
	// at second s.
	mobileAhead [aheadSeconds]struct{ refused, answered int }

	events        []source
	batchInSecond int
	entry         entry
	addr, request []byte
	line          []byte
}

// requestsPerLightClient is how many requests a light client sends on
// average over the whole log: a few, spread out.
const requestsPerLightClient = 4

// generate writes cfg.lines lines of log to w. Write through a buffer:
// it writes each line with its own call.
func generate(w io.Writer, cfg config) error {
	zone := time.FixedZone("", int(zoneOffset(cfg)))
	g := &generator{
		cfg:      cfg,
		r:        newRand(cfg.seed),
		w:        w,
		clock:    newClock(zone),
		rates:    newRates(cfg),
		firstSec: cfg.start.Unix(),
		odd:      placeOddLines(cfg),
	}
	g.pool = max(16, int(float64(cfg.lines)*(1-cfg.top)/requestsPerLightClient))
	for sec := g.firstSec; g.written < cfg.lines; sec++ {
		g.collect(sec)
		for i, src := range g.events {
			if g.written == cfg.lines {
				break
			}
			// Milliseconds for JSON rise through the second, each event
			// in its own slice of it, so the lines stay in time order.
			n := len(g.events)
			ms := (i*1000 + g.r.IntN(1000)) / n
			if err := g.emit(sec, ms, src); err != nil {
				return err
			}
		}
	}
	return nil
}

// collect draws the requests of second sec, shuffled, into g.events.
func (g *generator) collect(sec int64) {
	g.events = g.events[:0]
	g.batchInSecond = 0
	local := sec + zoneOffset(g.cfg)
	for range poisson(g.r, g.rates.light*daily(local)) {
		g.events = append(g.events, fromLight)
	}
	if g.healthOwed += g.rates.health; g.healthOwed >= 1 {
		g.healthOwed--
		g.events = append(g.events, fromHealth)
	}
	for range poisson(g.r, g.rates.scraper) {
		g.events = append(g.events, fromScraper)
	}
	g.collectMobile(sec)
	// The batch job's requests accrue every second and go out together
	// at the top of the minute, so a log of any span holds its share.
	g.batchOwed += g.rates.batch
	if sec%60 == 0 {
		for ; g.batchOwed >= 1; g.batchOwed-- {
			g.events = append(g.events, fromBatch)
		}
	}
	g.r.Shuffle(len(g.events), func(i, j int) { g.events[i], g.events[j] = g.events[j], g.events[i] })
}

// collectMobile adds the mobile client's retries due at sec and its new
// episodes: a request answered, or a refused one starting a storm of
// retries over the next seconds.
func (g *generator) collectMobile(sec int64) {
	due := &g.mobileAhead[sec%aheadSeconds]
	for range due.refused {
		g.events = append(g.events, fromMobileFail)
	}
	for range due.answered {
		g.events = append(g.events, fromMobileOK)
	}
	due.refused, due.answered = 0, 0
	for range poisson(g.r, g.rates.mobileEp) {
		if g.r.Float64() >= stormChance {
			g.events = append(g.events, fromMobileOK)
			continue
		}
		g.events = append(g.events, fromMobileFail)
		retries := stormMin + g.r.IntN(stormMax-stormMin+1)
		var after int64
		for k := 1; k <= retries; k++ {
			after += int64(g.r.IntN(2))
			answered := k == retries
			if after == 0 {
				if answered {
					g.events = append(g.events, fromMobileOK)
				} else {
					g.events = append(g.events, fromMobileFail)
				}
				continue
			}
			slot := &g.mobileAhead[(sec+after)%aheadSeconds]
			if answered {
				slot.answered++
			} else {
				slot.refused++
			}
		}
	}
}

// emit writes one line: the request src sent at second sec (ms into it,
// for JSON), or the odd line due at this line's number.
func (g *generator) emit(sec int64, ms int, src source) error {
	lineNo := g.written + 1
	e := &g.entry
	switch src {
	case fromLight:
		g.fillLight(e)
	case fromHealth:
		g.fillHealth(e)
	case fromScraper:
		g.fillScraper(e)
	case fromMobileOK, fromMobileFail:
		g.fillMobile(e, sec, src == fromMobileFail)
	case fromBatch:
		g.fillBatch(e)
	}
	end := "\n"
	if g.cfg.odd {
		var backdate int64
		backdate, end = g.odd.apply(g, lineNo, src, e)
		if sec-backdate >= g.firstSec {
			sec -= backdate
			if backdate > 0 {
				ms = g.r.IntN(1000)
			}
		}
	}
	switch g.cfg.format {
	case "json":
		g.line = appendJSON(g.line[:0], e, g.clock.rfc3339(sec, ms))
	case "common":
		g.line = appendCommon(g.line[:0], e, g.clock.local(sec))
	default:
		g.line = appendCombined(g.line[:0], e, g.clock.local(sec))
	}
	if g.cfg.odd && lineNo == g.cfg.lines {
		g.line = g.line[:len(g.line)/2] // cut short, as by a crash mid-write
	} else {
		g.line = append(g.line, end...)
	}
	g.written++
	_, err := g.w.Write(g.line)
	return err
}

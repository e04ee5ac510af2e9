package main

import (
	"math"
	"strconv"
)

// A source is who sent a request: the many light clients, the health
// check, or one of the three top talkers.
type source uint8

const (
	fromLight source = iota
	fromHealth
	fromScraper
	fromMobileOK   // the mobile client, answered
	fromMobileFail // the mobile client, refused: it retries at once
	fromBatch
)

// The top talkers' shares of the top-talker traffic (-top).
const (
	scraperShare = 0.5
	batchShare   = 0.3
	mobileShare  = 0.2
)

// The mobile client's habit: a request, and now and then (stormChance) a
// refusal it answers with stormMin to stormMax retries, each 0 or 1 s
// after the one before, all refused but the last. linesPerEpisode is what
// that makes on average, which turns its share into a rate of episodes.
const (
	stormChance     = 0.3
	stormMin        = 3
	stormMax        = 8
	linesPerEpisode = (1 - stormChance) + stormChance*(1+(stormMin+stormMax)/2.0)
	// aheadSeconds holds the retries still to come: a storm spans at most
	// stormMax seconds.
	aheadSeconds = 16
)

// batchAllowed is how many of a batch burst's requests the logged server
// let through in one second before it answered 429: the limit a replay of
// the log can be compared against.
const batchAllowed = 20

// The daily rise and fall of the light traffic: 1 + dailySwing·cos, at
// its highest at dailyPeak of the log's local time.
const (
	day        = 86_400
	dailySwing = 0.5
	dailyPeak  = 15 * 3600
)

// healthEvery is the seconds between two health checks, unless they
// would be more than a twentieth of the light traffic.
const healthEvery = 10

// rates are the mean arrivals a second of each source.
type rates struct {
	light    float64 // before the daily factor, already divided by its mean
	health   float64
	scraper  float64
	mobileEp float64 // the mobile client's episodes
	batch    float64 // the batch job's, sent in bursts once a minute
}

// newRates splits rate between the sources: top·rate to the top talkers,
// the rest to the health check and the light clients. The light clients
// follow the day, so their base rate is divided by the daily factor's mean
// over the span the log is expected to cover (lines/rate seconds), which
// keeps the mean rate, and so the top talkers' share, what the flags say
// whatever the span and the hour it starts.
func newRates(cfg config) rates {
	background := cfg.rate * (1 - cfg.top)
	health := math.Min(1.0/healthEvery, 0.05*background)
	startSec := cfg.start.Unix() + zoneOffset(cfg)
	span := float64(cfg.lines) / cfg.rate
	top := cfg.rate * cfg.top
	return rates{
		light:    (background - health) / meanDaily(startSec, span),
		health:   health,
		scraper:  top * scraperShare,
		mobileEp: top * mobileShare / linesPerEpisode,
		batch:    top * batchShare,
	}
}

func zoneOffset(cfg config) int64 {
	_, off := cfg.start.Zone()
	return int64(off)
}

// daily is the light traffic's factor at the local second sec.
func daily(sec int64) float64 {
	return 1 + dailySwing*math.Cos(2*math.Pi*float64(sec-dailyPeak)/day)
}

// meanDaily is daily's mean over [from, from+span), in closed form.
func meanDaily(from int64, span float64) float64 {
	if span < 1 {
		return daily(from)
	}
	w := 2 * math.Pi / day
	a := float64(from - dailyPeak)
	return 1 + dailySwing*(math.Sin(w*(a+span))-math.Sin(w*a))/(w*span)
}

// fillLight makes a light client's request: a few, spread out, to any
// part of the site. Its address, user agent, user id and API key are its
// traits, the same on each of its requests.
func (g *generator) fillLight(e *entry) {
	c := g.r.IntN(g.pool)
	traits := mix(g.cfg.seed, uint64(c))
	g.addr = appendClientAddr(g.addr[:0], c, traits)
	ag := lightAgents[(traits>>32)%uint64(len(lightAgents))]
	uid := 1 + int64(traits>>8)%90_000
	key := apiKeys[(traits>>40)%uint64(len(apiKeys))]
	*e = entry{addr: g.addr, agent: ag.name}
	if traits>>56 < 3 { // about 1% are staff, behind basic auth
		e.user = staffNames[traits%uint64(len(staffNames))]
	}
	proto := " HTTP/1.1"
	if ag.browser {
		proto = " HTTP/2.0"
		e.referer = pageReferers[g.r.IntN(len(pageReferers))]
	}
	rq := g.request[:0]
	api := true
	switch k := g.r.IntN(1000); {
	case k < 280:
		rq = appendUserPath(append(rq, "GET "...), uid)
		e.status, e.bytes = 200, 300+int64(g.r.IntN(1500))
	case k < 400:
		rq = append(rq, "GET /api/v1/search?q="...)
		rq = append(rq, searchTerms[g.r.IntN(len(searchTerms))]...)
		rq = append(rq, "&api_key="...)
		rq = append(rq, key...)
		e.status, e.bytes = 200, 1000+int64(g.r.IntN(19_000))
	case k < 460:
		rq = appendUserPath(append(rq, "GET "...), uid)
		rq = append(rq, "/orders?page="...)
		rq = strconv.AppendInt(rq, 1+int64(g.r.IntN(3)), 10)
		e.status, e.bytes = 200, 500+int64(g.r.IntN(6000))
	case k < 520:
		rq = append(rq, "POST /api/v1/orders"...)
		e.status, e.bytes = 201, 80+int64(g.r.IntN(300))
		if g.r.IntN(100) < 6 {
			e.status, e.bytes = 400, 64
		}
	case k < 545:
		rq = append(rq, "POST /api/v1/login"...)
		e.status, e.bytes = 200, 220
		if g.r.IntN(100) < 20 {
			e.status, e.bytes = 401, 35
		}
	case k < 560:
		rq = appendUserPath(append(rq, "PUT "...), uid)
		e.status, e.bytes = 200, 300+int64(g.r.IntN(1500))
	case k < 565:
		rq = append(rq, "DELETE /api/v1/orders/"...)
		rq = strconv.AppendInt(rq, 100_000+int64(g.r.IntN(900_000)), 10)
		e.status = 204
	case k < 800:
		api = false
		asset := staticAssets[g.r.IntN(len(staticAssets))]
		rq = append(append(rq, "GET "...), asset.path...)
		e.status, e.bytes = 200, asset.size
		if g.r.IntN(100) < 35 {
			e.status, e.bytes = 304, 0
		}
		e.requestTime = g.r.IntN(3)
	case k < 840:
		api = false
		rq = append(rq, "GET /"...)
		e.status, e.bytes = 200, 5000+int64(g.r.IntN(1000))
		e.requestTime = 1 + g.r.IntN(10)
	case k < 860:
		api = false
		rq = append(rq, "GET /favicon.ico"...)
		e.status, e.bytes = 200, 1150
		if g.r.IntN(100) < 50 {
			e.status, e.bytes = 304, 0
		}
	case k < 875:
		api = false
		rq = append(rq, "GET "...)
		rq = append(rq, probePaths[g.r.IntN(len(probePaths))]...)
		e.status, e.bytes, e.referer = 404, 153, ""
	default:
		rq = append(rq, "GET /api/v1/products?category="...)
		rq = append(rq, categories[g.r.IntN(len(categories))]...)
		rq = append(rq, "&page="...)
		rq = strconv.AppendInt(rq, 1+int64(g.r.IntN(5)), 10)
		e.status, e.bytes = 200, 2000+int64(g.r.IntN(30_000))
	}
	if api {
		e.requestTime = apiTime(g)
		switch k := g.r.IntN(1000); {
		case k < 3:
			e.status, e.bytes, e.requestTime = 500, 177, 1000+g.r.IntN(4000)
		case k < 13:
			e.status, e.bytes, e.requestTime = 429, 52, 0
		case k < 33 && e.status == 200:
			e.status, e.bytes = 404, 21
		}
	}
	g.request = append(rq, proto...)
	e.request = g.request
}

// apiTime is an API call's time in milliseconds: mostly tens, a long tail.
func apiTime(g *generator) int {
	t := 5 + g.r.IntN(60)
	if g.r.IntN(20) == 0 {
		t += g.r.IntN(800)
	}
	return t
}

var staffNames = [...]string{"alice", "bob", "carol"}

var categories = [...]string{"shoes", "books", "garden", "toys", "audio"}

func appendUserPath(b []byte, uid int64) []byte {
	b = append(b, "/api/v1/users/"...)
	return strconv.AppendInt(b, uid, 10)
}

// fillHealth makes the load balancer's health check.
func (g *generator) fillHealth(e *entry) {
	g.addr = append(g.addr[:0], healthAddr...)
	g.request = append(g.request[:0], "GET /health HTTP/1.1"...)
	*e = entry{addr: g.addr, request: g.request, status: 200, bytes: 2, agent: healthAgent}
}

// fillScraper makes the scraper's request: it walks the users' ids one
// after another, searching now and then, at a steady rate that the day
// does not change, and is often refused.
func (g *generator) fillScraper(e *entry) {
	g.addr = append(g.addr[:0], scraperAddr...)
	rq := g.request[:0]
	*e = entry{addr: g.addr, agent: scraperAgent, status: 200}
	if g.r.IntN(10) == 0 {
		rq = append(rq, "GET /api/v1/search?q="...)
		rq = append(rq, searchTerms[g.r.IntN(len(searchTerms))]...)
		rq = append(rq, "&page="...)
		rq = strconv.AppendInt(rq, 1+int64(g.r.IntN(50)), 10)
		rq = append(rq, "&api_key="...)
		rq = append(rq, scraperKey...)
		e.bytes = 1000 + int64(g.r.IntN(19_000))
	} else {
		g.scraperNext++
		rq = appendUserPath(append(rq, "GET "...), g.scraperNext)
		e.bytes = 300 + int64(g.r.IntN(1500))
	}
	e.requestTime = apiTime(g)
	switch k := g.r.IntN(100); {
	case k < 12:
		e.status, e.bytes, e.requestTime = 429, 52, 0
	case k < 20:
		e.status, e.bytes = 404, 21
	}
	g.request = append(rq, " HTTP/1.1"...)
	e.request = g.request
}

// fillMobile makes the mobile app's poll of its notifications, refused
// (503 or 429, which it retries at once) or answered.
func (g *generator) fillMobile(e *entry, sec int64, refused bool) {
	g.addr = append(g.addr[:0], mobileAddr...)
	rq := append(g.request[:0], "GET /api/v1/users/4217/notifications?since="...)
	rq = strconv.AppendInt(rq, sec-sec%300, 10)
	g.request = append(rq, " HTTP/2.0"...)
	*e = entry{addr: g.addr, request: g.request, agent: mobileAgent, status: 200, bytes: 90 + int64(g.r.IntN(900)), requestTime: apiTime(g)}
	if refused {
		e.status, e.bytes, e.requestTime = 503, 0, 0
		if g.r.IntN(10) < 4 {
			e.status, e.bytes = 429, 52
		}
	}
}

// fillBatch makes one of the batch job's burst of exports: the first
// batchAllowed of a second pass, the rest are refused.
func (g *generator) fillBatch(e *entry) {
	g.batchInSecond++
	g.addr = append(g.addr[:0], batchAddr...)
	rq := append(g.request[:0], "GET /api/v1/export/users?page="...)
	rq = strconv.AppendInt(rq, int64(g.batchInSecond), 10)
	rq = append(rq, "&api_key="...)
	rq = append(rq, batchKey...)
	g.request = append(rq, " HTTP/1.1"...)
	*e = entry{addr: g.addr, request: g.request, agent: batchAgent, status: 200, bytes: 20_000 + int64(g.r.IntN(40_000)), requestTime: 50 + g.r.IntN(200)}
	if g.batchInSecond > batchAllowed {
		e.status, e.bytes, e.requestTime = 429, 52, 0
	}
}

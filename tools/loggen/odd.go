package main

// outOfOrderEvery is how many lines there are, on average, for each one
// that -odd writes a little earlier than the lines before it, as when
// several nginx workers write one log.
const outOfOrderEvery = 200

// maxBackdate is how many seconds such a line may be early, at most.
const maxBackdate = 3

// tlsHello is the first bytes of a TLS handshake sent to a plain HTTP
// port, which nginx logs as the request line.
const tlsHello = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"

// The odd lines -odd writes once each, besides the early ones and the
// cut last line.
type oddKind uint8

const (
	oddQuotedAgent oddKind = iota // a user agent with '"' and '\' in it
	oddNoRequest                  // a connection closed before its request: "-" 400 0 "-" "-"
	oddTLSProbe                   // TLS bytes sent to the HTTP port
	oddIPv6                       // a client at 2001:db8::42
	oddCRLF                       // a line ending in "\r\n"
	oddKinds
)

// oddLines places the odd lines: kind k is due from line due[k] (from 1),
// spread through the log at odd tenths, and written on the first light
// client's line from there (a scraper with a stranger's user agent would
// be odder than real logs are); none in a log under 10 lines, too short for
// them. The last line is always cut short.
type oddLines struct {
	due  [oddKinds]int64
	done [oddKinds]bool
}

func placeOddLines(cfg config) oddLines {
	var o oddLines
	if cfg.lines < 10 {
		return o
	}
	for k := range oddKinds {
		o.due[k] = cfg.lines * int64(1+2*int(k)) / 10 // 1/10, 3/10, ... 9/10
	}
	return o
}

// apply turns the line lineNo, sent by src, into an odd line if one is
// due, and says how many seconds earlier than its neighbours it is
// written and what ends it.
func (o *oddLines) apply(g *generator, lineNo int64, src source, e *entry) (backdate int64, end string) {
	end = "\n"
	if src == fromLight {
		if k, ok := o.next(lineNo); ok {
			o.done[k] = true
			switch k {
			case oddQuotedAgent:
				e.agent = quotedAgent
			case oddNoRequest:
				*e = entry{addr: e.addr, status: 400}
			case oddTLSProbe:
				g.request = append(g.request[:0], tlsHello...)
				*e = entry{addr: e.addr, request: g.request, status: 400, bytes: 157}
			case oddIPv6:
				g.addr = append(g.addr[:0], "2001:db8::42"...)
				e.addr = g.addr
			case oddCRLF:
				end = "\r\n"
			}
		}
	}
	if g.r.IntN(outOfOrderEvery) == 0 {
		backdate = 1 + int64(g.r.IntN(maxBackdate))
	}
	return backdate, end
}

// next is the first odd line due by line lineNo and not yet written.
func (o *oddLines) next(lineNo int64) (oddKind, bool) {
	for k := range oddKinds {
		if !o.done[k] && o.due[k] != 0 && o.due[k] <= lineNo {
			return k, true
		}
	}
	return 0, false
}

package accesslog

import "bytes"

// A Record is one request read from a log: when it arrived and the fields
// its line logged.
//
// A Record returned by Reader.Next shares its bytes with the Reader: its
// fields are valid only until the next call to Next (copy what must be
// kept, as Rules does with the keys it returns). Time, Line and Status are
// plain values and can be kept.
type Record struct {
	// Time is when the request was logged, in nanoseconds since the Unix
	// epoch (absolute; a caller replaying the log makes it relative).
	Time int64
	// Line is the line's number in the file, from 1, counting every line
	// including empty ones and a CSV header.
	Line int64
	// Status is the response status, 0 when the format has no status or
	// the line logged "-".
	Status int

	buf   []byte
	spans []span
	names []string // the names spans refer to, the parser's
}

// span is one field: its value buf[v0:v1] named names[name], or when
// name is -1 buf[k0:k1] (a JSON key kept under its own name).
type span struct {
	name           int32
	k0, k1, v0, v1 int32
}

// Field returns the value of the field name (a variable's name without
// its '$': "remote_addr", "status", "http_user_agent", a JSON key, a CSV
// column), unescaped, or nil when the line did not log it or logged "-"
// (nginx's and Apache's mark of an empty value) or JSON null.
//
// Fields a format does not log directly are derived, when asked for, from
// the ones it does:
//
//   - request_method, request_uri and server_protocol from request ("GET
//     /a?b=1 HTTP/1.1"): the request line split at its first and last
//     space; a request line whose first word is not an HTTP token (TLS
//     bytes sent to a plain port, logged by nginx as "\x16\x03\x01...") has
//     none of the three, and neither has "-";
//   - uri from request_uri, up to its first '?' (the raw path: unlike
//     nginx's $uri it is not percent-decoded or normalised), and args after
//     that '?';
//   - arg_NAME from args: the raw value of the first NAME=value pair, ""
//     (not nil) for a NAME with no '='.
//
// A field logged under one of those names wins over the derivation. Of
// two fields with one name (a JSON key given twice) the first is returned.
// The slice is valid only until the next call to Reader.Next.
func (r *Record) Field(name string) []byte {
	if v, ok := r.lookup(name); ok {
		return v
	}
	switch name {
	case "request_method", "request_uri", "server_protocol":
		m, u, p, ok := splitRequest(r.Field("request"))
		switch {
		case !ok:
			return nil
		case name == "request_method":
			return m
		case name == "request_uri":
			return u
		default:
			return p
		}
	case "uri":
		u := r.Field("request_uri")
		if i := bytes.IndexByte(u, '?'); i >= 0 {
			return u[:i]
		}
		return u
	case "args":
		u := r.Field("request_uri")
		if i := bytes.IndexByte(u, '?'); i >= 0 {
			return u[i+1:]
		}
		return nil
	}
	if len(name) > 4 && name[:4] == "arg_" {
		return queryArg(r.Field("args"), name[4:])
	}
	return r.jsonPath(name)
}

// Each calls f with every field the line logged, in the line's order,
// by name and value (not the derived ones Field computes); a JSON key
// kept under its own name is made a string for it, the one allocation
// here. The slices are valid only until the next call to Reader.Next.
func (r *Record) Each(f func(name string, value []byte)) {
	for i := range r.spans {
		s := &r.spans[i]
		if s.name >= 0 {
			f(r.names[s.name], r.buf[s.v0:s.v1])
		} else {
			f(string(r.buf[s.k0:s.k1]), r.buf[s.v0:s.v1])
		}
	}
}

// lookup finds a logged field by name.
func (r *Record) lookup(name string) ([]byte, bool) {
	for i := range r.spans {
		s := &r.spans[i]
		if s.name >= 0 && r.names[s.name] == name || s.name < 0 && string(r.buf[s.k0:s.k1]) == name {
			return r.buf[s.v0:s.v1], true
		}
	}
	return nil, false
}

// reset empties r for a new line, keeping its storage.
func (r *Record) reset() {
	r.Time, r.Line, r.Status = 0, 0, 0
	r.buf = r.buf[:0]
	r.spans = r.spans[:0]
}

// add records the field names[name] with the value buf[v0:v1].
func (r *Record) add(name int, v0, v1 int) {
	r.spans = append(r.spans, span{name: int32(name), v0: int32(v0), v1: int32(v1)})
}

// addKeyed records a field named by buf[k0:k1] with the value buf[v0:v1].
func (r *Record) addKeyed(k0, k1, v0, v1 int) {
	r.spans = append(r.spans, span{name: -1, k0: int32(k0), k1: int32(k1), v0: int32(v0), v1: int32(v1)})
}

// splitRequest splits an HTTP request line "METHOD URI PROTOCOL" (or
// "METHOD URI", HTTP/0.9's). ok is false for a line whose method is not
// an HTTP token or that has no URI.
func splitRequest(req []byte) (method, uri, proto []byte, ok bool) {
	sp := bytes.IndexByte(req, ' ')
	if sp <= 0 {
		return nil, nil, nil, false
	}
	for _, c := range req[:sp] {
		if !isToken(c) {
			return nil, nil, nil, false
		}
	}
	method, rest := req[:sp], req[sp+1:]
	if last := bytes.LastIndexByte(rest, ' '); last >= 0 && bytes.HasPrefix(rest[last+1:], []byte("HTTP/")) {
		uri, proto = rest[:last], rest[last+1:]
	} else {
		uri = rest
	}
	if len(uri) == 0 {
		return nil, nil, nil, false
	}
	return method, uri, proto, true
}

// isToken reports whether c may be in an HTTP token (RFC 9110 tchar).
func isToken(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c != 0 && bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0
}

// queryArg returns the raw value of the first name=value pair of the
// query string args ("" for a bare name), or nil when there is none.
func queryArg(args []byte, name string) []byte {
	for len(args) > 0 {
		pair := args
		if i := bytes.IndexByte(args, '&'); i >= 0 {
			pair, args = args[:i], args[i+1:]
		} else {
			args = nil
		}
		k, v := pair, pair[len(pair):]
		if i := bytes.IndexByte(pair, '='); i >= 0 {
			k, v = pair[:i], pair[i+1:]
		}
		if string(k) == name {
			return v
		}
	}
	return nil
}

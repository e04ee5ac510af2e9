package accesslog

import (
	"bytes"
	"strings"
)

// jsonPath is a field named by a dotted path into a JSON line's nested
// objects, "user.id" or "request.headers.x-api-key": the value of each
// key in turn, from the line's own key named by the first part. A string
// at the end is its text (without the quotes; escapes, rare in a key or
// an identifier, are kept as written), any other value its JSON text; nil
// when a part is missing or is not an object. A key that itself holds a
// '.' is found by Field before any path is tried.
func (r *Record) jsonPath(name string) []byte {
	parts := strings.Split(name, ".")
	if len(parts) < 2 {
		return nil
	}
	v, ok := r.lookup(parts[0])
	for _, part := range parts[1:] {
		if !ok {
			break
		}
		v, ok = jsonMember(v, part)
	}
	if !ok {
		return nil
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// jsonMember is the JSON text of the member key of the object obj (a
// value the reader has checked), and whether obj has it.
func jsonMember(obj []byte, key string) ([]byte, bool) {
	obj = bytes.TrimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' {
		return nil, false
	}
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		k0 := i
		k1, err := skipValue(obj, k0, 0)
		if err != nil {
			return nil, false
		}
		i = skipSpace(obj, k1)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		v0 := skipSpace(obj, i+1)
		v1, err := skipValue(obj, v0, 0)
		if err != nil {
			return nil, false
		}
		if string(obj[k0+1:k1-1]) == key {
			return obj[v0:v1], true
		}
		if i = skipSpace(obj, v1); i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return nil, false
}

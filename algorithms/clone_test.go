package algorithms

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// cloneOwn are, for each limiter type's struct, the fields its Clone gives
// the clone of its own (reset, or copied deeper than the field's value);
// every other field must be the original's.
var cloneOwn = map[string][]string{
	"keyed":     {"Decider", "chunks", "m", "saved", "aside"},
	"nginxZone": {"keyed", "links"},
	"stack":     {"Decider", "lims", "savers", "numsOf", "verdicts", "recs", "record", "scratch", "zones"},
}

// TestCloneCarriesEveryField: for every algorithm's described policies, a
// zone and a stack, each field of a clone that its Clone does not list as
// its own is the original's (a field Clone forgot to carry, as keyed's
// rewinder once was, differs), and each such field is set to something in
// at least one of the limiters, so that the comparison means something.
func TestCloneCarriesEveryField(t *testing.T) {
	var lims []Limiter
	add := func(l Limiter, err error) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			for _, key := range []string{"a", "b"} {
				l.Decide(sec/10*time.Duration(i), key, 1)
			}
		}
		lims = append(lims, l)
	}
	keys := func() *Keys {
		ks := NewKeys()
		ks.Key("unused") // the keys decided are not numbered 0
		return ks
	}
	for _, alg := range Algorithms {
		for _, p := range describedPolicies(alg) {
			add(NewWithKeys(p, keys()))
		}
	}
	zone := Describe(NginxLimitReq).Examples[0].Policy
	zone.Zone = nginxMinZone
	add(NewWithKeys(zone, keys()))
	add(NewStack(benchLayers[:2], keys()))
	dry := zone
	dry.DryRun = true
	add(NewStack([]Layer{{Name: "a", Policy: dry}, {Name: "b", Policy: dry, AllKeys: true}}, keys()))

	set := map[string]bool{} // type.field: set in some limiter
	var check func(orig, clone reflect.Value)
	check = func(orig, clone reflect.Value) {
		typ := orig.Type()
		name := typ.Name()
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		own, ok := cloneOwn[name]
		if !ok {
			t.Fatalf("no list of the fields %s's Clone makes its own", typ)
		}
		for _, f := range own {
			if _, ok := typ.FieldByName(f); !ok {
				t.Errorf("%s has no field %s, listed as its clone's own", name, f)
			}
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			a, b := exposed(orig.Field(i)), exposed(clone.Field(i))
			if f.Name == "keyed" { // nginxZone's: its own, checked as a keyed
				check(a.Elem(), b.Elem())
			}
			if slices.Contains(own, f.Name) {
				continue
			}
			set[name+"."+f.Name] = set[name+"."+f.Name] || !a.IsZero()
			if !sameValue(a, b) {
				t.Errorf("%s's clone has its field %s %v, not the original's %v", typ, f.Name, b, a)
			}
		}
	}
	for _, l := range lims {
		check(reflect.ValueOf(l).Elem(), reflect.ValueOf(l.Clone()).Elem())
	}
	for f, ok := range set {
		if !ok {
			t.Errorf("%s is unset in every limiter tried: give it a value in one, or list it as the clone's own", f)
		}
	}
}

// exposed is v (a field, possibly unexported) as a value whose Interface
// may be read.
func exposed(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// sameValue is whether a and b are equal: funcs by their code, anything
// else deeply.
func sameValue(a, b reflect.Value) bool {
	if a.Kind() == reflect.Func {
		return a.Pointer() == b.Pointer()
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

package scenarios

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCanned(t *testing.T) {
	infos := List()
	var names []string
	for _, info := range infos {
		names = append(names, info.Name)
	}
	// Every lesson is placed in the teaching order.
	if !reflect.DeepEqual(names, teachingOrder) {
		t.Errorf("List() names %q, want the teaching order %q: place every canned file in teachingOrder", names, teachingOrder)
	}
	files, err := fs.Glob(cannedFS, "canned/*.yaml")
	if err != nil || len(files) != len(names) {
		t.Errorf("embedded %q (%v); List() names %q", files, err, names)
	}
	if _, ok := Source(Default); !ok {
		t.Errorf("Default %q is not a canned scenario", Default)
	}
	for _, info := range infos {
		t.Run(info.Name, func(t *testing.T) {
			s, err := Canned(info.Name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != info.Name || s.Title != info.Title || s.Title == "" {
				t.Errorf("name %q, title %q; List says %+v", s.Name, s.Title, info)
			}
			if strings.TrimSpace(s.About) == "" || len(s.Notes) == 0 || len(s.Expect) == 0 || s.RequestCount() == 0 {
				t.Errorf("a lesson needs about, notes, expect and traffic: %d bytes, %d notes, %d expectations, %d requests",
					len(s.About), len(s.Notes), len(s.Expect), s.RequestCount())
			}
			if len(s.Title) > 60 {
				t.Errorf("title %q is longer than 60 bytes", s.Title)
			}
			data, ok := Source(info.Name)
			if !ok {
				t.Fatal("no source")
			}
			again, err := Parse(info.Name+".yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			again.Name = info.Name
			if !reflect.DeepEqual(normalise(again), normalise(s)) {
				t.Error("Source does not parse to Canned")
			}
			s.Title = "changed"
			if fresh, _ := Canned(info.Name); fresh.Title == "changed" {
				t.Error("Canned returned a shared scenario")
			}
		})
	}
	for _, bad := range []string{"", "nope", "../canned/boundary", "boundary.yaml", "canned/boundary"} {
		if _, ok := Source(bad); ok {
			t.Errorf("Source(%q) found something", bad)
		}
	}
	if _, err := Canned("nope"); err == nil || err.Error() != `no canned scenario is called "nope" (canned: `+strings.Join(names, ", ")+")" {
		t.Errorf("Canned(nope): %v", err)
	}
}

func TestOpen(t *testing.T) {
	s, err := Open("dashboard")
	if err != nil || s.Name != "dashboard" {
		t.Fatalf("Open(dashboard) = %v, %v", s, err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte(oneLane), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(path); err != nil || s.Name != path || s.Title != "t" {
		t.Errorf("Open(%s) = %+v, %v", path, s, err)
	}
	if err := os.WriteFile(path, []byte(oneLane+"step: 0s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil || err.Error() != path+`:4:7: step: want a positive Go duration such as 60s, got "0s"` {
		t.Errorf("Open of a bad file: %v", err)
	}
	if _, err := Open("boundry"); err == nil || !strings.HasPrefix(err.Error(), `no canned scenario is called "boundry" (canned: boundary, `) || !strings.HasSuffix(err.Error(), "and there is no file of that name") {
		t.Errorf("Open(boundry): %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.yaml")); !os.IsNotExist(err) {
		t.Errorf("Open of a missing path: %v, want a not-exist error", err)
	}

	// A canned name wins over a file of that name; ./name opens the file.
	t.Chdir(dir)
	if err := os.WriteFile(Default, []byte(oneLane), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(Default); err != nil || s.Name != Default || s.Title == "t" {
		t.Errorf("Open(%s) beside a file of that name = %+v, %v; want the canned scenario", Default, s, err)
	}
	if s, err := Open("./" + Default); err != nil || s.Name != "./"+Default || s.Title != "t" {
		t.Errorf("Open(./%s) = %+v, %v; want the file", Default, s, err)
	}
}

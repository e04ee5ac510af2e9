package safewrite

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failingFile is a temporary file that fails at one step, as a full disk
// or a broken device would.
type failingFile struct {
	*os.File
	step    string // "write", "short", "sync", "close"
	written int    // for "write": bytes written before ENOSPC
}

func (f *failingFile) Write(p []byte) (int, error) {
	switch f.step {
	case "write":
		n, _ := f.File.Write(p[:min(f.written, len(p))])
		return n, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	case "short":
		return f.File.Write(p[:len(p)/2])
	}
	return f.File.Write(p)
}

func (f *failingFile) Sync() error {
	if f.step == "sync" {
		return &fs.PathError{Op: "sync", Path: f.Name(), Err: syscall.EIO}
	}
	return f.File.Sync()
}

func (f *failingFile) Close() error {
	err := f.File.Close()
	if f.step == "close" {
		return &fs.PathError{Op: "close", Path: f.Name(), Err: syscall.EDQUOT}
	}
	return err
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestFailureLeavesTheOriginal(t *testing.T) {
	original := []byte("title: mine\n")
	data := bytes.Repeat([]byte("x"), 10000)
	for _, tc := range []struct {
		step, want string
	}{
		{"write", "no space left on device"},
		{"short", "short write"},
		{"sync", "input/output error"},
		{"close", "disk quota exceeded"},
	} {
		t.Run(tc.step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.yaml")
			if err := os.WriteFile(path, original, 0o640); err != nil {
				t.Fatal(err)
			}
			create := func(target string, perm fs.FileMode) (tempFile, error) {
				f, err := osTemp(target, perm)
				if err != nil {
					return nil, err
				}
				return &failingFile{File: f.(*os.File), step: tc.step, written: 4096}, nil
			}
			err := write(path, data, 0o644, create)
			if err == nil || err.Error() != path+": "+tc.want {
				t.Fatalf("error %v, want %q", err, path+": "+tc.want)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, original) {
				t.Errorf("the original is now %d bytes, want it untouched", len(got))
			}
			if names := entries(t, dir); len(names) != 1 {
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

func TestReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte("a much longer original text\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(got) != "new\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("got %q mode %v, want %q with the original's mode 0600", got, fi.Mode().Perm(), "new\n")
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("left behind: %v", names)
	}

	// A new file gets perm less the umask, as os.WriteFile gives it.
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	fresh := filepath.Join(dir, "fresh.yaml")
	if err := WriteFile(fresh, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
		t.Errorf("a new file's mode under umask 077 is %v, want 0600", fi.Mode().Perm())
	}
}

func TestKeepsASymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.yaml")
	link := filepath.Join(dir, "link.yaml")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.yaml", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(real); string(got) != "new" {
		t.Errorf("the link's target holds %q, want %q", got, "new")
	}
}

func TestKeepsALinkToAFileNotThereYet(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(filepath.Join("sub", "new.yaml"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sub", "new.yaml")); string(got) != "new" {
		t.Errorf("the link's target holds %q, want %q", got, "new")
	}
}

func TestRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(dir, []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("writing over a directory: %v", err)
	}
	err = WriteFile(filepath.Join(dir, "no", "such", "dir.yaml"), []byte("x"), 0o644)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("writing into a missing directory: %v, want it to say so", err)
	}
}

// TestFullDisk writes over a file on a real file system that has no room
// for the new text: a tmpfs of 16 KiB. It needs the right to mount one
// (root, as CI runs), and is skipped without it.
func TestFullDisk(t *testing.T) {
	if _, err := exec.LookPath("mount"); err != nil {
		t.Skip("no mount command")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	path := filepath.Join(dir, "s.yaml")
	original := bytes.Repeat([]byte("# a scenario\n"), 300) // 3.9 KB
	if err := os.WriteFile(path, original, 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, bytes.Repeat([]byte("y"), 64<<10), 0o644)
	if !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Fatalf("error %v, want %s: no space left on device", err, path)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, original) {
		t.Errorf("the original is now %d bytes, want it untouched", len(got))
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("left behind: %v", names)
	}
}

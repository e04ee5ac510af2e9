// Package safewrite writes a file so that a failure leaves nothing broken:
// the new contents go to a temporary file beside the target, are synced to
// the disk, and only then take the target's name. A full disk, a quota or a
// crash part-way through leaves the file that was there as it was.
package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path, as os.WriteFile does, but atomically: the
// file at path is either left as it was (on any error) or replaced whole.
//
// The data is written to a temporary file in path's directory (so that the
// rename stays on one file system), synced, given the permissions of the
// file it replaces (perm for a new file), and renamed over path; the
// directory is then synced, so that the new name survives a crash. When
// path is a symbolic link, the file it points to is replaced and the link
// kept. On failure the temporary file is removed and the error names path
// and the cause (for example "no space left on device").
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, osTemp)
}

// tempFile is the part of *os.File that WriteFile uses, so that a test can
// make a write fail where a real disk would.
type tempFile interface {
	Write([]byte) (int, error)
	Sync() error
	Chmod(fs.FileMode) error
	Close() error
	Name() string
}

func osTemp(dir, pattern string) (tempFile, error) { return os.CreateTemp(dir, pattern) }

func write(path string, data []byte, perm fs.FileMode, create func(dir, pattern string) (tempFile, error)) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail(path, err)
	}
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := create(dir, "."+base+".*.tmp")
	if err != nil {
		return fail(path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if n, err := f.Write(data); err != nil {
		return fail(path, err)
	} else if n < len(data) {
		return fail(path, errors.New("short write"))
	}
	if err := f.Sync(); err != nil {
		return fail(path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(path, err)
	}
	if err := f.Close(); err != nil {
		return fail(path, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		return fail(path, err)
	}
	ok = true
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable. It is best effort: the file is in
// place whatever happens, and some file systems cannot sync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// fail is err about path: the operating system's reason without the
// temporary file's name, which means nothing to the user.
func fail(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

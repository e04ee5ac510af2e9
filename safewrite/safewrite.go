// Package safewrite writes a file so that a failure leaves nothing broken:
// the new contents go to a temporary file beside the target, are synced to
// the disk, and only then take the target's name. A full disk, a quota or a
// crash part-way through leaves the file that was there as it was.
package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFile writes data to path, as os.WriteFile does, but atomically: the
// file at path is either left as it was (on any error) or replaced whole.
//
// The data is written to a temporary file in the same directory (so that
// the rename stays on one file system), synced, given the permissions of
// the file it replaces (perm less the umask for a new file, as
// os.WriteFile), and renamed over it; the directory is then synced, so
// that the new name survives a crash. When path is a symbolic link, the
// file it points to is written (created if it is missing) and the link
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

// osTemp creates a new file beside target, of a name no other file has,
// with perm (less the umask).
func osTemp(target string, perm fs.FileMode) (tempFile, error) {
	dir, base := filepath.Split(target)
	for {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

func write(path string, data []byte, perm fs.FileMode, create func(target string, perm fs.FileMode) (tempFile, error)) error {
	target, err := resolve(path)
	if err != nil {
		return fail(path, err)
	}
	keep := false // the mode of the file replaced
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		perm, keep = fi.Mode().Perm(), true
	}
	f, err := create(target, perm)
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
	if keep {
		if err := f.Chmod(perm); err != nil {
			return fail(path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fail(path, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		return fail(path, err)
	}
	ok = true
	syncDir(filepath.Dir(target))
	return nil
}

// resolve follows path's symbolic links, if any, to the file they name,
// which may not exist yet.
func resolve(path string) (string, error) {
	for range 40 { // as the kernel gives up on a loop
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", errors.New("too many levels of symbolic links")
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

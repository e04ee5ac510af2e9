//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ui

import "golang.org/x/sys/unix"

// ttyState is a terminal's mode, to give back.
type ttyState = unix.Termios

// makeRawInput puts the terminal fd in raw mode for input only (every
// byte as it is typed, no echo; ctrl+c a key rather than a signal unless
// signalKeys, ctrl+z a key always), and keeps its output processing: Bubble Tea,
// not reading the terminal itself, writes as to a terminal that turns a
// line feed into a new line.
func makeRawInput(fd int, signalKeys bool) (*ttyState, error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.IEXTEN
	if signalKeys {
		// ctrl+c still ends it; ctrl+z waits, as a key, for the explorer,
		// which suspends with the terminal put right.
		raw.Cc[unix.VSUSP] = 0
	} else {
		raw.Lflag &^= unix.ISIG
	}
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return nil, err
	}
	return old, nil
}

// restoreTTY gives the terminal fd its mode st.
func restoreTTY(fd int, st *ttyState) error { return unix.IoctlSetTermios(fd, ioctlSetTermios, st) }

// foreground reports whether the process's group owns the terminal fd,
// as after fg (not after bg, nor while the shell has it).
func foreground(fd int) bool {
	pgrp, err := unix.IoctlGetInt(fd, ioctlGetPgrp)
	return err != nil || pgrp == unix.Getpgrp()
}

package ui

import "golang.org/x/sys/unix"

// queuedBytes is how many bytes wait unread in the pipe or terminal fd.
func queuedBytes(fd int) (int, error) { return unix.IoctlGetInt(fd, unix.TIOCINQ) }

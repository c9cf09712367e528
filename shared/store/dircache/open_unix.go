//go:build unix

package dircache

import (
	"os"
	"syscall"
)

// openEntry opens an entry file for reading. O_NOFOLLOW refuses a link at
// the entry's name (a link to /dev/zero would be read forever);
// O_NONBLOCK returns at once from a named pipe that has no writer, which
// would otherwise block the open past any context.
func openEntry(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

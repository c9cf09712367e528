//go:build !unix

package dircache

import (
	"fmt"
	"io/fs"
	"os"
)

// openEntry opens an entry file for reading. Without O_NOFOLLOW, a link is
// refused by looking first; the opened file's type is checked again by
// the caller.
func openEntry(name string) (*os.File, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("open %s: a symbolic link", name)
	}
	return os.Open(name)
}

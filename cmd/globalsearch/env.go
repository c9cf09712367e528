package main

import (
	"io"
	"os"
)

// cliEnv is what a command may touch of the outside world; tests replace it.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	lookupEnv      func(string) (string, bool)
	stderrIsTTY    bool
	// userCacheDir finds the default map-cache directory's parent
	// (os.UserCacheDir); nil leaves run without a default cache.
	userCacheDir func() (string, error)
}

func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

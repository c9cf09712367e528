// Package cmdutil holds the pieces globalsearch's commands share to parse a
// command line and run it: a flag set that reports instead of printing, the
// hint for a mistyped flag or command, flag values that tell "not given"
// from their zero, the dispatch to a command with its exit status, and the
// escaping of text for a terminal. It holds no rule of the search itself, so cmd/globalsearch
// keeps only dispatch, its option sets and printing (docs/STYLE point 15).
package cmdutil

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Program is the command the hints and usages name.
const Program = "globalsearch"

// ErrHelp is -h or --help: the command's usage went to standard output and
// the command exits 0, as asking for help is no failure.
var ErrHelp = errors.New("help requested")

// UsageError is a command line that cannot run; it exits 2 like invalid
// input.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// NewFlagSet is a command's flag set: errors come back to the command,
// which exits 2 through UsageError, and -h prints the usage to out
// (ParseQuiet).
func NewFlagSet(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s %s [flags]\n\nflags:\n", Program, name)
		fs.PrintDefaults()
	}
	return fs
}

// Parse is how a command that takes no arguments reads its flags: -h
// prints the usage and ends the command (ErrHelp), a bad flag and a stray
// argument are usage errors, and set names the flags given, so that a flag
// left out leaves its request field to the default.
func Parse(fs *flag.FlagSet, args []string) (set map[string]bool, err error) {
	if err := ParseQuiet(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, &UsageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set, nil
}

// ParseQuiet parses args without the flag package's own printing, which
// follows a mistyped flag with the whole usage: -h prints the usage to the
// flag set's output and returns ErrHelp; any other mistake is one line, a
// UsageError with a hint (Hint).
func ParseQuiet(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return ErrHelp
	}
	return &UsageError{Hint(fs, err)}
}

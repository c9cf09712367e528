package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// ExitNothingToSearch is the exit status of a search that found no summary
// to read at all (globalsearch.NothingToSearch, docs/contract.md#errors). It
// ends no_results like a search whose answers all scored 0, and the status
// tells the two apart for a script.
const ExitNothingToSearch = 3

// Command is one subcommand of a program whose commands share an
// environment E. Run gets the arguments after the subcommand's name.
type Command[E any] struct {
	Summary string
	Run     func(ctx context.Context, env E, args []string) error
}

// Dispatch runs the command args names among cmds and returns the exit
// status: 0 on success and help asked for; 2 for a usage error, invalid
// input or a conflict (globalsearch.KindOf), and for an error invalid
// reports (nil: none); ExitNothingToSearch; 1 for any other failure, a
// command's panic included, whose stack follows its message on stderr.
func Dispatch[E any](ctx context.Context, env E, cmds map[string]Command[E], args []string, stdout, stderr io.Writer, invalid func(error) bool) int {
	if len(args) == 0 {
		PrintUsage(stderr, cmds)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		PrintUsage(stdout, cmds)
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q (%ssee %s -h)\n", Program, args[0], DidYouMean(args[0], slices.Collect(maps.Keys(cmds)), ""), Program)
		return 2
	}
	err := runGuarded(ctx, env, cmd, args[1:])
	if err == nil || errors.Is(err, ErrHelp) {
		return 0
	}
	// The message may quote the index or the model (docs/contract.md#local).
	fmt.Fprintf(stderr, "%s %s: %s\n", Program, args[0], TerminalText(err.Error()))
	var bug *panicError
	if errors.As(err, &bug) {
		stderr.Write(bug.stack)
		return 1
	}
	return exitStatus(err, invalid)
}

// exitStatus is a failed command's status (Dispatch).
func exitStatus(err error, invalid func(error) bool) int {
	var usage *UsageError
	if errors.As(err, &usage) {
		return 2
	}
	var nothing *globalsearch.NothingToSearch
	if errors.As(err, &nothing) {
		return ExitNothingToSearch
	}
	if invalid != nil && invalid(err) {
		return 2
	}
	switch globalsearch.KindOf(err) {
	case globalsearch.KindInvalidInput, globalsearch.KindConflict:
		return 2
	}
	return 1
}

// panicError is a command that panicked: a bug, never the input's fault,
// so it exits 1 like any internal error (docs/contract.md#errors), where
// Go's own crash would exit 2 like invalid input.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("internal error: %v", e.value) }

// runGuarded runs cmd, recovering a panic of the command's own goroutine
// into a panicError with its stack. A map worker's panic reaches this
// goroutine too (globalsearch.WorkerPanic), carrying the worker's stack,
// which is the one a bug report needs.
func runGuarded[E any](ctx context.Context, env E, cmd Command[E], args []string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if wp, ok := v.(*globalsearch.WorkerPanic); ok {
				err = &panicError{value: wp.Value, stack: wp.Stack}
				return
			}
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return cmd.Run(ctx, env, args)
}

// PrintUsage lists cmds by name with their summaries.
func PrintUsage[E any](w io.Writer, cmds map[string]Command[E]) {
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\ncommands:\n", Program)
	for _, name := range slices.Sorted(maps.Keys(cmds)) {
		fmt.Fprintf(w, "  %-16s %s\n", name, cmds[name].Summary)
	}
	fmt.Fprintf(w, "\nRun '%s <command> -h' for a command's flags.\n", Program)
}

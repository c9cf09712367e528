// Command globalsearch runs GraphRAG global search on a laptop and manages
// indexes: run, plan, tokens, calibrate, ingest, delete-namespace, import, invoke, mcp, a file each. It
// is the only place that reads flags and environment and wires adapters together.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
)

// command is one subcommand. run gets the arguments after the subcommand's
// name.
type command struct {
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

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

func commands() map[string]command {
	return map[string]command{
		"run":              {"run a global search and print the answer", runCommand},
		"plan":             {"dry run: print the batches a search would send, with no model call", planCommand},
		"tokens":           {"print the token estimate (docs/contract.md#token-estimate) of standard input", tokensCommand},
		"calibrate":        {"fit a model's characters-per-token rates from recorded results (docs/contract.md#calibrate)", calibrateCommand},
		"import":           {"import a Microsoft GraphRAG output folder (parquet) as an index", importCommand},
		"invoke":           {"run a Lambda handler on an events/ file with local adapters", invokeCommand},
		"ingest":           {"upload an index file into a DynamoDB index table, replacing its namespace", ingestCommand},
		"delete-namespace": {"delete every record of a namespace of a DynamoDB index table", deleteNamespaceCommand},
		"mcp":              {"serve global_search and plan_search to agents over MCP (stdio)", mcpCommand},
		"serve":            {"serve the HTTP API and a search page on this machine (http://127.0.0.1:8080/)", serveCommand},
	}
}

// usageError is a command line that cannot run; it exits 2 like invalid input.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv, stderrIsTTY: isTerminal(os.Stderr),
		userCacheDir: os.UserCacheDir}
	os.Exit(runMain(ctx, env, os.Args[1:]))
}

// runMain returns the exit status: 0 on success (no_results included) and
// help asked for, 2 for invalid input (a corrupt index file included), a
// conflict or usage, 3 for a search
// with nothing to search (nothingToSearch), 1 for any other failure.
func runMain(ctx context.Context, env *cliEnv, args []string) int {
	return dispatch(ctx, env, commands(), args)
}

// dispatch runs the command args name among cmds.
func dispatch(ctx context.Context, env *cliEnv, cmds map[string]command, args []string) int {
	if len(args) == 0 {
		printUsage(env.stderr, cmds)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(env.stdout, cmds)
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "globalsearch: unknown command %q (%ssee globalsearch -h)\n", args[0], cmdutil.DidYouMean(args[0], slices.Collect(maps.Keys(cmds)), ""))
		return 2
	}
	err := runGuarded(ctx, env, cmd, args[1:])
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	// The message may quote the index or the model (docs/contract.md#local).
	fmt.Fprintf(env.stderr, "globalsearch %s: %s\n", args[0], terminalText(err.Error()))
	var bug *panicError
	if errors.As(err, &bug) {
		env.stderr.Write(bug.stack)
		return 1
	}
	// A flag mistake cmdutil found is a usage error as the commands' own are.
	var usage *usageError
	var flagUsage *cmdutil.UsageError
	if errors.As(err, &usage) || errors.As(err, &flagUsage) {
		return 2
	}
	var nothing *nothingToSearch
	if errors.As(err, &nothing) {
		return exitNothingToSearch
	}
	var corrupt *indexsource.CorruptFileError
	if errors.As(err, &corrupt) {
		return 2 // the user's index file is malformed: invalid input
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
func runGuarded(ctx context.Context, env *cliEnv, cmd command, args []string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if wp, ok := v.(*globalsearch.WorkerPanic); ok {
				err = &panicError{value: wp.Value, stack: wp.Stack}
				return
			}
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return cmd.run(ctx, env, args)
}

func printUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: globalsearch <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-16s %s\n", name, cmds[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'globalsearch <command> -h' for a command's flags.")
}

func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// Command globalsearch runs GraphRAG global search on a laptop and manages
// indexes: run, plan, tokens, calibrate, ingest, delete-namespace, import, invoke, mcp, a file each. It
// is the only place that reads flags and environment and wires adapters together.
package main

import (
	"context"
	"errors"
	"os"
	"os/signal"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
)

// cliCommand is one subcommand; run gets the arguments after its name.
type cliCommand = cmdutil.Command[*cliEnv]

func commands() map[string]cliCommand {
	return map[string]cliCommand{
		"run":              {Summary: "run a global search and print the answer", Run: runCommand},
		"plan":             {Summary: "dry run: print the batches a search would send, with no model call", Run: planCommand},
		"tokens":           {Summary: "print the token estimate (docs/contract.md#token-estimate) of standard input", Run: tokensCommand},
		"calibrate":        {Summary: "fit a model's characters-per-token rates from recorded results (docs/contract.md#calibrate)", Run: calibrateCommand},
		"import":           {Summary: "import a Microsoft GraphRAG output folder (parquet) as an index", Run: importCommand},
		"invoke":           {Summary: "run a Lambda handler on an events/ file with local adapters", Run: invokeCommand},
		"ingest":           {Summary: "upload an index file into a DynamoDB index table, replacing its namespace", Run: ingestCommand},
		"delete-namespace": {Summary: "delete every record of a namespace of a DynamoDB index table", Run: deleteNamespaceCommand},
		"mcp":              {Summary: "serve global_search and plan_search to agents over MCP (stdio)", Run: mcpCommand},
		"show":             {Summary: "print a community, claim, chunk, entity or relationship by id, or the communities by level", Run: showCommand},
		"serve":            {Summary: "serve the HTTP API and a search page on this machine (http://127.0.0.1:8080/)", Run: serveCommand},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv, stderrIsTTY: isTerminal(os.Stderr),
		userCacheDir: os.UserCacheDir}
	os.Exit(runMain(ctx, env, os.Args[1:]))
}

// runMain returns the exit status: 0 on success (no_results included) and
// help asked for, 2 for invalid input (a corrupt index file included), a
// conflict or usage, 3 for a search with nothing to search
// (globalsearch.NothingToSearch), 1 for any other failure.
func runMain(ctx context.Context, env *cliEnv, args []string) int {
	return dispatch(ctx, env, commands(), args)
}

// dispatch runs the command args names among cmds; an index file that is
// malformed is the user's invalid input and exits 2.
func dispatch(ctx context.Context, env *cliEnv, cmds map[string]cliCommand, args []string) int {
	return cmdutil.Dispatch(ctx, env, cmds, args, env.stdout, env.stderr, func(err error) bool {
		var corrupt *indexsource.CorruptFileError
		return errors.As(err, &corrupt)
	})
}

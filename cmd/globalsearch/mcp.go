package main

import (
	"context"
	"flag"
	"os"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
	"github.com/graphrag-global/graphrag-global/shared/mcp"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// mcpCommand serves global search to agents over the Model Context
// Protocol on standard input and output: tools global_search and
// plan_search over one index (a file or a table), with the model, prices
// and cache of the flags.
func mcpCommand(ctx context.Context, env *cliEnv, args []string) error {
	f := &searchFlags{}
	set, err := cmdutil.Parse(newMCPFlagSet(f, env), args)
	if err != nil {
		return err
	}
	f.set = set
	// A client starts the server in a folder of its choosing: paths are
	// resolved now, and named in full when missing (docs/mcp.md#paths).
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	mcp.ResolvePaths(wd, &f.index.file, &f.index.graphrag.dir, &f.cache.dir, &f.prompts.dir)
	// The prompts are the user's own configuration, like the flags: a bad
	// one stops the server at once, before the index is read.
	if err := f.checkFiles(); err != nil {
		return err
	}
	if _, err := f.level.Level(f.set); err != nil {
		return err
	}
	if !f.index.given() {
		return &usageError{Msg: "mcp needs --index FILE, --graphrag DIR or --table TABLE"}
	}
	// The index flags' mistakes are the command line's: refused at start,
	// not by the first tool call.
	if err := f.index.check(); err != nil {
		return err
	}
	// What the arguments alone decide is checked here, so a mistyped
	// config stops the server at once; what the environment decides (AWS
	// region and credentials, the files) is opened by the first tool call
	// (docs/contract.md#local).
	if _, err := parseModelSpec(f.model.spec); err != nil {
		return err
	}
	if err := f.model.resolve(env); err != nil {
		return err
	}
	// Standard output carries the protocol; logs go to standard error.
	srv := newMCPServer(env, f)
	srv.WorkDir = wd
	return srv.Serve(ctx, env.stdin, env.stdout)
}

// newMCPFlagSet registers mcp's flags into f: the index, the model and
// its prices, the cache, the prompts, -v.
func newMCPFlagSet(f *searchFlags, env *cliEnv) *flag.FlagSet {
	fs := newFlagSet("mcp", env)
	f.index.register(fs)
	f.model.register(fs)
	f.cache.register(fs)
	f.prompts.register(fs)
	registerVerbose(fs, &f.verbose)
	f.level.Register(fs, helpDefaults(env).CommunityLevel, globalsearch.DefaultVariable("communityLevel"))
	fs.Int64Var(&f.seed, "seed", 0, "shuffle seed of every search (default: random per call); a fixed seed lets a repeated question reuse the map cache")
	registerConcurrency(fs, &f.concurrency, &f.autoConcurrency, helpDefaults(env))
	f.registerReduceMode(fs, helpDefaults(env))
	f.calls.Register(fs, helpDefaults(env))
	return fs
}

// newMCPServer wires the flags into the server: the index they name, the
// engine every command runs (newEngine), the request defaults of run, and
// the seed and concurrency of every search.
func newMCPServer(env *cliEnv, f *searchFlags) *mcp.Server {
	spec, _ := parseModelSpec(f.model.spec)
	srv := &mcp.Server{
		OpenIndex: func(ctx context.Context) (globalsearch.Index, string, error) { return f.index.open(ctx, env) },
		NewEngine: func(ctx context.Context, idx globalsearch.Index, withModel bool) (*globalsearch.Engine, error) {
			return f.newEngine(ctx, env, idx, withModel)
		},
		NewRuns: func() globalsearch.Runs { return memstore.New() },
		Defaults: func(fileNamespace string) (globalsearch.Defaults, error) {
			defaults, err := globalsearch.FileDefaults(env.lookupEnv, fileNamespace, f.model.mapSpec())
			if err != nil {
				return globalsearch.Defaults{}, err
			}
			if level, _ := f.level.Level(f.set); level != nil { // checked at start
				defaults.CommunityLevel = *level
			}
			if err := f.reduceModeDefault(&defaults); err != nil {
				return globalsearch.Defaults{}, err
			}
			defaults.Prompts, err = f.prompts.load()
			return defaults, err
		},
		IndexNeedsAWS: f.index.table != "",
		ModelNeedsAWS: spec.Provider == provider.Bedrock,
		Log:           env.stderr,
		Paths:         []mcp.Path{{Flag: "--index", Path: f.index.file}, {Flag: "--graphrag", Path: f.index.graphrag.dir, Folder: true}},
	}
	if f.set["seed"] {
		seed := f.seed
		srv.Seed = &seed
	}
	// --concurrency auto leaves each search's to its default and adapts
	// (docs/contract.md#auto-concurrency).
	if f.set["concurrency"] && !f.autoConcurrency {
		calls := f.concurrency
		srv.MapConcurrency = &calls
	}
	return srv
}

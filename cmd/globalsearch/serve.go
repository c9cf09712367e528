package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localserver"
)

// serveOptions are serve's flags: the shared index, model and cache flags
// (as mcp has them) and the address.
type serveOptions struct {
	search searchFlags
	addr   string
}

// serveCommand is `globalsearch serve`: the HTTP API of a deployment and
// a page to use it, in one process, until SIGINT or SIGTERM
// (shared/localserver).
func serveCommand(ctx context.Context, env *cliEnv, args []string) error {
	s, namespace, err := openServe(ctx, env, args)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "globalsearch serve: http://%s/ (index namespace %q); Ctrl-C stops\n", s.Addr(), namespace)
	return s.Serve(ctx)
}

// openServe parses serve's flags, opens the index (the shared index
// flags say which one is missing or too many), the model and the runs
// store, and binds the address, in that order, so that a bad flag reads
// and binds nothing. namespace is the index's, the page's default.
func openServe(ctx context.Context, env *cliEnv, args []string) (s *localserver.Server, namespace string, err error) {
	o := &serveOptions{}
	set, err := cmdutil.Parse(newServeFlagSet(o, env), args)
	if err != nil {
		return nil, "", err
	}
	f := &o.search
	f.set = set
	if err := f.checkLimits(); err != nil {
		return nil, "", err
	}
	if err := f.checkFiles(); err != nil {
		return nil, "", err
	}
	if err := f.index.check(); err != nil {
		return nil, "", err
	}
	if err := localserver.CheckAddr(o.addr); err != nil {
		return nil, "", &usageError{Msg: err.Error()}
	}
	cfg, err := serveConfig(ctx, env, f)
	if err != nil {
		return nil, "", err
	}
	cfg.Addr = o.addr
	s = localserver.New(ctx, cfg)
	if err := s.Listen(); err != nil {
		return nil, "", err
	}
	if !localserver.IsLoopback(o.addr) {
		fmt.Fprintf(env.stderr, "globalsearch serve: warning: %s is not a loopback address: whoever reaches it can run searches and spend model calls, with no sign-in\n", o.addr)
	}
	return s, cfg.Defaults.Namespace, nil
}

// newServeFlagSet registers serve's flags into o.
func newServeFlagSet(o *serveOptions, env *cliEnv) *flag.FlagSet {
	fs := newFlagSet("serve", env)
	f := &o.search
	f.index.register(fs)
	f.model.register(fs)
	f.cache.register(fs)
	f.prompts.register(fs)
	registerVerbose(fs, &f.verbose)
	d := helpDefaults(env)
	f.level.Register(fs, d.CommunityLevel, globalsearch.DefaultVariable("communityLevel"))
	fs.IntVar(&f.maxModelCalls, "max-model-calls", 0, defaultHelp("refuse plans that may make more model calls", "maxModelCalls", d.MaxModelCalls))
	f.registerReduceMode(fs, d)
	f.calls.Register(fs, d)
	fs.Int64Var(&f.maxMapTextMB, "max-map-text-mb", 0, fmt.Sprintf("refuse plans whose map texts exceed this many MiB (default %d)", globalsearch.DefaultMaxMapTextBytes>>20))
	fs.StringVar(&o.addr, "addr", localserver.DefaultAddr, "host:port to listen on: a loopback address, or the IP address of the one interface to serve on (never every interface)")
	return fs
}

// serveConfig is what the server serves: the engine every command runs
// (newEngine) over the opened index, and the deployment's defaults as
// this environment and the flags resolve them.
func serveConfig(ctx context.Context, env *cliEnv, f *searchFlags) (localserver.Config, error) {
	level, err := f.level.Level(f.set)
	if err != nil {
		return localserver.Config{}, err
	}
	idx, fileNamespace, err := f.index.open(ctx, env)
	if err != nil {
		return localserver.Config{}, err
	}
	defaults, err := globalsearch.FileDefaults(env.lookupEnv, fileNamespace, f.model.mapSpec())
	if err != nil {
		return localserver.Config{}, err
	}
	if level != nil { // the level of a request that names none
		defaults.CommunityLevel = *level
	}
	if err := f.reduceModeDefault(&defaults); err != nil {
		return localserver.Config{}, err
	}
	if f.set["max-model-calls"] {
		defaults.MaxModelCalls = f.maxModelCalls
	}
	if defaults.Prompts, err = f.prompts.load(); err != nil {
		return localserver.Config{}, err
	}
	e, err := f.newEngine(ctx, env, idx, true)
	if err != nil {
		return localserver.Config{}, err
	}
	return localserver.Config{Engine: e, Defaults: defaults}, nil
}

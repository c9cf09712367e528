package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
)

// usageError is cmdutil.UsageError, a command line that cannot run (exit
// 2): one type, so that dispatch reads every usage error alike.
type usageError = cmdutil.UsageError

// newFlagSet is a command's flag set (cmdutil.NewFlagSet), its usage on
// the environment's standard output.
func newFlagSet(name string, env *cliEnv) *flag.FlagSet {
	return cmdutil.NewFlagSet(name, env.stdout)
}

// errNamespaceFlag refuses a --namespace no index can hold
// (globalsearch.ValidNamespace, docs/contract.md#index) before anything is
// read.
var errNamespaceFlag error = &usageError{Msg: "--namespace " + globalsearch.NamespaceRule}

func registerVerbose(fs *flag.FlagSet, verbose *bool) {
	fs.BoolVar(verbose, "v", false, "log each step as JSON on stderr")
}

// cacheOptions are the map-answer cache flags of the commands that call a
// model (run, plan, mcp).
type cacheOptions struct {
	dir     string
	noCache bool
}

func (o *cacheOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.dir, "cache", "", "map-answer cache directory (default: graphrag-global/map-answers under the user's cache directory)")
	fs.BoolVar(&o.noCache, "no-cache", false, "neither read nor write the map-answer cache")
}

// check is the --cache/--no-cache rule; set holds the flags given.
func (o *cacheOptions) check(set map[string]bool) error {
	if set["cache"] && (o.noCache || o.dir == "") {
		return &usageError{Msg: "--cache needs a directory and excludes --no-cache"}
	}
	return nil
}

// open is the map-answer cache (docs/contract.md#map-cache): --cache DIR,
// else the default directory, none with --no-cache.
func (o *cacheOptions) open(env *cliEnv) (globalsearch.MapCache, error) {
	switch {
	case o.noCache:
		return nil, nil
	case o.dir != "":
		return dircache.New(o.dir, 0, nil), nil
	case env.userCacheDir == nil:
		return nil, nil
	}
	dir, err := env.userCacheDir()
	if err != nil {
		return nil, &usageError{Msg: fmt.Sprintf("no user cache directory (%v): give --cache DIR or --no-cache", err)}
	}
	return dircache.New(filepath.Join(dir, "graphrag-global", "map-answers"), 0, nil), nil
}

// standing is where the records of standing questions live
// (docs/contract.md#standing-questions): "standing" inside --cache DIR,
// else beside the default cache directory, with --no-cache too, since a
// record is no cache entry.
func (o *cacheOptions) standing(env *cliEnv) (globalsearch.Standing, error) {
	if o.dir != "" {
		return dircache.NewStanding(filepath.Join(o.dir, "standing"), 0, nil), nil
	}
	if env.userCacheDir == nil {
		return nil, &usageError{Msg: "--standing needs a directory for its record: give --cache DIR"}
	}
	dir, err := env.userCacheDir()
	if err != nil {
		return nil, &usageError{Msg: fmt.Sprintf("no user cache directory (%v) for the --standing record: give --cache DIR", err)}
	}
	return dircache.NewStanding(filepath.Join(dir, "graphrag-global", "standing"), 0, nil), nil
}

// asUsage makes the invalid input of the shared packages (a bad spec, a
// missing credential or region) a usageError, as cmd's tests and
// callers test for; it exits 2 either way.
func asUsage(err error) error {
	if err != nil && globalsearch.KindOf(err) == globalsearch.KindInvalidInput {
		return &usageError{Msg: err.Error()}
	}
	return err
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localhttp"
	"github.com/graphrag-global/graphrag-global/shared/localrun"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// defaultServeAddr is where serve listens unless --addr says otherwise:
// this machine only (docs/contract.md#serve).
const defaultServeAddr = "127.0.0.1:8080"

// headerTimeout and readTimeout bound how long a client may take to send a
// request's headers, and the whole request with its body: a local client
// sends a valid request (at most 64 KiB, docs/contract.md#body-cap) in well
// under a second, and one that dribbles holds a connection for nothing
// (docs/contract.md#serve-security). The server lifts the read deadline
// once the body is read, so a request still being answered keeps its
// context.
const (
	headerTimeout = 10 * time.Second
	readTimeout   = 15 * time.Second
)

// shutdownGrace bounds how long a stopping server waits for requests in
// flight; searches still running are stopped either way.
const shutdownGrace = 10 * time.Second

// serveOptions are serve's flags: the shared index, model and cache flags
// (as mcp has them) and the address.
type serveOptions struct {
	search searchFlags
	addr   string
}

// serveCommand is `globalsearch serve`: the HTTP API of a deployment and
// a page to use it, in one process, until SIGINT or SIGTERM.
func serveCommand(ctx context.Context, env *cliEnv, args []string) error {
	s, err := openServe(ctx, env, args)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "globalsearch serve: http://%s/ (index namespace %q); Ctrl-C stops\n", s.listener.Addr(), s.namespace)
	return s.run(ctx)
}

// served is a server ready to run: its listener is bound.
type served struct {
	listener net.Listener
	// addr is --addr as given, whose host name (localhost) requests may
	// name as well as the bound address.
	addr      string
	handler   http.Handler
	starter   *localrun.Starter
	namespace string
	// headerTimeout and readTimeout are the consts of those names; tests
	// shorten them.
	headerTimeout, readTimeout time.Duration
}

// openServe parses serve's flags, opens the index (the shared index
// flags say which one is missing or too many), the model and the runs
// store, and binds the address, in that order, so that a bad flag reads
// and binds nothing.
func openServe(ctx context.Context, env *cliEnv, args []string) (*served, error) {
	o := &serveOptions{}
	set, err := parseFlags(newServeFlagSet(o, env), args)
	if err != nil {
		return nil, err
	}
	f := &o.search
	f.set = set
	if err := f.checkLimits(); err != nil {
		return nil, err
	}
	if err := f.checkFiles(); err != nil {
		return nil, err
	}
	if err := f.index.check(); err != nil {
		return nil, err
	}
	if err := checkServeAddr(o.addr); err != nil {
		return nil, err
	}
	l, err := newLocalAPI(ctx, env, f)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		l.starter.Close()
		return nil, err
	}
	if host, _, _ := net.SplitHostPort(o.addr); !isLoopback(host) {
		fmt.Fprintf(env.stderr, "globalsearch serve: warning: %s is not a loopback address: whoever reaches it can run searches and spend model calls, with no sign-in\n", o.addr)
	}
	return &served{listener: ln, addr: o.addr, handler: l.routes(), starter: l.starter, namespace: l.defaults.Namespace,
		headerTimeout: headerTimeout, readTimeout: readTimeout}, nil
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
	fs.IntVar(&f.maxModelCalls, "max-model-calls", 0, defaultHelp("refuse plans that may make more model calls", "maxModelCalls", d.MaxModelCalls))
	fs.Int64Var(&f.maxMapTextMB, "max-map-text-mb", 0, fmt.Sprintf("refuse plans whose map texts exceed this many MiB (default %d)", globalsearch.DefaultMaxMapTextBytes>>20))
	fs.StringVar(&o.addr, "addr", defaultServeAddr, "host:port to listen on: a loopback address, or the IP address of the one interface to serve on (never every interface)")
	return fs
}

// checkServeAddr is serve's address rule (docs/contract.md#serve): an IP
// address or localhost and a port; never an address that listens on every
// interface, which would offer searches (and model spending) to the
// network when one interface was meant.
func checkServeAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return &usageError{fmt.Sprintf("--addr %q must be host:port, such as %s", addr, defaultServeAddr)}
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		return &usageError{fmt.Sprintf("--addr %q listens on every interface: name one, %s for this machine only or the IP address of the interface to serve on", addr, defaultServeAddr)}
	case ip == nil:
		return &usageError{fmt.Sprintf("--addr %q: the host must be an IP address or localhost", addr)}
	}
	return nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// run serves until ctx ends or SIGTERM comes, then stops taking requests,
// lets those in flight finish (shutdownGrace) and stops every search
// still running.
func (s *served) run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	guarded := localhttp.New(s.handler, s.listener.Addr(), s.addr)
	srv := &http.Server{Handler: guarded, ReadHeaderTimeout: s.headerTimeout, ReadTimeout: s.readTimeout}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.listener) }()
	select {
	case err := <-errc:
		s.starter.Close()
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	s.starter.Close()
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}

// localAPI is what serve's routes share: the API handler over the local
// starter and runs store, and the engine and index the local routes read.
type localAPI struct {
	handler  *api.Handler
	starter  *localrun.Starter
	engine   *globalsearch.Engine
	index    globalsearch.Index
	runs     *memstore.Store
	defaults globalsearch.Defaults
	model    *modelOptions
}

// newLocalAPI wires the engine every command runs (newEngine), a runs
// store in memory that the API and the starter share, and the API handler
// with the deployment's defaults as this environment resolves them.
func newLocalAPI(ctx context.Context, env *cliEnv, f *searchFlags) (*localAPI, error) {
	idx, fileNamespace, err := f.index.open(ctx, env)
	if err != nil {
		return nil, err
	}
	defaults, err := requestDefaults(env, fileNamespace, f.model.mapSpec())
	if err != nil {
		return nil, err
	}
	if f.set["max-model-calls"] {
		defaults.MaxModelCalls = f.maxModelCalls
	}
	if defaults.Prompts, err = f.prompts.load(); err != nil {
		return nil, err
	}
	if err := f.model.resolve(env); err != nil {
		return nil, err
	}
	e, err := f.newEngine(ctx, env, idx, true)
	if err != nil {
		return nil, err
	}
	return wireLocalAPI(ctx, e, defaults, &f.model), nil
}

// wireLocalAPI gives e (over its index) a runs store in memory that the
// API and the local starter share, and the API handler over both.
func wireLocalAPI(ctx context.Context, e *globalsearch.Engine, defaults globalsearch.Defaults, model *modelOptions) *localAPI {
	runs := memstore.New()
	e.Runs = runs
	starter := localrun.New(ctx, e, defaults)
	h := &api.Handler{Runs: runs, Starter: starter, Defaults: defaults, Prices: e.Prices, Logger: e.Logger}
	return &localAPI{handler: h, starter: starter, engine: e, index: e.Index, runs: runs, defaults: defaults, model: model}
}

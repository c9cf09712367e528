// Package localserver is `globalsearch serve`'s HTTP server: the API of a
// deployment and a page to use it, in one process, over an engine the
// caller wires (docs/serve.md, docs/contract.md#serve). It keeps the
// server to the browser of the machine it runs on (shared/localhttp) and
// bounds how long a client may take to send a request.
package localserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localhttp"
	"github.com/graphrag-global/graphrag-global/shared/localrun"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// DefaultAddr is where serve listens unless told otherwise: this machine
// only (docs/contract.md#serve).
const DefaultAddr = "127.0.0.1:8080"

// HeaderTimeout and ReadTimeout bound how long a client may take to send a
// request's headers, and the whole request with its body: a local client
// sends a valid request (at most 64 KiB, docs/contract.md#body-cap) in well
// under a second, and one that dribbles holds a connection for nothing
// (docs/contract.md#serve-security). The server lifts the read deadline
// once the body is read, so a request still being answered keeps its
// context.
const (
	HeaderTimeout = 10 * time.Second
	ReadTimeout   = 15 * time.Second
)

// shutdownGrace bounds how long a stopping server waits for requests in
// flight; searches still running are stopped either way.
const shutdownGrace = 10 * time.Second

// Config is what a server serves: the engine every command runs (its runs
// store is replaced by one in memory the API and the starter share), the
// deployment's defaults as the caller resolved them, and the address.
type Config struct {
	Engine   *globalsearch.Engine
	Defaults globalsearch.Defaults
	// Addr is host:port as given (CheckAddr holds it to serve's rule);
	// requests may name its host (localhost) as well as the bound address.
	Addr string
	// HeaderTimeout and ReadTimeout are the consts of those names when
	// zero, and Heartbeat is heartbeat's; tests shorten them.
	HeaderTimeout, ReadTimeout, Heartbeat time.Duration
}

// Server is the API's routes through the handler a deployment runs, the
// page, and the local routes the page needs, over one engine.
type Server struct {
	cfg      Config
	handler  *api.Handler
	starter  *localrun.Starter
	engine   *globalsearch.Engine
	runs     *memstore.Store
	listener net.Listener
	// answers holds the answers being written, for their event streams;
	// stopping is closed when the server shuts down, which ends them.
	answers  *answerHub
	stopping chan struct{}
	stopOnce sync.Once
}

// New wires cfg's engine to a runs store in memory that the API and the
// local starter share, and the API handler over both. Searches it starts
// run under ctx.
func New(ctx context.Context, cfg Config) *Server {
	if cfg.HeaderTimeout == 0 {
		cfg.HeaderTimeout = HeaderTimeout
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = ReadTimeout
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = heartbeat
	}
	e := cfg.Engine
	runs := memstore.New()
	e.Runs = runs
	// Every search's final reduce call streams to the hub
	// (docs/contract.md#answer-stream).
	hub := newAnswerHub()
	starter := localrun.New(globalsearch.WithAnswerSink(ctx, hub), e, cfg.Defaults)
	h := &api.Handler{Runs: runs, Starter: hubStarter{starter: starter, hub: hub}, Defaults: cfg.Defaults, Prices: e.Prices, Logger: e.Logger}
	return &Server{cfg: cfg, handler: h, starter: starter, engine: e, runs: runs,
		answers: hub, stopping: make(chan struct{})}
}

// Listen binds cfg.Addr. A server that cannot bind is done: its searches
// are stopped, as Close does.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		s.Close()
		return err
	}
	s.listener = ln
	return nil
}

// Addr is the address Listen bound.
func (s *Server) Addr() net.Addr { return s.listener.Addr() }

// Close stops every search still running and waits for them; Serve does
// so when it ends.
func (s *Server) Close() { s.starter.Close() }

// Serve serves on the bound listener until ctx ends or SIGTERM comes, then
// stops taking requests, lets those in flight finish (shutdownGrace) and
// stops every search still running.
func (s *Server) Serve(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	guarded := localhttp.New(s.routes(), s.listener.Addr(), s.cfg.Addr)
	// No WriteTimeout: an answer's event stream lasts as long as its run
	// (docs/contract.md#answer-stream), and a shutdown ends the streams
	// (stopping) instead of waiting out its grace for them.
	srv := &http.Server{Handler: guarded, ReadHeaderTimeout: s.cfg.HeaderTimeout, ReadTimeout: s.cfg.ReadTimeout}
	srv.RegisterOnShutdown(func() { s.stopOnce.Do(func() { close(s.stopping) }) })
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.listener) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	s.Close()
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}

// CheckAddr is serve's address rule (docs/contract.md#serve): an IP
// address or localhost and a port; never an address that listens on every
// interface, which would offer searches (and model spending) to the
// network when one interface was meant.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("--addr %q must be host:port, such as %s", addr, DefaultAddr)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		return fmt.Errorf("--addr %q listens on every interface: name one, %s for this machine only or the IP address of the interface to serve on", addr, DefaultAddr)
	case ip == nil:
		return fmt.Errorf("--addr %q: the host must be an IP address or localhost", addr)
	}
	return nil
}

// IsLoopback reports whether addr's host is this machine only; serve
// warns of any other, which whoever reaches it can use with no sign-in.
func IsLoopback(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

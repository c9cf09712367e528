// Package localhttp keeps a server meant for the browser of the machine it
// runs on (globalsearch serve) to the requests of its own page and of
// clients on that machine (docs/contract.md#serve-security). A page on
// another origin can make a browser send requests to a loopback address
// (cross-site request forgery), and a hostile name that resolves to
// 127.0.0.1 makes such a page same-origin with the server, so it can read
// the answers too (DNS rebinding). The server has no sign-in, so the
// request itself must show that it is neither.
package localhttp

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// Guard answers only requests addressed to the server, and passes on a
// state-changing one only when a page on another origin cannot have sent
// it; it bounds the time a request's body may take to arrive.
type Guard struct {
	next        http.Handler
	hosts       []string // Host values accepted, lowercased, the bound address first
	bodyTimeout time.Duration
}

// loopbackNames are the names a client on this machine may address the
// server by whatever address it is bound to: none of them can be made to
// resolve elsewhere by a page's DNS.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// New guards next, served on the listener bound to bound (its port, as
// bound, is the one accepted) and asked for as given (serve's --addr,
// whose host is accepted too when it is a name such as localhost). A
// request's body must arrive within bodyTimeout of the handler's start.
func New(next http.Handler, bound net.Addr, given string, bodyTimeout time.Duration) *Guard {
	boundHost, port, _ := net.SplitHostPort(bound.String())
	names := []string{boundHost}
	if host, _, err := net.SplitHostPort(given); err == nil && host != "" && net.ParseIP(host) == nil {
		names = append(names, host)
	}
	names = append(names, loopbackNames...)
	g := &Guard{next: next, bodyTimeout: bodyTimeout}
	for _, name := range names {
		hosts := []string{net.JoinHostPort(name, port)}
		if port == "80" {
			// A browser leaves the scheme's default port out of Host.
			hosts = append(hosts, strings.TrimSuffix(net.JoinHostPort(name, port), ":80"))
		}
		for _, h := range hosts {
			if h = strings.ToLower(h); !slices.Contains(g.hosts, h) {
				g.hosts = append(g.hosts, h)
			}
		}
	}
	return g
}

func (g *Guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !slices.Contains(g.hosts, strings.ToLower(r.Host)) {
		refuse(w, "serve answers only requests addressed to %s or a loopback name (%s); Host %q is refused (DNS rebinding protection)",
			g.hosts[0], strings.Join(g.hosts[1:], ", "), r.Host)
		return
	}
	if !safe(r.Method) {
		if origins := r.Header.Values("Origin"); len(origins) > 0 && !g.ownOrigin(origins) {
			refuse(w, "serve takes a %s only from its own page (http://%s); Origin %q is another origin (cross-site request forgery protection)",
				r.Method, g.hosts[0], strings.Join(origins, ", "))
			return
		}
		ct := r.Header.Get("Content-Type")
		if media, _, err := mime.ParseMediaType(ct); err != nil || media != "application/json" {
			refuse(w, "serve takes a %s only as Content-Type: application/json, which a page on another origin cannot send without the browser asking first (CORS preflight); Content-Type %q is refused",
				r.Method, ct)
			return
		}
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = g.bounded(w, r.Body)
	}
	g.next.ServeHTTP(w, r)
}

// safe reports whether method changes nothing (RFC 9110, 9.2.1), so that a
// page on another origin gains nothing by sending it: it cannot read the
// answer, because no answer carries Access-Control-Allow-Origin.
func safe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// ownOrigin reports whether every Origin value is the server's own: the
// page at one of the hosts it answers. "null" (a sandboxed frame, a file)
// is no origin of the server's.
func (g *Guard) ownOrigin(origins []string) bool {
	for _, o := range origins {
		host, ok := strings.CutPrefix(strings.ToLower(o), "http://")
		if !ok || !slices.Contains(g.hosts, host) {
			return false
		}
	}
	return true
}

func refuse(w http.ResponseWriter, format string, args ...any) {
	http.Error(w, fmt.Sprintf(format, args...), http.StatusForbidden)
}

// bounded is body with the connection's read deadline at bodyTimeout from
// now, cleared once the body is read: a request with a body is the only
// time the server waits on the client in a handler, and a read deadline
// left in place past the body would end the request's context when it
// passed (the server reads ahead to see the client go) while a long plan
// still runs. The server sets its own deadlines again for the next request.
func (g *Guard) bounded(w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	rc := http.NewResponseController(w)
	// A writer with no connection (a test's recorder) has no deadline to
	// set, and no client to wait on.
	if err := rc.SetReadDeadline(time.Now().Add(g.bodyTimeout)); err != nil {
		return body
	}
	return &boundedBody{ReadCloser: body, rc: rc, timeout: g.bodyTimeout}
}

type boundedBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case errors.Is(err, io.EOF):
		b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("the body did not arrive within %s: %w", b.timeout, err)
	}
	return n, err
}

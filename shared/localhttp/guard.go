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
	"fmt"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Guard answers only requests addressed to the server, and passes on a
// state-changing one only when a page on another origin cannot have sent
// it.
type Guard struct {
	next  http.Handler
	hosts []string // Host values accepted, lowercased, the bound address first
}

// loopbackNames are the names a client on this machine may address the
// server by whatever address it is bound to: none of them can be made to
// resolve elsewhere by a page's DNS.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// New guards next, served on the listener bound to bound (its port, as
// bound, is the one accepted) and asked for as given (serve's --addr,
// whose host is accepted too when it is a name such as localhost).
func New(next http.Handler, bound net.Addr, given string) *Guard {
	boundHost, port, _ := net.SplitHostPort(bound.String())
	names := []string{boundHost}
	if host, _, err := net.SplitHostPort(given); err == nil && host != "" && net.ParseIP(host) == nil {
		names = append(names, host)
	}
	names = append(names, loopbackNames...)
	g := &Guard{next: next}
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
		refuse(w, "serve answers only requests addressed to %s or a loopback name (%s); Host %s is refused (DNS rebinding protection)",
			g.hosts[0], strings.Join(g.hosts[1:], ", "), globalsearch.EchoQuoted(r.Host))
		return
	}
	if !safe(r.Method) {
		if origins := r.Header.Values("Origin"); len(origins) > 0 && !g.ownOrigin(origins) {
			refuse(w, "serve takes a %s only from its own page (http://%s); Origin %s is another origin (cross-site request forgery protection)",
				globalsearch.Echo(r.Method), g.hosts[0], globalsearch.EchoQuoted(strings.Join(origins, ", ")))
			return
		}
		ct := r.Header.Get("Content-Type")
		if media, _, err := mime.ParseMediaType(ct); err != nil || media != "application/json" {
			refuse(w, "serve takes a %s only as Content-Type: application/json, which a page on another origin cannot send without the browser asking first (CORS preflight); Content-Type %s is refused",
				globalsearch.Echo(r.Method), globalsearch.EchoQuoted(ct))
			return
		}
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

// refuse answers 403 with why; the headers it quotes went through
// globalsearch.Echo, cut short as every message that repeats input is
// (docs/contract.md#errors).
func refuse(w http.ResponseWriter, format string, args ...any) {
	http.Error(w, fmt.Sprintf(format, args...), http.StatusForbidden)
}

package localhttp_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/localhttp"
)

// echo answers 200 with the body it read.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Write(body)
})

func addr(s string) net.Addr {
	a, err := net.ResolveTCPAddr("tcp", s)
	if err != nil {
		panic(err)
	}
	return a
}

func TestGuard(t *testing.T) {
	tests := []struct {
		name, bound, given          string
		method, host, origin, ctype string
		status                      int
		want                        string
	}{
		{"the bound address", "127.0.0.1:8080", "127.0.0.1:8080", "GET", "127.0.0.1:8080", "", "", 200, ""},
		{"the --addr name", "127.0.0.1:8080", "localhost:8080", "GET", "localhost:8080", "", "", 200, ""},
		{"a bound IPv6 address", "[::1]:8080", "[::1]:8080", "GET", "[::1]:8080", "", "", 200, ""},
		{"an interface's address", "192.0.2.7:8080", "192.0.2.7:8080", "GET", "192.0.2.7:8080", "", "", 200, ""},
		{"loopback names on an interface's address", "192.0.2.7:8080", "192.0.2.7:8080", "GET", "localhost:8080", "", "", 200, ""},
		{"port 80 left out of Host", "127.0.0.1:80", "127.0.0.1:80", "GET", "localhost", "", "", 200, ""},
		{"port 80 in Host", "127.0.0.1:80", "127.0.0.1:80", "GET", "localhost:80", "", "", 200, ""},
		{"the bound port, not --addr's", "127.0.0.1:43210", "127.0.0.1:0", "GET", "127.0.0.1:0", "", "", 403,
			"addressed to 127.0.0.1:43210 or a loopback name (localhost:43210, [::1]:43210)"},
		{"a port left out when it is not 80", "127.0.0.1:8080", "127.0.0.1:8080", "GET", "localhost", "", "", 403, `Host "localhost" is refused`},
		{"another name", "127.0.0.1:8080", "localhost:8080", "GET", "evil.example:8080", "", "", 403, "(DNS rebinding protection)"},
		{"a Host with control characters is quoted", "127.0.0.1:8080", "", "GET", "a\x1bb", "", "", 403, `Host "a\x1bb"`},
		{"a long Host is cut in the message", "127.0.0.1:8080", "", "GET", strings.Repeat("h", 10_000), "", "", 403, `Host "` + strings.Repeat("h", 64) + `"… is refused`},
		{"a long Origin is cut in the message", "127.0.0.1:8080", "", "POST", "127.0.0.1:8080", "http://" + strings.Repeat("o", 10_000), "application/json", 403, `Origin "http://` + strings.Repeat("o", 57) + `"… is another origin`},
		{"an own origin in capitals", "127.0.0.1:8080", "", "POST", "127.0.0.1:8080", "HTTP://LOCALHOST:8080", "application/json", 200, ""},
		{"another origin", "127.0.0.1:8080", "", "PUT", "127.0.0.1:8080", "http://evil.example", "application/json", 403,
			"serve takes a PUT only from its own page (http://127.0.0.1:8080)"},
		{"JSON in capitals", "127.0.0.1:8080", "", "PATCH", "127.0.0.1:8080", "", "Application/JSON; charset=utf-8", 200, ""},
		{"a malformed type", "127.0.0.1:8080", "", "POST", "127.0.0.1:8080", "", "application/json; =", 403, "Content-Type:"},
		{"a JSON-like type", "127.0.0.1:8080", "", "POST", "127.0.0.1:8080", "", "application/jsonx", 403, "Content-Type:"},
		{"a safe method needs no type", "127.0.0.1:8080", "", "HEAD", "127.0.0.1:8080", "http://evil.example", "", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := localhttp.New(echo, addr(tt.bound), tt.given)
			r := httptest.NewRequest(tt.method, "/", strings.NewReader("{}"))
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			if tt.ctype != "" {
				r.Header.Set("Content-Type", tt.ctype)
			}
			w := httptest.NewRecorder()
			g.ServeHTTP(w, r)
			assert.Equal(t, tt.status, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), tt.want)
			if tt.status == http.StatusForbidden {
				assert.Equal(t, "text/plain; charset=utf-8", w.Header().Get("Content-Type"))
			}
		})
	}
}

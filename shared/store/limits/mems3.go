package limits

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Services routes DynamoDB's JSON requests (those with X-Amz-Target) to
// dynamoDB and every other request to s3, so one double fronts both.
func Services(dynamoDB, s3 http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") != "" {
			dynamoDB.ServeHTTP(w, r)
			return
		}
		s3.ServeHTTP(w, r)
	})
}

// MemoryS3 is an in-process S3 of path-style requests, enough for the
// store's payloads under simulated time, where moto's socket cannot be
// used: PUT stores an object (and creates a bucket), GET reads one, whole
// or by a single `bytes=a-b` range, HEAD answers its size. Anything else is
// 501.
type MemoryS3 struct {
	mu      sync.Mutex
	objects map[string][]byte
}

// NewMemoryS3 returns an empty MemoryS3.
func NewMemoryS3() *MemoryS3 { return &MemoryS3{objects: map[string][]byte{}} }

func (m *MemoryS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimPrefix(r.URL.Path, "/")
	switch r.Method {
	case http.MethodPut:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		m.objects[key] = body
		m.mu.Unlock()
		w.Header().Set("ETag", `"`+strconv.Itoa(len(body))+`"`)
	case http.MethodGet, http.MethodHead:
		m.mu.Lock()
		body, ok := m.objects[key]
		m.mu.Unlock()
		if !ok {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`)
			return
		}
		status := http.StatusOK
		if from, to, ok := byteRange(r.Header.Get("Range"), len(body)); ok {
			w.Header().Set("Content-Range", "bytes "+strconv.Itoa(from)+"-"+strconv.Itoa(to)+"/"+strconv.Itoa(len(body)))
			body, status = body[from:to+1], http.StatusPartialContent
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	default:
		w.WriteHeader(http.StatusNotImplemented)
	}
}

// byteRange reads a `bytes=a-b` header within an object of size bytes.
func byteRange(h string, size int) (from, to int, ok bool) {
	a, b, found := strings.Cut(strings.TrimPrefix(h, "bytes="), "-")
	if !found || !strings.HasPrefix(h, "bytes=") {
		return 0, 0, false
	}
	from, err1 := strconv.Atoi(a)
	to, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || from < 0 || from > to || to >= size {
		return 0, 0, false
	}
	return from, to, true
}

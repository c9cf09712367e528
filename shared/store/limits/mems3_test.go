package limits_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store/limits"
)

// TestMemoryS3: what the store's payloads need of S3, in process, and the
// routing that puts it and minidyn behind one double.
func TestMemoryS3(t *testing.T) {
	s3 := limits.NewMemoryS3()
	dynamo := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := limits.Services(dynamo, s3)
	do := func(method, path, rng, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "http://s3.limits.test"+path, strings.NewReader(body))
		if rng != "" {
			r.Header.Set("Range", rng)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	require.Equal(t, http.StatusOK, do(http.MethodPut, "/b/runs/q/r/texts", "", "0123456789").Code)
	cases := []struct {
		name, method, path, rng string
		wantStatus              int
		wantBody                string
	}{
		{"whole", http.MethodGet, "/b/runs/q/r/texts", "", http.StatusOK, "0123456789"},
		{"a range", http.MethodGet, "/b/runs/q/r/texts", "bytes=2-4", http.StatusPartialContent, "234"},
		{"a range past the end is the whole", http.MethodGet, "/b/runs/q/r/texts", "bytes=2-40", http.StatusOK, "0123456789"},
		{"head", http.MethodHead, "/b/runs/q/r/texts", "", http.StatusOK, ""},
		{"missing", http.MethodGet, "/b/runs/q/r/other", "", http.StatusNotFound, "<Code>NoSuchKey</Code>"},
		{"not served", http.MethodPost, "/b/runs/q/r/texts", "", http.StatusNotImplemented, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(tc.method, tc.path, tc.rng, "")
			assert.Equal(t, tc.wantStatus, rec.Code)
			body, _ := io.ReadAll(rec.Body)
			assert.Contains(t, string(body), tc.wantBody)
		})
	}
	r := httptest.NewRequest(http.MethodPost, "http://dynamodb.limits.test/", nil)
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	assert.Equal(t, http.StatusTeapot, rec.Code, "DynamoDB's requests go to DynamoDB")
}

// TestS3Bandwidth: an S3 request takes its latency plus the time its bytes
// (sent or received) take at S3Bandwidth; 0 is no limit.
func TestS3Bandwidth(t *testing.T) {
	cases := []struct {
		name      string
		bandwidth float64
		method    string
		rng       string
		want      time.Duration
	}{
		{name: "a put of 9 MB", bandwidth: 90e6, method: http.MethodPut, want: 10*time.Millisecond + 100*time.Millisecond},
		{name: "a whole get", bandwidth: 90e6, method: http.MethodGet, want: 10*time.Millisecond + 100*time.Millisecond},
		{name: "a ranged get of 900 KB", bandwidth: 90e6, method: http.MethodGet, rng: "bytes=0-899999", want: 10*time.Millisecond + 10*time.Millisecond},
		{name: "no limit", method: http.MethodPut, want: 10 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lim := limits.AWS
				lim.S3Bandwidth = tc.bandwidth
				s3 := limits.NewMemoryS3()
				d := limits.New(s3, lim)
				body := strings.Repeat("x", 9_000_000)
				put, err := http.NewRequest(http.MethodPut, "http://s3.limits.test/b/runs/q/r/texts", strings.NewReader(body))
				require.NoError(t, err)
				r := put
				if tc.method == http.MethodGet {
					s3.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPut, "/b/runs/q/r/texts", strings.NewReader(body)))
					r, err = http.NewRequest(http.MethodGet, "http://s3.limits.test/b/runs/q/r/texts", nil)
					require.NoError(t, err)
					if tc.rng != "" {
						r.Header.Set("Range", tc.rng)
					}
				}
				start := time.Now()
				resp, err := d.Do(r)
				require.NoError(t, err)
				assert.Less(t, resp.StatusCode, 300)
				assert.Equal(t, tc.want, time.Since(start))
			})
		})
	}
}

package limits_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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

package limits

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// s3 serves one S3 REST request, refused with 503 SlowDown when its
// prefix is over its rate, in the time its bytes take at S3Bandwidth. A prefix is the bucket and the key up to its
// last slash: S3 scales per prefix, and a run's objects share one.
func (d *Double) s3(r *http.Request, body []byte) *httptest.ResponseRecorder {
	kind, rate := "s3-get", d.limits.S3Gets
	switch r.Method {
	case http.MethodPut, http.MethodPost, http.MethodDelete:
		kind, rate = "s3-put", d.limits.S3Puts
	}
	d.mu.Lock()
	ok := d.take(bucketKey(kind, "", s3Prefix(r)), rate, 1)
	if !ok {
		d.stats.Throttled++
	}
	d.mu.Unlock()
	if !ok {
		return slowDown()
	}
	rec := d.serve(r, body)
	if bw := d.limits.S3Bandwidth; bw > 0 {
		time.Sleep(time.Duration(float64(len(body)+rec.Body.Len()) / bw * float64(time.Second)))
	}
	return rec
}

// s3Prefix is the bucket and key prefix of a path-style or virtual-hosted
// request.
func s3Prefix(r *http.Request) string {
	path := strings.TrimPrefix(r.URL.Path, "/")
	if bucket, _, virtual := strings.Cut(r.Host, ".s3."); virtual {
		path = bucket + "/" + path
	}
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return path
}

// slowDown is S3's refusal of a request over its prefix's rate.
func slowDown() *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/xml")
	rec.Header().Set("X-Amz-Request-Id", "limits-double")
	rec.WriteHeader(http.StatusServiceUnavailable)
	_, _ = rec.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>limits-double</RequestId><HostId>limits-double</HostId></Error>`)
	return rec
}

package workflow_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// A tape is what a prepare's SDK clients sent and got back, recorded once
// against the emulators and then played back to a prepare of the same
// request, with no emulator working beside it: the one way, on a machine
// whose cores the emulators would share, to time what prepare's own
// process computes when it has more than one core (docs/scale.md#two-vcpus).
//
// A read is played back by what it asks (its operation and its body,
// canonical JSON, since the SDK writes a map's keys in any order): the
// same head, the same pages, the same chunks. A write's body names the
// run, which differs from one prepare to the next, so a write gets the
// answer its operation got, in the order the recording got them (a
// write's answer, DynamoDB's or S3's, does not depend on its items).
type tape struct {
	mu     sync.Mutex
	reads  map[string][]taped
	writes map[string][]taped
}

type taped struct {
	status int
	header http.Header
	body   []byte
}

// readOps are the operations whose answer depends on what they ask.
var readOps = map[string]bool{"Query": true, "GetItem": true, "BatchGetItem": true, "Scan": true}

func newTape() *tape { return &tape{reads: map[string][]taped{}, writes: map[string][]taped{}} }

// copy is a tape to play from the start, leaving this one whole.
func (tp *tape) copy() *tape {
	out := newTape()
	for k, v := range tp.reads {
		out.reads[k] = v
	}
	for k, v := range tp.writes {
		out.writes[k] = v
	}
	return out
}

// tapeKey is how a request is found on the tape: a read by what it asks,
// a write by its operation only. It consumes the request's body, as
// sending it would; a read's body is put back.
func tapeKey(r *http.Request) (key string, read bool, err error) {
	target := r.Header.Get("X-Amz-Target")
	op := target[strings.LastIndex(target, ".")+1:]
	switch {
	case target == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		return "s3 " + r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery + " " + r.Header.Get("Range"), true, nil
	case target == "": // an S3 write: its object's key names its run
		return "s3 " + r.Method, false, drain(r)
	case !readOps[op]:
		return op, false, drain(r)
	}
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		return "", false, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", false, fmt.Errorf("%s body: %w", op, err)
	}
	canonical, err := json.Marshal(v) // object keys sorted
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256(canonical)
	return fmt.Sprintf("%s %x", op, sum), true, nil
}

// drain reads a write's body through, as sending it would, without
// keeping it (a plan's texts object is hundreds of MB).
func drain(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	_, err := io.Copy(io.Discard, r.Body)
	_ = r.Body.Close()
	return err
}

// recorder sends every request on and tapes its answer.
type recorder struct {
	tape *tape
	next *http.Client
}

func (rec recorder) Do(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		_ = r.Body.Close()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	probe := r.Clone(r.Context())
	probe.Body = io.NopCloser(bytes.NewReader(body))
	key, read, err := tapeKey(probe)
	if err != nil {
		return nil, err
	}
	resp, err := rec.next.Do(r)
	if err != nil {
		return nil, err
	}
	got, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(got))
	rec.tape.mu.Lock()
	defer rec.tape.mu.Unlock()
	on := rec.tape.writes
	if read {
		on = rec.tape.reads
	}
	on[key] = append(on[key], taped{status: resp.StatusCode, header: resp.Header.Clone(), body: got})
	return resp, nil
}

// player answers every request from the tape, sending nothing; a request
// the recording never made fails the prepare, so a playback that strays
// from the recorded one cannot pass for it.
type player struct{ tape *tape }

func (p player) Do(r *http.Request) (*http.Response, error) {
	key, read, err := tapeKey(r)
	if err != nil {
		return nil, err
	}
	p.tape.mu.Lock()
	on := p.tape.writes
	if read {
		on = p.tape.reads
	}
	queue := on[key]
	if len(queue) == 0 {
		p.tape.mu.Unlock()
		return nil, fmt.Errorf("the tape has no answer left for %s %s (%s)", r.Method, r.URL.Path, key)
	}
	a := queue[0]
	on[key] = queue[1:]
	p.tape.mu.Unlock()
	return &http.Response{StatusCode: a.status, Status: http.StatusText(a.status), Header: a.header.Clone(),
		Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)), Request: r,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

// tapedStores are coldStores whose clients send their requests through
// via (a recorder or a player).
func tapedStores(t testing.TB, endpoint string, tables store.Tables, via aws.HTTPClient) (*store.Index, *store.Runs, *store.Payloads) {
	t.Helper()
	db := dynamodb.New(testenv.DynamoDBClient(t, endpoint).Options(), func(o *dynamodb.Options) { o.HTTPClient = via })
	c := store.NewClient(db)
	idx, err := store.NewIndex(c, tables.Index)
	require.NoError(t, err)
	runs, err := store.NewRuns(c, tables.Runs)
	require.NoError(t, err)
	s3c := s3.New(testenv.S3Client(t, endpoint).Options(), func(o *s3.Options) { o.HTTPClient = via })
	bucket, err := store.NewPayloads(s3c, "payloads")
	require.NoError(t, err)
	return idx, runs.WithPayloads(bucket), bucket
}

// playedBack records h's prepare of the measured request, then times it
// played back from the recording on cores cores and on one, alternately,
// twice each: the wall time of each, with the process doing nothing else
// (the emulators are idle). A cold heap and fresh clients for each, as
// deployedCPU's runs have.
func playedBack(t testing.TB, endpoint string, tables store.Tables, h *workflow.Handlers, cores int) (one, many []time.Duration) {
	t.Helper()
	rec := newTape()
	idx, runs, bucket := tapedStores(t, endpoint, tables, recorder{tape: rec, next: &http.Client{}})
	const id = "deployed-cpu-taped"
	prepare := *h
	engine := *h.Engine
	engine.Index, engine.Runs, prepare.Items = idx, runs, bucket
	prepare.Engine = &engine
	_, err := prepare.Prepare(t.Context(), workflow.PrepareInput{Request: measuredRequest(id), ExecutionName: id})
	require.NoError(t, err)

	was := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(was)
	for range 2 {
		for _, n := range []int{cores, 1} {
			idx, runs, bucket := tapedStores(t, endpoint, tables, player{tape: rec.copy()})
			engine.Index, engine.Runs, prepare.Items = idx, runs, bucket
			runtime.GOMAXPROCS(n)
			runtime.GC()
			debug.FreeOSMemory()
			start := time.Now()
			_, err := prepare.Prepare(t.Context(), workflow.PrepareInput{Request: measuredRequest(id), ExecutionName: id})
			took := time.Since(start)
			runtime.GOMAXPROCS(was)
			require.NoError(t, err, "a prepare played back on %d cores", n)
			if n == 1 {
				one = append(one, took)
			} else {
				many = append(many, took)
			}
		}
	}
	return one, many
}

// The tape answers a read by what it asks, whatever order the SDK wrote
// its keys in, a write by its operation in the recorded order, and
// refuses what the recording never asked.
func TestTapePlaysBackWhatItRecorded(t *testing.T) {
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		body, _ := io.ReadAll(r.Body)
		_, _ = fmt.Fprintf(w, `{"n":%d,"asked":%q}`, n, body)
	}))
	defer srv.Close()
	request := func(target, body string) *http.Request {
		r, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		require.NoError(t, err)
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+target)
		return r
	}
	answer := func(c aws.HTTPClient, r *http.Request) (string, error) {
		resp, err := c.Do(r)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	rec := newTape()
	recorded := map[string]string{}
	for _, step := range []struct{ target, body string }{
		{"Query", `{"TableName":"t","ExpressionAttributeValues":{":0":{"S":"a"},":1":{"S":"b"}}}`},
		{"PutItem", `{"run":"r1"}`},
		{"Query", `{"TableName":"t","ExpressionAttributeValues":{":0":{"S":"z"}}}`},
		{"PutItem", `{"run":"r1","second":true}`},
	} {
		got, err := answer(recorder{tape: rec, next: srv.Client()}, request(step.target, step.body))
		require.NoError(t, err)
		recorded[step.target+step.body] = got
	}
	require.EqualValues(t, 4, served.Load())

	play := player{tape: rec.copy()}
	tests := []struct {
		name, target, body, want, wantErr string
	}{
		{name: "a read, its keys in another order", target: "Query",
			body: `{"ExpressionAttributeValues":{":1":{"S":"b"},":0":{"S":"a"}},"TableName":"t"}`,
			want: recorded[`Query{"TableName":"t","ExpressionAttributeValues":{":0":{"S":"a"},":1":{"S":"b"}}}`]},
		{name: "a write of another run gets the first write's answer", target: "PutItem", body: `{"run":"r2"}`, want: recorded[`PutItem{"run":"r1"}`]},
		{name: "the next write the next answer", target: "PutItem", body: `{"run":"r2"}`, want: recorded[`PutItem{"run":"r1","second":true}`]},
		{name: "no third write", target: "PutItem", body: `{}`, wantErr: "the tape has no answer left for POST"},
		{name: "a read never recorded", target: "Query", body: `{"TableName":"other"}`, wantErr: "the tape has no answer left for POST"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := answer(play, request(tc.target, tc.body))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	assert.EqualValues(t, 4, served.Load(), "playing back sends nothing")
	again, err := answer(player{tape: rec.copy()}, request("Query", `{"TableName":"t","ExpressionAttributeValues":{":0":{"S":"z"}}}`))
	require.NoError(t, err)
	assert.Equal(t, recorded[`Query{"TableName":"t","ExpressionAttributeValues":{":0":{"S":"z"}}}`], again, "each copy plays from the start")
}

// A prepare plays back from its recording on one core and on two, each
// playback whole (it fails on any request the recording lacks).
func TestPreparePlaysBack(t *testing.T) {
	d := deployedCPU(t, generatedFile(t, 200), 2)
	assert.Equal(t, 2, d.Cores)
	require.Len(t, d.PlayedOne, 2)
	require.Len(t, d.PlayedMany, 2)
	for _, w := range append(slices.Clone(d.PlayedOne), d.PlayedMany...) {
		assert.Positive(t, w)
	}
	assert.Positive(t, d.speedup())
}

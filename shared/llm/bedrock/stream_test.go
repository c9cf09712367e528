package bedrock_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

func TestStreamingConformance(t *testing.T) {
	modeltest.RunStreaming(t, func(t *testing.T) globalsearch.StreamingModel {
		fake := modeltest.NewConverseServer(t, modeltest.InOrder(modeltest.StreamText(120, 12,
			`{"answer":"Sorrel Bank is `, `a wind farm [Data: `, `Communities (c-wind)].","usefulness":80}`)))
		m, err := bedrock.New(testConfig(fake.URL), haiku, bedrock.WithMaxBackoff(time.Millisecond))
		require.NoError(t, err)
		return m
	})
}

func streamed(r modeltest.ConverseReply, stop string) modeltest.ConverseReply {
	r.Stop = stop
	return r
}

// CompleteStream calls ConverseStream with Complete's request and reads
// its event stream: each delta reaches onText in order, usage and stop
// reason come from the last events, and a failure before or during the
// stream is classified as Complete's is.
func TestCompleteStream(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	cases := []struct {
		name       string
		replies    []modeltest.ConverseReply
		maxTokens  int
		wantPieces []string
		wantStop   string
		wantIn     int
		wantKind   globalsearch.Kind // KindInternal: no error
		wantInErr  string
		wantCalls  int
		wantSchema []bool // per call: asked for the output schema
	}{
		{name: "pieces in order", replies: []modeltest.ConverseReply{modeltest.StreamText(30, 9, `{"answer":`, `"Sorrel `, `Bank"}`)},
			wantPieces: []string{`{"answer":`, `"Sorrel `, `Bank"}`}, wantStop: "end_turn", wantIn: 30, wantCalls: 1, wantSchema: []bool{true}},
		{name: "throttled before the stream", replies: []modeltest.ConverseReply{fail(http.StatusTooManyRequests, "ThrottlingException")},
			wantKind: globalsearch.KindThrottled, wantInErr: "ThrottlingException", wantCalls: 1, wantSchema: []bool{true}},
		{name: "throttled during the stream", replies: []modeltest.ConverseReply{func() modeltest.ConverseReply {
			r := modeltest.StreamText(1, 1, `{"answer":"half`)
			r.StreamError = "throttlingException"
			return r
		}()}, wantPieces: []string{`{"answer":"half`}, wantKind: globalsearch.KindThrottled, wantInErr: "throttlingException", wantCalls: 1, wantSchema: []bool{true}},
		{name: "a model stream error", replies: []modeltest.ConverseReply{func() modeltest.ConverseReply {
			r := modeltest.StreamText(1, 1, `{"answer":"half`)
			r.StreamError = "modelStreamErrorException"
			return r
		}()}, wantPieces: []string{`{"answer":"half`}, wantKind: globalsearch.KindModel, wantInErr: "modelStreamErrorException", wantCalls: 1, wantSchema: []bool{true}},
		{name: "a stream cut short", replies: []modeltest.ConverseReply{func() modeltest.ConverseReply {
			r := modeltest.StreamText(1, 1, `{"answer":"half`)
			r.CutShort = true
			return r
		}()}, wantPieces: []string{`{"answer":"half`}, wantKind: globalsearch.KindModel, wantInErr: "no messageStop", wantCalls: 1, wantSchema: []bool{true}},
		{name: "stopped at maxTokens", replies: []modeltest.ConverseReply{streamed(modeltest.StreamText(5, 64, `{"answer":"cut`), "max_tokens")},
			wantPieces: []string{`{"answer":"cut`}, wantStop: "max_tokens", wantIn: 5, wantKind: globalsearch.KindModelOutput, wantInErr: "reduceOutputReserve", wantCalls: 1, wantSchema: []bool{true}},
		{name: "a reply past its cap", maxTokens: 1, replies: []modeltest.ConverseReply{modeltest.StreamText(5, 1, `{"answer":"`, strings.Repeat("x", int(globalsearch.MaxReplyBytes(1))))},
			wantPieces: []string{`{"answer":"`}, wantKind: globalsearch.KindModelOutput, wantInErr: "is refused", wantCalls: 1, wantSchema: []bool{true}},
		{name: "a refused schema is resent without it", replies: []modeltest.ConverseReply{fail(http.StatusBadRequest, "ValidationException"), modeltest.StreamText(3, 2, `{"answer":"ok"}`)},
			wantPieces: []string{`{"answer":"ok"}`}, wantStop: "end_turn", wantIn: 3, wantCalls: 2, wantSchema: []bool{true, false}},
		{name: "no content", replies: []modeltest.ConverseReply{modeltest.StreamText(3, 0)},
			wantStop: "end_turn", wantIn: 3, wantKind: globalsearch.KindModel, wantInErr: "returned no message", wantCalls: 1, wantSchema: []bool{true}},
	}
	for _, tc := range cases {
		if tc.maxTokens == 0 {
			tc.maxTokens = 64
		}
		t.Run(tc.name, func(t *testing.T) {
			fake := modeltest.NewConverseServer(t, modeltest.InOrder(tc.replies...))
			m, err := bedrock.New(testConfig(fake.URL), haiku, bedrock.WithMaxAttempts(1), bedrock.WithStructuredOutput(bedrock.StructuredOn))
			require.NoError(t, err)
			var pieces []string
			resp, err := m.CompleteStream(context.Background(), globalsearch.ModelRequest{
				Stage: globalsearch.StageReduce, Prompt: "Question: q", MaxTokens: tc.maxTokens,
			}, func(s string) { pieces = append(pieces, s) })

			assert.Equal(t, tc.wantPieces, pieces)
			if tc.wantKind == globalsearch.KindInternal {
				require.NoError(t, err)
				assert.Equal(t, strings.Join(tc.wantPieces, ""), resp.Text)
			} else {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err), "kind of %v", err)
				assert.Contains(t, err.Error(), tc.wantInErr)
			}
			assert.Equal(t, tc.wantStop, resp.StopReason)
			assert.Equal(t, tc.wantIn, resp.InputTokens)
			calls := fake.Calls()
			require.Len(t, calls, tc.wantCalls)
			for i, c := range calls {
				assert.True(t, c.Stream, "a ConverseStream call")
				assert.Equal(t, "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream", c.RawPath)
				_, asked := c.OutputSchema()
				assert.Equal(t, tc.wantSchema[i], asked, "call %d asked for the schema", i+1)
				assertBody(t, withoutOutputConfig(c.Body), "Question: q", tc.maxTokens)
			}
		})
	}
}

func withoutOutputConfig(body map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		if k != "outputConfig" {
			out[k] = v
		}
	}
	return out
}

// Each piece reaches onText before the server sends the next: the reply
// is read as it comes, not once it is whole.
func TestCompleteStreamReadsAsItArrives(t *testing.T) {
	var (
		mu       sync.Mutex
		received []string
		order    []string
	)
	arrived := make(chan struct{}, 8)
	reply := modeltest.StreamText(1, 1, "one ", "two ", "three")
	reply.Between = func() {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second): // only a bound on a hung test
		}
		mu.Lock()
		order = append(order, "server sent the next")
		mu.Unlock()
	}
	fake := modeltest.NewConverseServer(t, modeltest.InOrder(reply))
	m, err := bedrock.New(testConfig(fake.URL), haiku)
	require.NoError(t, err)
	_, err = m.CompleteStream(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Prompt: "q"}, func(s string) {
		mu.Lock()
		received = append(received, s)
		order = append(order, "client read "+s)
		mu.Unlock()
		arrived <- struct{}{}
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"one ", "two ", "three"}, received)
	assert.Equal(t, []string{"client read one ", "server sent the next", "client read two ", "server sent the next",
		"client read three", "server sent the next"}, order)
}

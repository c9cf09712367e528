package bedrock_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/store/testenv"
)

func ok(text, stop string, in, out int) modeltest.ConverseReply {
	r := modeltest.ConverseText(text, in, out)
	r.Stop = stop
	return r
}

func fail(status int, errorType string) modeltest.ConverseReply {
	return modeltest.ConverseError(status, errorType)
}

// testConfig is an aws.Config that signs with static credentials and sends
// every call to endpoint, so no test can reach AWS.
func testConfig(endpoint string) aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  testenv.StaticCredentials(),
		BaseEndpoint: aws.String(endpoint),
	}
}

const (
	haiku      = "anthropic.claude-3-5-haiku-20241022-v1:0"
	profileARN = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0"
)

// wantPath is the request path the SDK sends for a model id.
var wantPath = map[string]string{
	haiku:      "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse",
	profileARN: "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse",
}

func TestComplete(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "") // sign with SigV4 whatever the shell has

	cases := []struct {
		name      string
		modelID   string
		stage     globalsearch.Stage
		replies   []modeltest.ConverseReply
		timeout   time.Duration
		wantCalls int
		wantText  string
		wantIn    int
		wantOut   int
		wantStop  string
		wantKind  globalsearch.Kind // KindInternal: no error
		wantInErr []string
		wantCtx   bool
	}{
		{
			name: "success with usage", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{ok(`{"answer":"a","usefulness":50}`, "end_turn", 120, 15)},
			wantCalls: 1, wantText: `{"answer":"a","usefulness":50}`, wantIn: 120, wantOut: 15, wantStop: "end_turn",
		},
		{
			name: "inference profile ARN", modelID: profileARN,
			stage: globalsearch.StageReduce, replies: []modeltest.ConverseReply{ok(`{"answer":"r"}`, "end_turn", 10, 2)},
			wantCalls: 1, wantText: `{"answer":"r"}`, wantIn: 10, wantOut: 2, wantStop: "end_turn",
		},
		{
			name: "throttling then success", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{fail(429, "ThrottlingException"), fail(429, "ThrottlingException"), ok("{}", "end_turn", 5, 1)},
			wantCalls: 3, wantText: "{}", wantIn: 5, wantOut: 1, wantStop: "end_turn",
		},
		{
			name: "model not ready then success", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{fail(429, "ModelNotReadyException"), ok("{}", "end_turn", 5, 1)},
			wantCalls: 2, wantText: "{}", wantIn: 5, wantOut: 1, wantStop: "end_turn",
		},
		{
			name: "service unavailable then success", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{fail(503, "ServiceUnavailableException"), ok("{}", "end_turn", 5, 1)},
			wantCalls: 2, wantText: "{}", wantIn: 5, wantOut: 1, wantStop: "end_turn",
		},
		{
			name: "throttling forever", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{fail(429, "ThrottlingException")},
			wantCalls: bedrock.DefaultMaxAttempts, wantKind: globalsearch.KindThrottled,
			wantInErr: []string{haiku, "ThrottlingException", "4 attempt(s)"},
		},
		{
			name: "model not ready forever", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{fail(429, "ModelNotReadyException")},
			wantCalls: bedrock.DefaultMaxAttempts, wantKind: globalsearch.KindThrottled,
			wantInErr: []string{"ModelNotReadyException"},
		},
		{
			name: "service quota exceeded is throttled but not retried", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{fail(400, "ServiceQuotaExceededException")},
			wantCalls: 1, wantKind: globalsearch.KindThrottled,
			wantInErr: []string{"ServiceQuotaExceededException"},
		},
		{
			name: "validation error is not retried", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{fail(400, "ValidationException")},
			wantCalls: 1, wantKind: globalsearch.KindModel,
			wantInErr: []string{haiku, "ValidationException"},
		},
		{
			name: "access denied", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{fail(403, "AccessDeniedException")},
			wantCalls: 1, wantKind: globalsearch.KindModel,
			wantInErr: []string{haiku, "AccessDeniedException"},
		},
		{
			name: "truncated map output", modelID: haiku, stage: globalsearch.StageMap,
			replies:   []modeltest.ConverseReply{ok(`{"answer":"cut`, "max_tokens", 100, 64)},
			wantCalls: 1, wantText: `{"answer":"cut`, wantIn: 100, wantOut: 64, wantStop: "max_tokens",
			wantKind: globalsearch.KindModelOutput, wantInErr: []string{"mapOutputReserve", "too small"},
		},
		{
			name: "truncated reduce output", modelID: haiku, stage: globalsearch.StageReduce,
			replies:   []modeltest.ConverseReply{ok(`{"answer":"cut`, "max_tokens", 100, 64)},
			wantCalls: 1, wantText: `{"answer":"cut`, wantIn: 100, wantOut: 64, wantStop: "max_tokens",
			wantKind: globalsearch.KindModelOutput, wantInErr: []string{"reduceOutputReserve"},
		},
		{
			name: "context deadline", modelID: haiku, stage: globalsearch.StageMap,
			replies: []modeltest.ConverseReply{{Hang: true}}, timeout: 100 * time.Millisecond,
			wantCalls: 1, wantKind: globalsearch.KindModel, wantCtx: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := modeltest.NewConverseServer(t, modeltest.InOrder(tc.replies...))
			m, err := bedrock.New(testConfig(fake.URL), tc.modelID, bedrock.WithMaxBackoff(time.Millisecond))
			require.NoError(t, err)

			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			resp, err := m.Complete(ctx, globalsearch.ModelRequest{
				Stage: tc.stage, Query: "q", Content: "c", Prompt: "Question: q\n\nData: c", MaxTokens: 64,
			})

			assert.Equal(t, tc.wantCalls, fake.Count(), "calls the server received")
			if tc.wantKind == globalsearch.KindInternal {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, globalsearch.KindOf(err), "kind of %v", err)
				for _, s := range tc.wantInErr {
					assert.Contains(t, err.Error(), s)
				}
				assert.Equal(t, tc.wantCtx, errors.Is(err, context.DeadlineExceeded), "errors.Is DeadlineExceeded: %v", err)
			}
			assert.Equal(t, tc.wantText, resp.Text)
			assert.Equal(t, tc.wantIn, resp.InputTokens)
			assert.Equal(t, tc.wantOut, resp.OutputTokens)
			assert.Equal(t, tc.wantStop, resp.StopReason)

			// Every attempt carries the same request.
			for _, c := range fake.Calls() {
				assert.Equal(t, tc.modelID, c.ModelID)
				assert.Equal(t, wantPath[tc.modelID], c.RawPath, "the SDK escapes ':' and '/' in the model id label")
				auth := c.Header.Get("Authorization")
				assert.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 "), "SigV4-signed: %q", auth)
				assertBody(t, c.Body, "Question: q\n\nData: c", 64)
			}
		})
	}
}

// assertBody checks the Converse request: the prompt as the only user
// message, the fixed system instruction, maxTokens, temperature 0.
func assertBody(t *testing.T, body map[string]any, prompt string, maxTokens int) {
	t.Helper()
	want := map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"text": prompt}}}},
		"system":   []any{map[string]any{"text": globalsearch.SystemPrompt}},
		"inferenceConfig": map[string]any{
			"maxTokens":   float64(maxTokens),
			"temperature": float64(0),
		},
	}
	assert.Equal(t, want, body)
}

// TestThrottlingBoundedByMaxAttempts: a refused call is retried up to the
// attempts the Model was given and no further, and answers if the quota
// admits it by the last (the backoffs cut to a millisecond).
func TestThrottlingBoundedByMaxAttempts(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	tests := []struct {
		name      string
		opts      []bedrock.Option
		refusals  int // before the call is admitted
		wantCalls int
		refused   bool // the call fails as throttled
	}{
		{"two attempts, always refused", []bedrock.Option{bedrock.WithMaxAttempts(2)}, 100, 2, true},
		{"the default, always refused", nil, 100, bedrock.DefaultMaxAttempts, true},
		{"the default, admitted at the fourth", nil, 3, 4, false},
		{"the quota wait, always refused", []bedrock.Option{bedrock.WithQuotaWait()}, 100, bedrock.QuotaWaitMaxAttempts, true},
		{"the quota wait, admitted at the twelfth", []bedrock.Option{bedrock.WithQuotaWait()}, 11, 12, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			replies := make([]modeltest.ConverseReply, 0, tc.refusals+1)
			for range tc.refusals {
				replies = append(replies, fail(429, "ThrottlingException"))
			}
			fake := modeltest.NewConverseServer(t, modeltest.InOrder(append(replies, ok(`{"answer":"a","usefulness":5}`, "end_turn", 3, 4))...))
			m, err := bedrock.New(testConfig(fake.URL), haiku, append(tc.opts, bedrock.WithMaxBackoff(time.Millisecond))...)
			require.NoError(t, err)

			_, err = m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 8})

			assert.Equal(t, tc.wantCalls, fake.Count())
			if tc.refused {
				assert.Equal(t, globalsearch.KindThrottled, globalsearch.KindOf(err), "%v", err)
				assert.Equal(t, tc.wantCalls, m.MaxAttempts(), "MaxAttempts says what the retryer does")
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

// TestQuotaWaitHasNoRetryQuota: a deployed function's model keeps making
// every attempt of call after refused call, where the SDK's retry quota
// (500 tokens, 5 a throttled retry) would stop retrying after 100 retries
// and fail the next calls at their first refusal.
func TestQuotaWaitHasNoRetryQuota(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	tests := []struct {
		name      string
		opts      []bedrock.Option
		wantCalls int // of the 10 calls' HTTP attempts
	}{
		// 100 retries in the quota: 9 calls get their 11, the 10th 1 of them.
		{"the default retry quota, 12 attempts", []bedrock.Option{bedrock.WithMaxAttempts(bedrock.QuotaWaitMaxAttempts)}, 10 + 100},
		{"the quota wait", []bedrock.Option{bedrock.WithQuotaWait()}, 10 * bedrock.QuotaWaitMaxAttempts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := modeltest.NewConverseServer(t, modeltest.InOrder(fail(429, "ThrottlingException")))
			m, err := bedrock.New(testConfig(fake.URL), haiku, append(tc.opts, bedrock.WithMaxBackoff(time.Microsecond))...)
			require.NoError(t, err)
			for range 10 {
				_, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 8})
				require.Equal(t, globalsearch.KindThrottled, globalsearch.KindOf(err), "%v", err)
			}
			assert.Equal(t, tc.wantCalls, fake.Count())
		})
	}
}

// TestEndpointFromEnvironment goes through config.LoadDefaultConfig the way
// the CLI does, with the endpoint taken from the standard service-specific
// variable.
func TestEndpointFromEnvironment(t *testing.T) {
	// The first call answers; the two after it are the ModelNotReady
	// retry below.
	fake := modeltest.NewConverseServer(t, modeltest.InOrder(
		ok(`{"answer":"env"}`, "end_turn", 3, 4), fail(429, "ModelNotReadyException"), ok("{}", "end_turn", 1, 1)))

	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_MAX_ATTEMPTS", "1") // New's own bound must win
	t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.URL)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config"), nil, 0o600))

	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithRegion("eu-west-1"), config.WithCredentialsProvider(testenv.StaticCredentials()))
	require.NoError(t, err)
	m, err := bedrock.New(cfg, "eu.anthropic.claude-3-5-haiku-20241022-v1:0", bedrock.WithMaxBackoff(time.Millisecond))
	require.NoError(t, err)

	resp, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Prompt: "p", MaxTokens: 1024})
	require.NoError(t, err)
	assert.Equal(t, globalsearch.ModelResponse{Text: `{"answer":"env"}`, InputTokens: 3, OutputTokens: 4, StopReason: "end_turn"}, resp)
	calls := fake.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "/model/eu.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse", calls[0].RawPath)
	assert.Contains(t, calls[0].Header.Get("Authorization"), "/eu-west-1/bedrock/aws4_request", "signed for the configured region")

	// AWS_MAX_ATTEMPTS=1 above must not switch off ModelNotReady retries.
	_, err = m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageMap, Prompt: "p", MaxTokens: 8})
	require.NoError(t, err)
	assert.Equal(t, 2, fake.Count()-len(calls), "calls of the second request")
}

func TestInvalid(t *testing.T) {
	_, err := bedrock.New(testConfig("http://127.0.0.1:1"), "  ")
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))

	m, err := bedrock.New(testConfig("http://127.0.0.1:1"), haiku)
	require.NoError(t, err)
	_, err = m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Prompt: "p", MaxTokens: -1})
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.Contains(t, err.Error(), "reduceOutputReserve")
}

// TestZeroReserveSendsNoLimit: an output reserve of 0 is a call with no
// maxTokens, so the model's default applies (docs/contract.md#budgets), never a refusal.
func TestZeroReserveSendsNoLimit(t *testing.T) {
	tests := []struct {
		name      string
		maxTokens int
		reply     modeltest.ConverseReply
		wantLimit any // the maxTokens sent, nil for none
		wantErr   string
	}{
		{"zero sends none", 0, ok(`{"answer":"a"}`, "end_turn", 5, 2), nil, ""},
		{"positive is sent", 64, ok(`{"answer":"a"}`, "end_turn", 5, 2), float64(64), ""},
		{"cut off by the model's own limit", 0, ok(`{"answer":"a`, "max_tokens", 5, 4096), nil, "stopped at its own output limit (no maxTokens was sent, reduceOutputReserve is 0)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := modeltest.NewConverseServer(t, modeltest.InOrder(tc.reply))
			m, err := bedrock.New(testConfig(fake.URL), haiku)
			require.NoError(t, err)
			resp, err := m.Complete(context.Background(), globalsearch.ModelRequest{Stage: globalsearch.StageReduce, Prompt: "p", MaxTokens: tc.maxTokens})
			calls := fake.Calls()
			require.Len(t, calls, 1, "the call is made")
			inference, _ := calls[0].Body["inferenceConfig"].(map[string]any)
			require.NotNil(t, inference)
			limit, sent := inference["maxTokens"]
			assert.Equal(t, tc.wantLimit != nil, sent)
			assert.Equal(t, tc.wantLimit, limit)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Equal(t, globalsearch.KindModelOutput, globalsearch.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, `{"answer":"a"}`, resp.Text)
		})
	}
}

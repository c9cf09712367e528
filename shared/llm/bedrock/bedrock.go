// Package bedrock is the Model adapter for Amazon Bedrock: one Converse call
// per ModelRequest (docs/contract.md#aws "Model"; a second only when a model refuses the
// output schema, docs/contract.md#structured-output), with the SDK's standard retryer taught
// to also retry ModelNotReadyException. It never retries on its own beyond
// that: the search (or the state machine) owns the second attempt (docs/contract.md#map-calls).
package bedrock

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Defaults of the retryer New installs.
const (
	// DefaultMaxAttempts bounds the SDK's attempts per call (the first and
	// three retries): with throttling's 1s base backoff that is at most
	// 1+2+4 = 7s of sleeping, short enough to sit inside a map Lambda's
	// deadline; longer waits are the state machine's retry (docs/contract.md#aws).
	DefaultMaxAttempts = 4
	// DefaultMaxBackoff caps one backoff sleep.
	DefaultMaxBackoff = 8 * time.Second

	// QuotaWaitMaxAttempts is WithQuotaWait's attempts per call: 11
	// retries after rand[0,1) x min(2^i s, DefaultMaxBackoff), at most 71 s
	// of sleeping, which the map function's 180 s holds beside one answered
	// call. The same 71 s as 8 attempts of up to 20 s, but a refusal is
	// tried again sooner: in the simulated Map of 6 against an empty
	// 400k-token quota, 5 batches took 1.41x the quota's bound instead of
	// 1.89x (docs/limits.md#deployed-map).
	QuotaWaitMaxAttempts = 12
)

// retryableCodes are the error codes the SDK does not retry by default but
// which mean "try again shortly". ModelNotReadyException is Bedrock warming a
// model up; the Go SDK, unlike some others, leaves it unretried.
var retryableCodes = map[string]struct{}{
	"ModelNotReadyException": {},
}

// throttleCodes are the error codes that mean the account or model refused
// for load. Once the SDK gives up on them the call fails as KindThrottled, so
// the caller knows a later attempt may succeed. ServiceQuotaExceededException
// is classified here but not retried by the SDK: it usually means a quota
// window (tokens per minute or day) that a few seconds will not reopen.
var throttleCodes = map[string]struct{}{
	"ThrottlingException":           {},
	"ServiceQuotaExceededException": {},
	"ModelNotReadyException":        {},
	"ServiceUnavailableException":   {},
	"TooManyRequestsException":      {},
}

// Model calls one Bedrock model (a model id or an inference profile id or
// ARN) through Converse. It is safe for concurrent use.
//
// Structured output: a Model that asks for the stage's JSON schema and is
// refused with a ValidationException resends that call once without it. When
// the resend is not refused the same way, the schema was the cause: the
// Model remembers and asks no more. The resend is a fallback, not a retry.
type Model struct {
	client  *bedrockruntime.Client
	modelID string
	schema  atomic.Bool // calls ask for the stage's JSON schema
	// cache is the prompt cache the calls run with (EffectiveCache), and
	// cacheNote why it is not the one asked for.
	cache, cacheNote string
	tiers            map[globalsearch.Stage]string // serviceTier per stage; absent sends none
}

type options struct {
	maxAttempts int
	quotaWait   bool // no client-side retry quota (newRetryer)
	maxBackoff  time.Duration
	structured  StructuredOutput
	clientOpts  []func(*bedrockruntime.Options)
	cache       string
	tiers       map[globalsearch.Stage]string
}

// Option configures New.
type Option func(*options)

// WithMaxAttempts sets the SDK's attempts per call (default
// DefaultMaxAttempts). Values below 1 are ignored.
func WithMaxAttempts(n int) Option {
	return func(o *options) {
		if n >= 1 {
			o.maxAttempts = n
		}
	}
}

// WithMaxBackoff caps one retry sleep (default DefaultMaxBackoff); tests set
// it tiny.
func WithMaxBackoff(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.maxBackoff = d
		}
	}
}

// WithQuotaWait gives the retries of a caller with no limiter of its own
// reading the refusals: a deployed function, one call per invocation at the
// Map's fixed concurrency. QuotaWaitMaxAttempts attempts, and no retry
// quota: an empty tokens-per-minute quota admits a call every few seconds
// at first, so the default 7 s of backoff ran out before it did, and a
// sandbox serving one refused call after another drained the SDK's retry
// quota, after which its calls failed at their first refusal. A Map of 4
// against an empty 100k-token quota failed 3 of 5 batches and 176 of 1,226
// that way; with these retries none (docs/limits.md#deployed-map). In one
// process --concurrency auto's limiter reads the refusals itself, and a
// longer wait here would only hide them from it.
func WithQuotaWait() Option {
	return func(o *options) { o.maxAttempts, o.quotaWait = QuotaWaitMaxAttempts, true }
}

// WithClientOptions applies fn to the client's options after the retryer is
// installed (for example an HTTP client or endpoint override). Replacing the
// retryer here defeats the bounds above.
func WithClientOptions(fn func(*bedrockruntime.Options)) Option {
	return func(o *options) { o.clientOpts = append(o.clientOpts, fn) }
}

// New returns a Model for modelID using cfg (region, credentials, endpoint:
// config.LoadDefaultConfig reads them from the standard AWS environment). It
// installs the bounded retryer itself, so a caller cannot forget it; the
// AWS_MAX_ATTEMPTS / RetryMaxAttempts of cfg is deliberately overridden by it.
func New(cfg aws.Config, modelID string, opts ...Option) (*Model, error) {
	modelID = strings.TrimSpace(modelID)
	if modelID == "" {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "bedrock model id must not be empty")
	}
	o := options{maxAttempts: DefaultMaxAttempts, maxBackoff: DefaultMaxBackoff}
	for _, opt := range opts {
		opt(&o)
	}
	retryer := newRetryer(o)
	client := bedrockruntime.NewFromConfig(cfg, func(co *bedrockruntime.Options) {
		co.Retryer = retryer
		// Zero, or the client wraps our retryer with cfg's max attempts.
		co.RetryMaxAttempts = 0
		for _, fn := range o.clientOpts {
			fn(co)
		}
		withReadOnlyBodies(co)
	})
	if err := checkTiers(o.tiers); err != nil {
		return nil, err
	}
	if o.cache != "" && o.cache != CacheOff && o.cache != CacheFiveMinute && o.cache != CacheOneHour {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "promptCache must be off, 5m or 1h (got %q)", o.cache)
	}
	m := &Model{client: client, modelID: modelID, tiers: o.tiers}
	m.cache, m.cacheNote = EffectiveCache(modelID, o.cache)
	m.schema.Store(o.structured == StructuredOn || o.structured == StructuredAuto && SupportsStructuredOutput(modelID))
	return m, nil
}

// newRetryer returns the SDK's standard retryer (exponential backoff with
// jitter, throttling and 5xx retried) that also retries
// ModelNotReadyException, bounded to o's attempts and backoff per sleep.
// Every sleep ends early when the call's context does. The client's retry
// quota (500 tokens, 5 a throttled retry) stays on unless o waits out the
// model's quota (WithQuotaWait says why); the attempts per call bound the
// retries either way.
func newRetryer(o options) aws.Retryer {
	codes := make(map[string]struct{}, len(retryableCodes))
	for c := range retryableCodes {
		codes[c] = struct{}{}
	}
	return retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = o.maxAttempts
		so.MaxBackoff = o.maxBackoff
		so.Retryables = append(so.Retryables, retry.RetryableErrorCode{Codes: codes})
		// Counted as throttling too, so it backs off like throttling (1s
		// base) and costs the retry quota what throttling costs.
		so.Throttles = append(so.Throttles, retry.ThrottleErrorCode{Codes: codes})
		if o.quotaWait {
			so.RateLimiter = ratelimit.None
		}
	})
}

// MaxAttempts is the SDK's attempts per call, the first included.
func (m *Model) MaxAttempts() int { return m.client.Options().Retryer.MaxAttempts() }

// ModelID is the model or inference profile the Model calls.
func (m *Model) ModelID() string { return m.modelID }

// Structured reports whether the next call asks for the stage's JSON schema.
func (m *Model) Structured() bool { return m.schema.Load() }

// Complete makes one Converse call: the rendered prompt as the user message,
// maxTokens = req.MaxTokens (the stage's output reserve; none when 0),
// temperature 0, and the stage's JSON schema as outputConfig while the Model
// asks for it (a second call without it when that is refused).
func (m *Model) Complete(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	in, err := m.input(req)
	if err != nil {
		return globalsearch.ModelResponse{}, err
	}
	schema := m.schema.Load()
	if schema {
		in.OutputConfig = outputConfig(req.Stage)
	}
	limit := globalsearch.MaxReplyBytes(req.MaxTokens)
	capped := capReply(limit)
	out, err := m.client.Converse(ctx, in, capped)
	if err != nil && schema && isValidation(err) {
		in.OutputConfig = nil
		out, err = m.client.Converse(ctx, in, capped)
		if err == nil || !isValidation(err) {
			m.schema.Store(false)
		}
	}
	if errors.Is(err, errReplyTooLarge) {
		return globalsearch.ModelResponse{}, globalsearch.ReplyTooLargeError("bedrock model "+m.modelID, limit, req.MaxTokens)
	}
	if err != nil {
		return globalsearch.ModelResponse{}, m.classify(ctx, err)
	}

	resp := globalsearch.ModelResponse{StopReason: string(out.StopReason)}
	msg, hasMessage := out.Output.(*types.ConverseOutputMemberMessage)
	if hasMessage {
		var b strings.Builder
		for _, block := range msg.Value.Content {
			if t, ok := block.(*types.ContentBlockMemberText); ok {
				b.WriteString(t.Value)
			}
		}
		resp.Text = b.String()
	}
	readUsage(&resp, out.Usage)
	return m.finish(req, resp, out.StopReason, hasMessage && len(msg.Value.Content) > 0)
}

// input is the Converse call req makes, with no output schema: the
// rendered prompt as the user message, maxTokens the stage's output
// reserve (none when 0), temperature 0. Complete and CompleteStream send
// the same call.
func (m *Model) input(req globalsearch.ModelRequest) (*bedrockruntime.ConverseInput, error) {
	if req.MaxTokens < 0 {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"%s must not be negative to call bedrock model %s (got %d)", reserveName(req.Stage), m.modelID, req.MaxTokens)
	}
	inference := &types.InferenceConfiguration{Temperature: aws.Float32(0)}
	// A reserve of 0 sends no maxTokens, so the model's own default applies
	// (docs/contract.md#budgets); Bedrock would refuse maxTokens 0.
	if req.MaxTokens > 0 {
		inference.MaxTokens = aws.Int32(int32(min(req.MaxTokens, 1<<31-1)))
	}
	system, messages := conversation(req)
	messages[0].Content = userContent(req, m.callCache(req))
	return &bedrockruntime.ConverseInput{
		ModelId: aws.String(m.modelID), System: system, Messages: messages, InferenceConfig: inference,
		ServiceTier: m.serviceTier(req),
	}, nil
}

// finish reads a reply's stop reason, whole or streamed: a reply cut off
// or refused is a model-output error that names the knob, and one with no
// content (hasContent false) a model error.
func (m *Model) finish(req globalsearch.ModelRequest, resp globalsearch.ModelResponse, stop types.StopReason, hasContent bool) (globalsearch.ModelResponse, error) {
	switch stop {
	case types.StopReasonMaxTokens:
		// A cut-off answer is almost never valid JSON; name the knob.
		if req.MaxTokens == 0 {
			return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
				"bedrock model %s stopped at its own output limit (no maxTokens was sent, %s is 0): its answer was cut off",
				m.modelID, reserveName(req.Stage))
		}
		return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
			"bedrock model %s stopped at maxTokens %d: the output reserve %s was too small for its answer",
			m.modelID, req.MaxTokens, reserveName(req.Stage))
	case types.StopReasonModelContextWindowExceeded:
		return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
			"bedrock model %s ran out of context window: lower the token budget of the %s stage",
			m.modelID, req.Stage)
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
			"bedrock model %s refused to answer (stop reason %s)", m.modelID, stop)
	}
	if !hasContent {
		return resp, globalsearch.Errorf(globalsearch.KindModel,
			"bedrock model %s returned no message (stop reason %q)", m.modelID, stop)
	}
	return resp, nil
}

// errReplyTooLarge is a Converse reply body past its cap.
var errReplyTooLarge = errors.New("reply over its cap")

// capReply bounds the body of a Converse reply the SDK reads to limit
// bytes (globalsearch.MaxReplyBytes of the output reserve,
// docs/contract.md#reply-cap): the SDK decodes a reply whole, so the cap
// sits between the transport and its decoder, and a reply past it fails
// the read with errReplyTooLarge instead of being held.
func capReply(limit int64) func(*bedrockruntime.Options) {
	return func(o *bedrockruntime.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("capReply",
				func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
					out, md, err := next.HandleDeserialize(ctx, in)
					if res, ok := out.RawResponse.(*smithyhttp.Response); ok && res.Body != nil && res.StatusCode/100 == 2 {
						res.Body = &cappedBody{ReadCloser: res.Body, left: limit}
					}
					return out, md, err
				}), middleware.After)
		})
	}
}

// cappedBody reads at most left bytes, then fails with errReplyTooLarge
// if the body goes on.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, errReplyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// classify turns an SDK error into a globalsearch kind. It runs after the
// SDK's own retries, so a throttling error here means the SDK gave up.
func (m *Model) classify(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return globalsearch.Errorf(globalsearch.KindModel,
			"bedrock model %s: call abandoned: %w (%v)", m.modelID, ctxErr, err)
	}
	attempts := 1
	var maxErr *retry.MaxAttemptsError
	if errors.As(err, &maxErr) {
		attempts = maxErr.Attempt
	}
	status := 0
	var withStatus interface{ HTTPStatusCode() int }
	if errors.As(err, &withStatus) {
		status = withStatus.HTTPStatusCode()
	}
	code := ""
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code = apiErr.ErrorCode()
	}
	_, throttled := throttleCodes[code]
	if throttled || status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		return globalsearch.Errorf(globalsearch.KindThrottled,
			"bedrock model %s throttled (%s, HTTP %d) after %d attempt(s): %w", m.modelID, orUnknown(code), status, attempts, err)
	}
	if code != "" {
		return globalsearch.Errorf(globalsearch.KindModel,
			"bedrock model %s failed (%s, HTTP %d): %w", m.modelID, code, status, err)
	}
	return globalsearch.Errorf(globalsearch.KindModel, "bedrock model %s: %w", m.modelID, err)
}

// conversation is what a call sends the model: the system prompt and one
// user message with the prompt. Complete sends it and CountTokens counts it,
// so a count is of the very call.
func conversation(req globalsearch.ModelRequest) ([]types.SystemContentBlock, []types.Message) {
	return []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: req.SystemPrompt()}},
		[]types.Message{{
			Role:    types.ConversationRoleUser,
			Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: req.Prompt}},
		}}
}

// reserveName is the request field whose value became maxTokens (docs/contract.md#request).
func reserveName(s globalsearch.Stage) string {
	if s == globalsearch.StageReduce {
		return "reduceOutputReserve"
	}
	return "mapOutputReserve"
}

var _ globalsearch.Model = (*Model)(nil)

func orUnknown(code string) string {
	if code == "" {
		return "no error code"
	}
	return code
}

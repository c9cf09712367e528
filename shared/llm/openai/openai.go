// Package openai is the Model adapter for OpenAI-compatible chat completions
// servers (Ollama, vLLM, llama.cpp server, OpenAI itself, Azure OpenAI): one
// chat completion per ModelRequest through the official SDK
// (github.com/openai/openai-go/v3). Like the Bedrock adapter it retries only
// at the transport level (the SDK's retries of 408, 409, 429, 5xx and
// connection errors, honouring Retry-After, a few bounded attempts); the
// search owns the second attempt of a batch (docs/contract.md#map-calls).
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Defaults of New.
const (
	// DefaultMaxAttempts is the transport attempts per call (the first and two
	// retries).
	DefaultMaxAttempts = 3
	// DefaultMaxRetryDelay bounds one wait between attempts: the backoff, and
	// a Retry-After the server sends. A longer Retry-After is not waited for:
	// the call fails throttled and the caller's own retry takes over.
	DefaultMaxRetryDelay = 30 * time.Second
	// DefaultAzureAPIVersion is the Azure OpenAI api-version sent when none is
	// given: the GA version with structured outputs.
	DefaultAzureAPIVersion = "2024-10-21"
)

// Model calls one model of an OpenAI-compatible server. It is safe for
// concurrent use.
//
// Output format: a Model first asks for the stage's JSON schema
// (response_format json_schema, strict; docs/contract.md#structured-output). A server that
// refuses it with a 400 naming response_format gets that call resent once
// with the next format down (json_object, then none), and the Model
// remembers, so later calls start there. A resend is a fallback, not a
// retry: it does not count as an attempt.
type Model struct {
	chat     sdk.ChatCompletionService
	model    string
	endpoint string // where calls go, for messages
	// reasoning models take max_completion_tokens and no temperature.
	reasoning bool
	format    atomic.Int32 // a Format
	start     Format       // the format calls started with, before any fallback
}

// Format is what a call asks the server for in response_format.
type Format int32

// The formats, best first: a fallback moves down the list.
const (
	// FormatSchema asks for the stage's JSON schema, strict.
	FormatSchema Format = iota
	// FormatJSON asks for any JSON object (json_object).
	FormatJSON
	// FormatText sends no response_format.
	FormatText
)

// String is the response_format type a Format sends.
func (f Format) String() string {
	switch f {
	case FormatSchema:
		return "json_schema"
	case FormatJSON:
		return "json_object"
	}
	return "none"
}

type config struct {
	apiKey, azureKey string
	client           *http.Client
	maxAttempts      int
	maxRetryDelay    time.Duration
	format           Format
	reasoning        *bool
}

// Option configures New and NewAzure.
type Option func(*config)

// WithAPIKey sends "Authorization: Bearer key" (only when key is not empty:
// local servers need none). For Azure OpenAI this is how an Entra ID token
// is sent.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithAzureAPIKey sends Azure OpenAI's "api-key: key" header.
func WithAzureAPIKey(key string) Option { return func(c *config) { c.azureKey = key } }

// WithFormat sets the first output format calls ask for (default
// FormatSchema); fallbacks still move down from it.
func WithFormat(f Format) Option {
	return func(c *config) {
		if f >= FormatSchema && f <= FormatText {
			c.format = f
		}
	}
}

// WithReasoning says whether the model is a reasoning model, overriding
// IsReasoningModel's guess from its name.
func WithReasoning(on bool) Option { return func(c *config) { c.reasoning = &on } }

// WithHTTPClient replaces http.DefaultClient. The call's context, not a
// client timeout, should bound a call.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.client = hc } }

// WithMaxAttempts sets the transport attempts per call; values below 1 are
// ignored.
func WithMaxAttempts(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxAttempts = n
		}
	}
}

// WithMaxRetryDelay bounds one wait between attempts, backoff and
// Retry-After alike (default DefaultMaxRetryDelay).
func WithMaxRetryDelay(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.maxRetryDelay = d
		}
	}
}

// New returns a Model for model at baseURL, the server's OpenAI API root
// (for Ollama http://localhost:11434/v1). It reads no OPENAI_* environment
// variable: the caller passes what it means to send.
func New(baseURL, model string, opts ...Option) (*Model, error) {
	baseURL = strings.TrimRight(strings.TrimSpace(baseURL), "/")
	model = strings.TrimSpace(model)
	if baseURL == "" || model == "" {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "openai-compatible model needs a base URL and a model name")
	}
	c := newConfig(opts)
	if c.azureKey != "" {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "an Azure api-key goes with an Azure OpenAI endpoint (NewAzure), not with %s", baseURL)
	}
	return newModel(c, model, baseURL+"/", nil), nil
}

// NewAzure returns a Model for an Azure OpenAI deployment: calls go to
// {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=
// apiVersion (DefaultAzureAPIVersion when empty), authenticated by
// WithAzureAPIKey or by an Entra ID token through WithAPIKey (exactly one).
// The endpoint must be https, except on a loopback host (a local emulator).
func NewAzure(endpoint, deployment, apiVersion string, opts ...Option) (*Model, error) {
	endpoint = strings.TrimRight(strings.TrimSpace(endpoint), "/")
	deployment = strings.TrimSpace(deployment)
	apiVersion = strings.TrimSpace(apiVersion)
	if apiVersion == "" {
		apiVersion = DefaultAzureAPIVersion
	}
	if deployment == "" || strings.ContainsAny(deployment, "/?#") {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "azure openai model needs a deployment name without '/', '?' or '#' (got %q)", deployment)
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname()))) {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"azure openai endpoint %q must be an https URL such as https://my-resource.openai.azure.com (http only on a loopback host)", endpoint)
	}
	c := newConfig(opts)
	if (c.azureKey == "") == (c.apiKey == "") {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"azure openai deployment %s needs exactly one credential: an api-key or an Entra ID token", deployment)
	}
	base := endpoint + "/openai/deployments/" + url.PathEscape(deployment) + "/"
	extra := []option.RequestOption{option.WithQuery("api-version", apiVersion)}
	if c.azureKey != "" {
		extra = append(extra, option.WithHeader("api-key", c.azureKey))
	}
	return newModel(c, deployment, base, extra), nil
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

func newConfig(opts []Option) config {
	c := config{client: http.DefaultClient, maxAttempts: DefaultMaxAttempts, maxRetryDelay: DefaultMaxRetryDelay}
	for _, opt := range opts {
		opt(&c)
	}
	return c
}

func newModel(c config, model, base string, extra []option.RequestOption) *Model {
	reasoning := IsReasoningModel(model)
	if c.reasoning != nil {
		reasoning = *c.reasoning
	}
	reqOpts := append([]option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(c.client),
		option.WithMaxRetries(c.maxAttempts - 1),
		option.WithMaxRetryDelay(c.maxRetryDelay),
	}, extra...)
	if c.apiKey != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(c.apiKey))
	}
	m := &Model{
		chat:      sdk.NewChatCompletionService(reqOpts...),
		model:     model,
		endpoint:  strings.TrimSuffix(base, "/") + "/chat/completions",
		reasoning: reasoning,
	}
	m.format.Store(int32(c.format))
	m.start = c.format
	return m
}

// Notes says, once the server refused a format, which one calls fell back
// to (globalsearch.ModelNoter): the output is then held to the stage's
// schema only when it is read, and a weaker model strays from it more
// often (docs/contract.md#structured-output). None before a fallback.
func (m *Model) Notes() []string {
	now := m.Format()
	if now == m.start {
		return nil
	}
	return []string{fmt.Sprintf("model %s at %s refused response_format %s: its calls asked for %s instead (the output is checked against the stage's schema only when read)",
		m.model, m.endpoint, m.start, now)}
}

// Reasoning reports whether calls are made the reasoning models' way.
func (m *Model) Reasoning() bool { return m.reasoning }

// Format is the output format the next call starts with.
func (m *Model) Format() Format { return Format(m.format.Load()) }

// Complete makes one chat completion: the fixed system message, the rendered
// prompt as the user message, the stage's output reserve as max_tokens
// (max_completion_tokens for a reasoning model; none when 0) and temperature
// 0 (none for a reasoning model, which refuses it).
func (m *Model) Complete(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	if req.MaxTokens < 0 {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"%s must not be negative to call model %s (got %d)", reserveName(req.Stage), m.model, req.MaxTokens)
	}
	for {
		format := m.Format()
		var raw []byte
		ex := &exchange{replyLimit: globalsearch.MaxReplyBytes(req.MaxTokens)}
		_, err := m.chat.New(ctx, m.params(req, format),
			option.WithMiddleware(ex.middleware), option.WithResponseBodyInto(&raw))
		if ex.replyTooLarge {
			return globalsearch.ModelResponse{}, globalsearch.ReplyTooLargeError(m.model, ex.replyLimit, req.MaxTokens)
		}
		if err == nil && ex.tooLarge {
			return globalsearch.ModelResponse{}, m.tooLarge(ex)
		}
		if err != nil {
			if format < FormatText && ex.refusesFormat() {
				// Compare-and-swap: concurrent calls refused together step
				// down once, not once each.
				m.format.CompareAndSwap(int32(format), int32(format+1))
				continue
			}
			return globalsearch.ModelResponse{}, m.classify(ctx, err, ex)
		}
		return m.read(req, raw)
	}
}

func (m *Model) params(req globalsearch.ModelRequest, format Format) sdk.ChatCompletionNewParams {
	p := sdk.ChatCompletionNewParams{
		Model: m.model,
		Messages: []sdk.ChatCompletionMessageParamUnion{
			sdk.SystemMessage(req.SystemPrompt()),
			sdk.UserMessage(req.Prompt),
		},
	}
	// A reserve of 0 sends no limit: the server's default applies
	// (docs/contract.md#budgets).
	switch {
	case m.reasoning && req.MaxTokens > 0:
		p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
	case req.MaxTokens > 0:
		p.MaxTokens = sdk.Int(int64(req.MaxTokens))
	}
	if !m.reasoning {
		// Temperature 0: the same batch should get the same answer (docs/contract.md#aws).
		p.Temperature = sdk.Float(0)
	}
	switch format {
	case FormatSchema:
		s := globalsearch.StageOutputSchema(req.Stage)
		p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &sdk.ResponseFormatJSONSchemaParam{JSONSchema: sdk.ResponseFormatJSONSchemaJSONSchemaParam{
				Name: s.Name, Description: sdk.String(s.Description), Strict: sdk.Bool(true), Schema: s.Schema,
			}},
		}
	case FormatJSON:
		p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &sdk.ResponseFormatJSONObjectParam{}}
	}
	return p
}

func (m *Model) read(req globalsearch.ModelRequest, body []byte) (globalsearch.ModelResponse, error) {
	var cc sdk.ChatCompletion
	if err := json.Unmarshal(body, &cc); err != nil {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel,
			"model %s at %s returned a malformed chat completion (%v): %s", m.model, m.endpoint, err, excerpt(body))
	}
	if len(cc.Choices) == 0 {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel,
			"model %s at %s returned a chat completion with no choices: %s", m.model, m.endpoint, excerpt(body))
	}
	choice := cc.Choices[0]
	return m.finish(req, globalsearch.ModelResponse{
		Text:         choice.Message.Content,
		StopReason:   choice.FinishReason,
		InputTokens:  int(cc.Usage.PromptTokens),
		OutputTokens: int(cc.Usage.CompletionTokens),
		// The server's own prefix cache; prompt_tokens includes it
		// (docs/contract.md#prompt-cache).
		CacheReadInputTokens: int(cc.Usage.PromptTokensDetails.CachedTokens),
	})
}

// finish reads a reply's finish reason, whole or streamed: a reply cut at
// the output limit is a model-output error that names the knob.
func (m *Model) finish(req globalsearch.ModelRequest, resp globalsearch.ModelResponse) (globalsearch.ModelResponse, error) {
	limit := "max_tokens"
	if m.reasoning {
		limit = "max_completion_tokens"
	}
	if resp.StopReason == "length" && req.MaxTokens == 0 {
		return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
			"model %s stopped at its own output limit (no %s was sent, %s is 0): its answer was cut off",
			m.model, limit, reserveName(req.Stage))
	}
	if resp.StopReason == "length" {
		return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
			"model %s stopped at %s %d: the output reserve %s was too small for its answer",
			m.model, limit, req.MaxTokens, reserveName(req.Stage))
	}
	return resp, nil
}

// reserveName is the request field whose value became the output limit (docs/contract.md#request).
func reserveName(s globalsearch.Stage) string {
	if s == globalsearch.StageReduce {
		return "reduceOutputReserve"
	}
	return "mapOutputReserve"
}

var _ globalsearch.Model = (*Model)(nil)

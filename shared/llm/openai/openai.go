// Package openai is the Model adapter for OpenAI-compatible chat completions
// servers (Ollama, vLLM, llama.cpp server, or OpenAI itself): one
// POST {base}/chat/completions per ModelRequest. Like the Bedrock adapter it
// retries only at the transport level (429 and 5xx, a few bounded attempts);
// the search owns the second attempt of a batch (docs/contract.md#map-calls).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Defaults of New.
const (
	// DefaultMaxAttempts is the transport attempts per call (the first and two
	// retries) for 429, 5xx and connection errors.
	DefaultMaxAttempts = 3
	// DefaultBaseBackoff and DefaultMaxBackoff shape the exponential backoff
	// with full jitter between attempts.
	DefaultBaseBackoff = 250 * time.Millisecond
	DefaultMaxBackoff  = 4 * time.Second
	// DefaultMaxRetryAfter caps how long a 429's Retry-After is honoured:
	// longer waits are left to the caller's own retry.
	DefaultMaxRetryAfter = 30 * time.Second
)

// Model calls one model of an OpenAI-compatible server. It is safe for
// concurrent use.
//
// JSON mode: by default every request asks for response_format
// {"type":"json_object"}. Some servers (older llama.cpp builds, some vLLM
// models) reject it with a 400 that names response_format; the Model then
// resends that call once without it and remembers, so later calls omit it.
// That resend is a fallback, not a retry: it does not count as an attempt.
type Model struct {
	endpoint      string // {base}/chat/completions
	model         string
	apiKey        string
	client        *http.Client
	maxAttempts   int
	baseBackoff   time.Duration
	maxBackoff    time.Duration
	maxRetryAfter time.Duration
	noJSONMode    atomic.Bool
	// sleep waits d or until ctx is done; tests replace it to observe waits.
	sleep func(ctx context.Context, d time.Duration) error
}

// Option configures New.
type Option func(*Model)

// WithAPIKey sends "Authorization: Bearer key" (only when key is not empty:
// local servers need none).
func WithAPIKey(key string) Option { return func(m *Model) { m.apiKey = key } }

// WithoutJSONMode never sends response_format.
func WithoutJSONMode() Option { return func(m *Model) { m.noJSONMode.Store(true) } }

// WithHTTPClient replaces http.DefaultClient. The call's context, not a
// client timeout, should bound a call.
func WithHTTPClient(c *http.Client) Option { return func(m *Model) { m.client = c } }

// WithMaxAttempts sets the transport attempts per call; values below 1 are
// ignored.
func WithMaxAttempts(n int) Option {
	return func(m *Model) {
		if n >= 1 {
			m.maxAttempts = n
		}
	}
}

// WithBackoff sets the base and the cap of the exponential backoff between
// attempts.
func WithBackoff(base, maxBackoff time.Duration) Option {
	return func(m *Model) {
		if base > 0 {
			m.baseBackoff = base
		}
		if maxBackoff > 0 {
			m.maxBackoff = maxBackoff
		}
	}
}

// WithMaxRetryAfter caps how long a 429's Retry-After is honoured.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(m *Model) {
		if d > 0 {
			m.maxRetryAfter = d
		}
	}
}

// New returns a Model for model at baseURL, the server's OpenAI API root
// (for Ollama http://localhost:11434/v1).
func New(baseURL, model string, opts ...Option) (*Model, error) {
	baseURL = strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if baseURL == "" || model == "" {
		return nil, globalsearch.Errorf(globalsearch.KindInvalidInput, "openai-compatible model needs a base URL and a model name")
	}
	m := &Model{
		endpoint:      baseURL + "/chat/completions",
		model:         model,
		client:        http.DefaultClient,
		maxAttempts:   DefaultMaxAttempts,
		baseBackoff:   DefaultBaseBackoff,
		maxBackoff:    DefaultMaxBackoff,
		maxRetryAfter: DefaultMaxRetryAfter,
		sleep:         sleepContext,
	}
	for _, opt := range opts {
		opt(m)
	}
	return m, nil
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type chatRequest struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	// MaxTokens 0 is left out: no limit, the server's default applies
	// (docs/contract.md#budgets).
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Temperature    float64         `json:"temperature"`
	Stream         bool            `json:"stream"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// Complete makes one chat completion: the fixed system message, the rendered
// prompt as the user message, max_tokens = req.MaxTokens (none when 0),
// temperature 0.
func (m *Model) Complete(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	if req.MaxTokens < 0 {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"%s must not be negative to call model %s (got %d)", reserveName(req.Stage), m.model, req.MaxTokens)
	}
	jsonMode := !m.noJSONMode.Load()
	status, body, err := m.send(ctx, req, jsonMode)
	if err == nil && status == http.StatusBadRequest && jsonMode && bytes.Contains(body, []byte("response_format")) {
		m.noJSONMode.Store(true)
		status, body, err = m.send(ctx, req, false)
	}
	if err != nil {
		return globalsearch.ModelResponse{}, err
	}
	if status != http.StatusOK {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel,
			"model %s at %s failed: HTTP %d: %s", m.model, m.endpoint, status, excerpt(body))
	}
	return m.read(req, body)
}

func (m *Model) read(req globalsearch.ModelRequest, body []byte) (globalsearch.ModelResponse, error) {
	var cr chatResponse
	if err := json.Unmarshal(body, &cr); err != nil {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel,
			"model %s at %s returned a malformed chat completion (%v): %s", m.model, m.endpoint, err, excerpt(body))
	}
	if len(cr.Choices) == 0 {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel,
			"model %s at %s returned a chat completion with no choices: %s", m.model, m.endpoint, excerpt(body))
	}
	choice := cr.Choices[0]
	resp := globalsearch.ModelResponse{StopReason: choice.FinishReason}
	if choice.Message.Content != nil {
		resp.Text = *choice.Message.Content
	}
	if cr.Usage != nil {
		resp.InputTokens = cr.Usage.PromptTokens
		resp.OutputTokens = cr.Usage.CompletionTokens
	}
	if choice.FinishReason == "length" && req.MaxTokens == 0 {
		return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
			"model %s stopped at its own output limit (no max_tokens was sent, %s is 0): its answer was cut off",
			m.model, reserveName(req.Stage))
	}
	if choice.FinishReason == "length" {
		return resp, globalsearch.Errorf(globalsearch.KindModelOutput,
			"model %s stopped at max_tokens %d: the output reserve %s was too small for its answer",
			m.model, req.MaxTokens, reserveName(req.Stage))
	}
	return resp, nil
}

// send posts one request, retrying 429, 5xx and connection errors up to
// maxAttempts. It returns the last response's status and body when that is
// not retryable (a 2xx or another 4xx); otherwise an error of the right kind.
func (m *Model) send(ctx context.Context, req globalsearch.ModelRequest, jsonMode bool) (int, []byte, error) {
	cr := chatRequest{
		Model: m.model,
		Messages: []message{
			{Role: "system", Content: req.SystemPrompt()},
			{Role: "user", Content: req.Prompt},
		},
		MaxTokens: req.MaxTokens,
		// Temperature 0: the same batch should get the same answer (docs/contract.md#aws).
		Temperature: 0,
	}
	if jsonMode {
		cr.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	payload, err := json.Marshal(cr)
	if err != nil {
		return 0, nil, globalsearch.Errorf(globalsearch.KindInternal, "encode chat request: %w", err)
	}

	var lastErr error
	for attempt := 1; ; attempt++ {
		status, header, body, err := m.post(ctx, payload)
		var wait time.Duration
		switch {
		case errors.Is(err, errTooLarge):
			// Not retried: a server that sent this much once would again.
			return 0, nil, globalsearch.Errorf(globalsearch.KindModel,
				"model %s at %s answered HTTP %d with a body over the %d MiB read cap, which no chat completion needs: %s",
				m.model, m.endpoint, status, maxResponseBytes>>20, excerpt(body))
		case err != nil:
			if ctxErr := ctx.Err(); ctxErr != nil {
				return 0, nil, globalsearch.Errorf(globalsearch.KindModel,
					"model %s at %s: call abandoned: %w (%v)", m.model, m.endpoint, ctxErr, err)
			}
			lastErr = globalsearch.Errorf(globalsearch.KindModel,
				"model %s: cannot reach %s after %d attempt(s) (is the server running?): %w", m.model, m.endpoint, attempt, err)
			wait = m.backoff(attempt)
		case status == http.StatusTooManyRequests:
			lastErr = globalsearch.Errorf(globalsearch.KindThrottled,
				"model %s at %s throttled (HTTP 429) after %d attempt(s): %s", m.model, m.endpoint, attempt, excerpt(body))
			wait = m.backoff(attempt)
			if ra, ok := retryAfter(header.Get("Retry-After"), time.Now()); ok {
				wait = min(ra, m.maxRetryAfter)
			}
		case status >= 500:
			lastErr = globalsearch.Errorf(globalsearch.KindModel,
				"model %s at %s failed (HTTP %d) after %d attempt(s): %s", m.model, m.endpoint, status, attempt, excerpt(body))
			wait = m.backoff(attempt)
		default:
			return status, body, nil
		}
		if attempt >= m.maxAttempts {
			return 0, nil, lastErr
		}
		// Do not sleep into the deadline: the next attempt could not finish.
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= wait {
			return 0, nil, lastErr
		}
		if err := m.sleep(ctx, wait); err != nil {
			return 0, nil, globalsearch.Errorf(globalsearch.KindModel,
				"model %s at %s: call abandoned while backing off: %w (%v)", m.model, m.endpoint, err, lastErr)
		}
	}
}

func (m *Model) post(ctx context.Context, payload []byte) (int, http.Header, []byte, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, m.endpoint, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if m.apiKey != "" {
		hr.Header.Set("Authorization", "Bearer "+m.apiKey)
	}
	res, err := m.client.Do(hr)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	// Bounded read: a chat completion is small; a runaway body is not ours.
	body, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes+1))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("read response: %w", err)
	}
	if len(body) > maxResponseBytes {
		return res.StatusCode, res.Header, body[:maxResponseBytes], errTooLarge
	}
	return res.StatusCode, res.Header, body, nil
}

// maxResponseBytes is the most of a response body read: a chat completion
// is a few kilobytes, and the largest output reserve a few hundred.
const maxResponseBytes = 16 << 20

// errTooLarge is a response body past maxResponseBytes: its start is read,
// the rest is not, so it is reported as what it is, not as a malformed
// completion.
var errTooLarge = errors.New("response body too large")

// backoff is exponential with full jitter, so concurrent map calls that were
// throttled together do not come back together.
func (m *Model) backoff(attempt int) time.Duration {
	d := m.baseBackoff << min(attempt-1, 16)
	if d <= 0 || d > m.maxBackoff {
		d = m.maxBackoff
	}
	return time.Duration(rand.Int64N(int64(d) + 1))
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// excerpt is the start of a response body for an error message.
func excerpt(body []byte) string {
	s := strings.TrimSpace(string(body))
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// reserveName is the request field whose value became max_tokens (docs/contract.md#request).
func reserveName(s globalsearch.Stage) string {
	if s == globalsearch.StageReduce {
		return "reduceOutputReserve"
	}
	return "mapOutputReserve"
}

var _ globalsearch.Model = (*Model)(nil)

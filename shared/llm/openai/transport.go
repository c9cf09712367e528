package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// exchange records what the server answered over one call's attempts, so a
// failure is reported by what happened (status, body, attempts) whatever
// shape the server's error body has: the SDK reads only OpenAI's
// {"error":{...}}, and local servers answer in others.
type exchange struct {
	attempts int
	status   int    // of the last response; 0 when none came
	body     []byte // of the last response, at most maxResponseBytes
	tooLarge bool
	// replyLimit caps a successful response's body, the model's reply
	// (globalsearch.MaxReplyBytes of the call's output reserve); a larger
	// one sets replyTooLarge and is not read further.
	replyLimit    int64
	replyTooLarge bool
	// streaming leaves a successful event stream unread, for the stream's
	// reader (stream.go), bounded by maxResponseBytes; whole is the body
	// of a server that answered the stream's call with one JSON reply.
	streaming bool
	whole     []byte
}

// maxResponseBytes is the most of a response body read: a chat completion
// is a few kilobytes, and the largest output reserve a few hundred.
const maxResponseBytes = 16 << 20

// middleware runs inside the SDK's retry loop, once per attempt. It bounds
// the body read, keeps it for messages, and stops retries that could not
// succeed: a runaway body (a server that sent it once would again) and a
// Retry-After past the call's deadline (the next attempt could not finish).
func (ex *exchange) middleware(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	ex.attempts++
	res, err := next(r)
	if err != nil {
		ex.status, ex.body = 0, nil
		return res, err
	}
	if ex.streaming && res.StatusCode/100 == 2 && !isJSON(res.Header.Get("Content-Type")) {
		ex.status = res.StatusCode
		res.Body = &boundedStream{ReadCloser: res.Body, left: maxResponseBytes}
		return res, nil
	}
	defer res.Body.Close()
	limit := int64(maxResponseBytes)
	if res.StatusCode/100 == 2 && ex.replyLimit > 0 {
		limit = min(limit, ex.replyLimit)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		ex.status, ex.body = 0, nil
		return nil, fmt.Errorf("read response: %w", err)
	}
	ex.status = res.StatusCode
	if limit < maxResponseBytes && int64(len(body)) > limit {
		// A reply past the output reserve's cap: refused, and a retry
		// would be answered alike (docs/contract.md#reply-cap).
		ex.replyTooLarge = true
		body = body[:limit]
		res.Header.Set("x-should-retry", "false")
	} else if len(body) > maxResponseBytes {
		ex.tooLarge = true
		body = body[:maxResponseBytes]
		res.Header.Set("x-should-retry", "false")
	}
	ex.body = body
	if ex.streaming && res.StatusCode/100 == 2 && !ex.replyTooLarge && !ex.tooLarge {
		ex.whole = body
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	if wait, ok := retryAfter(res.Header.Get("Retry-After"), time.Now()); ok {
		if deadline, has := r.Context().Deadline(); has && time.Until(deadline) <= wait {
			res.Header.Set("x-should-retry", "false")
		}
	}
	return res, nil
}

// refusesFormat says whether the last answer refused the response_format
// sent: a 400 that names it.
func (ex *exchange) refusesFormat() bool {
	if ex.status != http.StatusBadRequest {
		return false
	}
	return bytes.Contains(ex.body, []byte("response_format")) || bytes.Contains(ex.body, []byte("json_schema"))
}

// classify turns a failed call into a globalsearch kind. It runs after the
// SDK's own retries, so a throttle here means they gave up.
func (m *Model) classify(ctx context.Context, err error, ex *exchange) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return globalsearch.Errorf(globalsearch.KindModel,
			"model %s at %s: call abandoned: %w (%v)", m.model, m.endpoint, ctxErr, err)
	}
	if ex.tooLarge {
		return m.tooLarge(ex)
	}
	switch s := ex.status; {
	case s == 0:
		return globalsearch.Errorf(globalsearch.KindModel,
			"model %s: cannot reach %s after %d attempt(s) (is the server running?): %w", m.model, m.endpoint, ex.attempts, err)
	case s == http.StatusTooManyRequests:
		return globalsearch.Errorf(globalsearch.KindThrottled,
			"model %s at %s throttled (HTTP 429) after %d attempt(s): %s", m.model, m.endpoint, ex.attempts, excerpt(ex.body))
	case s >= 500 || s == http.StatusRequestTimeout || s == http.StatusConflict:
		return globalsearch.Errorf(globalsearch.KindModel,
			"model %s at %s failed (HTTP %d) after %d attempt(s): %s", m.model, m.endpoint, s, ex.attempts, excerpt(ex.body))
	case s >= 300:
		return globalsearch.Errorf(globalsearch.KindModel,
			"model %s at %s failed: HTTP %d: %s", m.model, m.endpoint, s, excerpt(ex.body))
	}
	return globalsearch.Errorf(globalsearch.KindModel, "model %s at %s: %w", m.model, m.endpoint, err)
}

func (m *Model) tooLarge(ex *exchange) error {
	return globalsearch.Errorf(globalsearch.KindModel,
		"model %s at %s answered HTTP %d with a body over the %d MiB read cap, which no chat completion needs: %s",
		m.model, m.endpoint, ex.status, maxResponseBytes>>20, excerpt(ex.body))
}

// retryAfter parses a Retry-After header as the SDK reads it: seconds
// (fractions allowed) or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > float64(1<<62)/float64(time.Second) || s != s {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
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

// reasoningName matches the OpenAI reasoning model families, which refuse
// temperature and max_tokens (docs/contract.md#reasoning-models): o1, o3, o4 and gpt-5, with any
// suffix (o3-mini, gpt-5-nano, o4-mini-2025-04-16).
var reasoningName = regexp.MustCompile(`^(o[1-9][0-9]*|gpt-5)([-.:_].*)?$`)

// IsReasoningModel guesses from a model or Azure deployment name whether it
// is a reasoning model. The name is read case-insensitively, after any
// "vendor/" prefix. WithReasoning overrides the guess.
func IsReasoningModel(name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return reasoningName.MatchString(name)
}

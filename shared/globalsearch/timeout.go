package globalsearch

import (
	"context"
	"errors"
	"time"
)

// TimeoutModel bounds every call of Model by Timeout, so a model server that
// accepts a request and never answers fails that attempt (and, after the
// retry, the batch) instead of holding the run forever. Name is how the
// timeout error names the model.
type TimeoutModel struct {
	Model   Model
	Name    string
	Timeout time.Duration
}

var errCallTimeout = errors.New("model call timeout")

// Notes are the wrapped model's (ModelNoter), if it has any.
func (m TimeoutModel) Notes() []string { return modelNotes(m.Model) }

// Complete calls the model under its own deadline. It returns when the
// deadline passes even if the model ignores its context: the call is then
// abandoned, and its late answer dropped.
func (m TimeoutModel) Complete(ctx context.Context, req ModelRequest) (ModelResponse, error) {
	if m.Timeout <= 0 {
		return m.Model.Complete(ctx, req)
	}
	callCtx, cancel := context.WithTimeoutCause(ctx, m.Timeout, errCallTimeout)
	defer cancel()
	type result struct {
		resp ModelResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := m.Model.Complete(callCtx, req)
		done <- result{resp, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-callCtx.Done():
		r.err = context.Cause(callCtx)
	}
	if r.err != nil && ctx.Err() == nil && errors.Is(context.Cause(callCtx), errCallTimeout) {
		return ModelResponse{}, Errorf(KindModel, "model %s did not answer within %s (the model timeout)", m.Name, m.Timeout)
	}
	return r.resp, r.err
}

// PromptCache is the wrapped model's prompt cache setting and note
// (PromptCacher), empty for a model that caches no prompts of its own.
func (m TimeoutModel) PromptCache(want string) (string, string) {
	if pc, ok := m.Model.(PromptCacher); ok {
		return pc.PromptCache(want)
	}
	return "", ""
}

// TakesServiceTier is whether the wrapped model sends a service tier
// (ServiceTierTaker).
func (m TimeoutModel) TakesServiceTier() bool {
	tt, ok := m.Model.(ServiceTierTaker)
	return ok && tt.TakesServiceTier()
}

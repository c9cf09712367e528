package globalsearch_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// fakeTokenCounter is a TokenCounter that counts a request's system prompt
// and prompt at 3 characters a token, or fails with err; it records the
// prompts it was asked about.
type fakeTokenCounter struct {
	err error

	mu      sync.Mutex
	prompts []string
}

func (c *fakeTokenCounter) CountTokens(_ context.Context, req gs.ModelRequest) (int, error) {
	c.mu.Lock()
	c.prompts = append(c.prompts, req.Prompt)
	c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	return len([]rune(req.SystemPrompt()+req.Prompt)) / 3, nil
}

func TestCountedSamples(t *testing.T) {
	const query = "What grew?"
	tests := []struct {
		name      string
		records   gs.Records
		err       error
		wantCalls int
		wantErr   string
		wantKind  gs.Kind
	}{
		{name: "every batch counted", records: usageNamespace(), wantCalls: 3},
		{name: "a model that counts nothing fails once", records: usageNamespace(), err: errors.New("no counting here"),
			wantCalls: 1, wantKind: gs.KindInternal, wantErr: "count the input tokens of map batch 0: no counting here"},
		{name: "nothing to count", records: gs.Records{}, wantKind: gs.KindInvalidInput,
			wantErr: "the plan of namespace default at level leaf has no batch to count"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: answerEverything}
			e, s := newEngine(t, tc.records, model)
			counter := &fakeTokenCounter{err: tc.err}
			p := oneBatchPerSummary(t, query, func(r *gs.Request) { r.QueryID = "q-count" })
			samples, err := e.CountedSamples(t.Context(), p, counter)
			assert.Zero(t, model.count(gs.StageMap)+model.count(gs.StageReduce), "no inference")
			_, runErr := s.Result(t.Context(), p.QueryID)
			assert.ErrorIs(t, runErr, gs.ErrNotFound, "nothing saved")
			assert.Len(t, counter.prompts, tc.wantCalls)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Equal(t, tc.wantKind, gs.KindOf(err))
				return
			}
			require.NoError(t, err)
			plan, err := e.Plan(t.Context(), p)
			require.NoError(t, err)
			require.Len(t, samples, len(plan.Batches))
			sys := tokens.Of(gs.SystemPrompt)
			for i, b := range plan.Batches {
				sent := gs.DefaultPrompts().Map.Render(query, b.Content)
				assert.Contains(t, counter.prompts, sent, "batch %d: the prompt MapBatch sends", i)
				c := tokens.Of(sent)
				assert.Equal(t, gs.CalibrationSample{ASCII: c.ASCII + sys.ASCII, NonASCII: c.NonASCII + sys.NonASCII,
					Reported: len([]rune(gs.SystemPrompt+sent)) / 3, Estimated: b.EstimatedTokens}, samples[i], "batch %d", i)
			}
		})
	}
}

package globalsearch_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// modelFunc is a Model made of a function.
type modelFunc func(ctx context.Context, req gs.ModelRequest) (gs.ModelResponse, error)

func (f modelFunc) Complete(ctx context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	return f(ctx, req)
}

func TestTimeoutModel(t *testing.T) {
	never := make(chan struct{}) // closed at the end: the abandoned calls return
	defer close(never)
	tests := []struct {
		name     string
		model    modelFunc
		cancel   bool // cancel the caller's context before the call
		wantText string
		wantErr  string
		wantKind gs.Kind
	}{
		{"answers in time", func(context.Context, gs.ModelRequest) (gs.ModelResponse, error) {
			return gs.ModelResponse{Text: "ok"}, nil
		}, false, "ok", "", 0},
		{"honours its context", func(ctx context.Context, _ gs.ModelRequest) (gs.ModelResponse, error) {
			<-ctx.Done()
			return gs.ModelResponse{}, ctx.Err()
		}, false, "", "model test-model did not answer within 20ms (the model timeout)", gs.KindModel},
		{"ignores its context", func(context.Context, gs.ModelRequest) (gs.ModelResponse, error) {
			<-never
			return gs.ModelResponse{}, nil
		}, false, "", "model test-model did not answer within 20ms (the model timeout)", gs.KindModel},
		{"own error passes through", func(context.Context, gs.ModelRequest) (gs.ModelResponse, error) {
			return gs.ModelResponse{}, gs.Errorf(gs.KindThrottled, "slow down")
		}, false, "", "slow down", gs.KindThrottled},
		{"caller cancelled is not a timeout", func(ctx context.Context, _ gs.ModelRequest) (gs.ModelResponse, error) {
			<-ctx.Done()
			return gs.ModelResponse{}, ctx.Err()
		}, true, "", context.Canceled.Error(), gs.KindInternal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			m := gs.TimeoutModel{Model: tc.model, Name: "test-model", Timeout: 20 * time.Millisecond}
			resp, err := m.Complete(ctx, gs.ModelRequest{Stage: gs.StageMap})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				assert.Equal(t, tc.wantKind, gs.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantText, resp.Text)
		})
	}
}

// TestTimeoutModelFailsTheBatchNotTheRun: a hung model costs each batch its
// two attempts, then the search ends and says why.
func TestTimeoutModelFailsTheBatchNotTheRun(t *testing.T) {
	var calls atomic.Int32
	hung := modelFunc(func(ctx context.Context, _ gs.ModelRequest) (gs.ModelResponse, error) {
		calls.Add(1)
		<-ctx.Done()
		return gs.ModelResponse{}, ctx.Err()
	})
	e, _ := newEngine(t, leafNamespace(1), gs.TimeoutModel{Model: hung, Name: "hung", Timeout: 10 * time.Millisecond})
	_, err := e.Search(context.Background(), oneBatchPerSummary(t, "q?", nil))
	require.Error(t, err)
	assert.Equal(t, gs.KindAllBatchesFailed, gs.KindOf(err))
	assert.Contains(t, err.Error(), "model hung did not answer within 10ms")
	assert.Equal(t, int32(gs.MapAttempts), calls.Load())
}

package globalsearch_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestProgressOnlyGoesUp: a batch that finishes while an earlier report is
// still being printed must not be reported out of order. The first report
// waits until a second one starts (or gives up after a while, which is what
// happens when reports cannot overlap); the reports must arrive 1, 2, ... n.
func TestProgressOnlyGoesUp(t *testing.T) {
	const batches = 6
	e, _ := newEngine(t, leafNamespace(batches), &fakeModel{complete: answerEverything})
	var (
		mu          sync.Mutex
		seen        []int
		secondBegan = make(chan struct{})
		once        sync.Once
	)
	e.Progress = func(done, total int) {
		assert.Equal(t, batches, total)
		if done == 1 {
			select {
			case <-secondBegan:
			case <-time.After(300 * time.Millisecond):
			}
		} else {
			once.Do(func() { close(secondBegan) })
		}
		mu.Lock()
		seen = append(seen, done)
		mu.Unlock()
	}
	p := oneBatchPerSummary(t, "What rose?", func(r *gs.Request) { c := 4; r.MapConcurrency = &c })
	_, err := e.Search(context.Background(), p)
	require.NoError(t, err)
	want := make([]int, batches)
	for i := range want {
		want[i] = i + 1
	}
	assert.Equal(t, want, seen)
}

// TestEveryBatchFailedGroupsMessages: many batches failing the same way
// print the message once with the count and the batch numbers.
func TestEveryBatchFailedGroupsMessages(t *testing.T) {
	tests := []struct {
		name    string
		batches int
		fail    func(content string) error
		want    string
	}{
		{
			name: "one message", batches: 5,
			fail: func(string) error { return errors.New("connection refused") },
			want: "every map batch failed (5 batches): batches 0-4 (5): connection refused",
		},
		{
			name: "two messages, ranges and singles", batches: 6,
			fail: func(content string) error {
				if strings.Contains(content, "Community ID: c2 ") || strings.Contains(content, "Community ID: c4 ") {
					return errors.New("quota exceeded")
				}
				return errors.New("connection refused")
			},
			want: "every map batch failed (6 batches): batches 0-1, 3, 5 (4): connection refused; batches 2, 4 (2): quota exceeded",
		},
		{
			name: "a single batch", batches: 1,
			fail: func(string) error { return errors.New("connection refused") },
			want: "every map batch failed (1 batch): batch 0: connection refused",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
				return gs.ModelResponse{}, tc.fail(req.Content)
			}}
			e, _ := newEngine(t, leafNamespace(tc.batches), model)
			res, err := e.Search(context.Background(), oneBatchPerSummary(t, "q?", nil))
			require.Error(t, err)
			assert.Equal(t, gs.KindAllBatchesFailed, gs.KindOf(err))
			assert.Equal(t, tc.want, err.Error())
			assert.Equal(t, tc.want, res.Error)
			assert.Len(t, res.MapErrors, tc.batches, "the result still has one error per batch")
		})
	}
}

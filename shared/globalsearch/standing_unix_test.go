//go:build unix

package globalsearch_test

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// A record file that cannot be read (garbage, half written, a link to
// /dev/zero, a named pipe, too large) refuses the run, naming the file,
// before any model call, and is left as it was: only standingReset
// starts a new baseline, which then replaces it
// (docs/contract.md#standing-questions).
func TestStandingUnreadableRecordRefusesTheRun(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, file string)
		want   string
	}{
		{"garbage", func(t *testing.T, file string) { require.NoError(t, os.WriteFile(file, []byte("garbage"), 0o600)) },
			"invalid character"},
		{"a half-written file", func(t *testing.T, file string) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(file, data[:len(data)/2], 0o600))
		}, "unexpected end of JSON input"},
		{"a link to /dev/zero", func(t *testing.T, file string) {
			require.NoError(t, os.Remove(file))
			require.NoError(t, os.Symlink("/dev/zero", file))
		}, "is a symbolic link, not a regular file"},
		{"a named pipe", func(t *testing.T, file string) {
			require.NoError(t, os.Remove(file))
			require.NoError(t, syscall.Mkfifo(file, 0o600))
		}, "is a named pipe, not a regular file"},
		{"an oversized file", func(t *testing.T, file string) { require.NoError(t, os.Truncate(file, 8<<20)) },
			"over the"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			model := &countingModel{}
			e, _, file := standingEngine(t, model)
			_, err := e.Search(ctx, standingParams(t, "q-1"))
			require.NoError(t, err)
			tc.damage(t, file)
			before, _ := os.Lstat(file)
			model.maps.Store(0)
			model.reduces.Store(0)

			for _, run := range []struct {
				name string
				call func() error
			}{
				{"plan", func() error { _, err := e.Plan(ctx, standingParams(t, "q-2")); return err }},
				{"run", func() error { _, err := e.Search(ctx, standingParams(t, "q-2")); return err }},
			} {
				err := run.call()
				require.Error(t, err, run.name)
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err), "%s: %v", run.name, err)
				var unreadable *gs.StandingRecordError
				require.ErrorAs(t, err, &unreadable, run.name)
				assert.Contains(t, err.Error(), file, "%s names the file", run.name)
				assert.Contains(t, err.Error(), tc.want, run.name)
				assert.Contains(t, err.Error(), "--standing-reset", run.name)
				assert.NotContains(t, err.Error(), "no previous run", run.name)
			}
			assert.Zero(t, model.maps.Load()+model.reduces.Load(), "refused before any model call")
			after, err := os.Lstat(file)
			require.NoError(t, err)
			assert.Equal(t, before.Mode(), after.Mode(), "the record is left as it was")
			assert.Equal(t, before.Size(), after.Size(), "the record is left as it was")

			res, err := e.Search(ctx, standingParams(t, "q-3", func(r *gs.Request) { r.StandingReset = ptr(true) }))
			require.NoError(t, err)
			require.Equal(t, gs.StatusCompleted, res.Status)
			assert.True(t, res.Diagnostics.Changes.Reset)
			assert.Empty(t, res.Diagnostics.Changes.PreviousQueryID)
			assert.Equal(t, "standing question nightly: reset, no previous run compared, 3 communities recorded as the new baseline; 3 of 3 batches re-mapped, 0 answers reused",
				res.Diagnostics.Changes.Line(true))
			fi, err := os.Lstat(file)
			require.NoError(t, err)
			assert.True(t, fi.Mode().IsRegular(), "the reset wrote a record file of its own")
			next, err := e.Search(ctx, standingParams(t, "q-4"))
			require.NoError(t, err)
			assert.Equal(t, "q-3", next.Diagnostics.Changes.PreviousQueryID, "the reset's record is the new baseline")
		})
	}
}

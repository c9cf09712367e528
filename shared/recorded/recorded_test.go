package recorded_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/recorded"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// countingReader yields fill forever and counts the bytes it gave.
type countingReader struct {
	fill byte
	read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.fill
	}
	c.read += int64(len(p))
	return len(p), nil
}

// A results file is read one value at a time and stops at its cap
// (docs/contract.md#calibrate): endless whitespace is refused as too large
// having read cap+1 bytes, and endless NULs (calibrate /dev/zero) as not
// JSON after the first buffer, where reading to the cap first held 256 MiB.
func TestDecodeStopsAtTheCap(t *testing.T) {
	t.Run("endless whitespace reads cap+1 bytes", func(t *testing.T) {
		src := &countingReader{fill: ' '}
		_, err := recorded.Decode(src, "spaces.json", 1<<20)
		require.Error(t, err)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		assert.EqualError(t, err, "spaces.json is larger than 1 MiB: no result is that large")
		assert.Equal(t, int64(1<<20)+1, src.read, "cap+1 bytes, not one more")
	})
	t.Run("endless NULs stop at the first value", func(t *testing.T) {
		src := &countingReader{}
		_, err := recorded.ReadFile("-", io.LimitReader(src, recorded.MaxFileBytes+1<<20))
		require.Error(t, err)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		assert.ErrorContains(t, err, "-: value 1 is not JSON")
		assert.LessOrEqual(t, src.read, int64(64<<10), "read before refusing")
	})
}

// A file is one result or several one after another; whitespace inside
// strings is kept.
func TestReadFile(t *testing.T) {
	text := `{"queryId":"q-1","diagnostics":{}}` + "\n\n   " + `{"queryId":"q-2","answer":"a  b\n","diagnostics":{},"newField":1}`
	file := filepath.Join(t.TempDir(), "results.json")
	require.NoError(t, os.WriteFile(file, []byte(text), 0o600))
	for name, stdin := range map[string]io.Reader{file: nil, "-": strings.NewReader(text)} {
		got, err := recorded.ReadFile(name, stdin)
		require.NoError(t, err, name)
		require.Len(t, got, 2)
		assert.Equal(t, "q-1", got[0].QueryID)
		assert.Equal(t, "q-2", got[1].QueryID)
		assert.Equal(t, "a  b\n", got[1].Answer)
	}
}

// Anything but results is invalid input naming the file.
func TestReadFileRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	tests := []struct{ name, file, want string }{
		{"missing file", filepath.Join(dir, "absent.json"), "read results: open "},
		{"empty file", write("empty.json", ""), "empty.json holds no result"},
		{"not JSON", write("bad.json", `{"queryId": "q-1", `), "bad.json: value 1 is not JSON"},
		{"a plan, not a result", write("plan.json", `{"summaryCount": 3, "batches": []}`),
			"plan.json: value 1 is not a result as run --json writes it: it has no queryId or no diagnostics"},
		{"a second value that is no result", write("two.json", `{"queryId":"q-1","diagnostics":{}} [1]`), "two.json: value 2 is not a result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := recorded.ReadFile(tc.file, nil)
			assert.Nil(t, got)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// brokenRuns fails every read, as a table that does not exist does.
type brokenRuns struct{ err error }

func (b brokenRuns) Result(context.Context, string) (globalsearch.Result, error) {
	return globalsearch.Result{}, b.err
}

// FromRuns reads results by query id, in the order given; an id without a
// result is the caller's mistake, any other failure the store's, wrapped.
func TestFromRuns(t *testing.T) {
	s := memstore.New()
	for _, id := range []string{"q-a", "q-b"} {
		require.NoError(t, s.SaveResult(t.Context(), globalsearch.Result{QueryID: id, Status: globalsearch.StatusCompleted}, ""))
	}
	got, err := recorded.FromRuns(t.Context(), s, "runs", []string{"q-b", "q-a"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []string{"q-b", "q-a"}, []string{got[0].QueryID, got[1].QueryID})

	_, err = recorded.FromRuns(t.Context(), s, "runs", []string{"q-a", "q-missing"})
	assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
	assert.EqualError(t, err, "query id q-missing has no result in table runs")

	broken := errors.New("no such table")
	_, err = recorded.FromRuns(t.Context(), brokenRuns{broken}, "runs", []string{"q-a"})
	assert.ErrorIs(t, err, broken)
	assert.EqualError(t, err, "read result of q-a: no such table")
}

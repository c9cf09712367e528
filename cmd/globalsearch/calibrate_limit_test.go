package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
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

// calibrate reads a results file one value at a time and stops at its cap
// (docs/contract.md#calibrate): endless whitespace is refused as too large
// having read cap+1 bytes, and endless NULs (calibrate /dev/zero) as not
// JSON after the first buffer, where reading to the cap first held 256 MiB.
func TestCalibrateStopsAtTheCap(t *testing.T) {
	t.Run("endless whitespace reads cap+1 bytes", func(t *testing.T) {
		src := &countingReader{fill: ' '}
		_, err := decodeResults(src, "spaces.json", 1<<20)
		require.Error(t, err)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		assert.EqualError(t, err, "spaces.json is larger than 1 MiB: no result is that large")
		assert.Equal(t, int64(1<<20)+1, src.read, "cap+1 bytes, not one more")
	})
	t.Run("endless NULs stop at the first value", func(t *testing.T) {
		src := &countingReader{}
		env := &cliEnv{stdin: io.LimitReader(src, maxResultFileBytes+1<<20)}
		_, err := readResults(env, "-")
		require.Error(t, err)
		assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
		assert.ErrorContains(t, err, "-: value 1 is not JSON")
		assert.LessOrEqual(t, src.read, int64(64<<10), "read before refusing")
	})
}

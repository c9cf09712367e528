package store

import (
	"crypto/sha256"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An object written from its parts reads, seeks and hashes as the joined
// bytes would, empty parts included.
func TestPartsReadAsJoined(t *testing.T) {
	tests := []struct {
		name  string
		parts parts
	}{
		{"none", nil},
		{"one", parts{"hello"}},
		{"several", parts{"ab", "cde", "f"}},
		{"empty parts between and around", parts{"", "ab", "", "", "c", ""}},
		{"only empty parts", parts{"", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			joined := strings.Join(tc.parts, "")
			assert.Equal(t, int64(len(joined)), tc.parts.size())
			assert.Equal(t, sha256.Sum256([]byte(joined)), tc.parts.digest())

			r := tc.parts.reader()
			got, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, joined, string(got))

			// What a retry does: back to the start, read it all again.
			_, err = r.Seek(0, io.SeekStart)
			require.NoError(t, err)
			again, err := io.ReadAll(iotestOneByte{r})
			require.NoError(t, err)
			assert.Equal(t, joined, string(again))

			for off := range len(joined) + 1 {
				for n := range len(joined) - off + 2 {
					buf := make([]byte, n)
					k, err := r.ReadAt(buf, int64(off))
					want := joined[off:min(off+n, len(joined))]
					assert.Equal(t, want, string(buf[:k]), "at %d, %d bytes", off, n)
					if off+n > len(joined) || off == len(joined) { // io.SectionReader: nothing is left at the end
						assert.ErrorIs(t, err, io.EOF, "past the end at %d, %d bytes", off, n)
					} else {
						assert.NoError(t, err, "at %d, %d bytes", off, n)
					}
				}
			}
		})
	}
}

// iotestOneByte reads one byte at a time, as a slow consumer would.
type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

package globalsearch_test

import (
	"bytes"
	"compress/gzip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestStandingRecordRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		keys, want []string
	}{
		{"with identity digests", []string{"01234567", "89abcdef"}, []string{"01234567", "89abcdef"}},
		{"a record of old, without them", []string{"", ""}, []string{"", ""}},
		{"one community without keeps none", []string{"01234567", ""}, []string{"", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := gs.StandingRecord{Namespace: "default", Name: "nightly", QueryID: "q-1", StartedAt: time.Date(2026, 12, 1, 2, 0, 0, 5, time.UTC),
				Communities: []gs.CommunityHash{{ID: "a", Hash: "0123456789abcdef", Batch: 0, Key: tc.keys[0]}, {ID: "b", Hash: "fedcba9876543210", Batch: 3, Key: tc.keys[1]}}}
			data, err := gs.EncodeStandingRecord(r)
			require.NoError(t, err)
			got, err := gs.DecodeStandingRecord(data)
			require.NoError(t, err)
			for i := range r.Communities {
				r.Communities[i].Key = tc.want[i]
			}
			assert.Equal(t, r, got)
		})
	}
}

// Anything but what EncodeStandingRecord wrote is an error, never a record
// that compares wrongly.
func TestStandingRecordRefusals(t *testing.T) {
	tests := []struct {
		name string
		data func(t *testing.T) []byte
		want string
	}{
		{"not gzip", func(*testing.T) []byte { return []byte("not gzip at all") }, "read standing record: gzip: invalid header"},
		{"not JSON", func(t *testing.T) []byte { return gzipped(t, "{half") }, "read standing record: invalid character 'h' looking for beginning of object key string"},
		{"columns of different lengths", func(t *testing.T) []byte {
			return gzipped(t, `{"name":"n","ids":["a","b"],"hashes":"AAAAAAAAAAA=","batches":[0,0]}`)
		}, "standing record n is damaged: 2 ids, 8 hash bytes, 2 batches, 0 key bytes"},
		{"a keys column of another length", func(t *testing.T) []byte {
			return gzipped(t, `{"name":"n","ids":["a","b"],"hashes":"AAAAAAAAAAAAAAAAAAAAAA==","batches":[0,0],"keys":"AAAAAA=="}`)
		}, "standing record n is damaged: 2 ids, 16 hash bytes, 2 batches, 4 key bytes"},
		{"ids out of order", func(t *testing.T) []byte {
			return gzipped(t, `{"name":"n","ids":["b","a"],"hashes":"AAAAAAAAAAAAAAAAAAAAAA==","batches":[0,0]}`)
		}, "standing record n is damaged: its ids are not in order"},
		{"over the cap", func(*testing.T) []byte { return make([]byte, gs.MaxStandingRecordBytes+1) }, "standing record is 358401 bytes, over the 358400-byte cap"},
		{"decompresses past its bound", func(t *testing.T) []byte { return gzipped(t, string(make([]byte, 33<<20))) },
			"standing record holds more than 33554432 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gs.DecodeStandingRecord(tc.data(t))
			assert.EqualError(t, err, tc.want)
		})
	}
	_, err := gs.EncodeStandingRecord(gs.StandingRecord{Name: "n", Communities: []gs.CommunityHash{{ID: "a", Hash: "xyz"}}})
	assert.Equal(t, gs.KindInternal, gs.KindOf(err))
	assert.EqualError(t, err, `standing record n: community "a" has hash "xyz", not 16 hex digits`)
}

func TestChangesLine(t *testing.T) {
	at := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		changes gs.Changes
		mapped  bool
		want    string
	}{
		{"a first run", gs.Changes{StandingQuery: "nightly", Communities: 1, BatchesRemapped: 1}, true,
			"standing question nightly: no previous run to compare, 1 community recorded; 1 of 1 batch re-mapped, 0 answers reused"},
		{"a later run", gs.Changes{StandingQuery: "nightly", PreviousQueryID: "q-1", PreviousStartedAt: &at, Communities: 6,
			Added: gs.CommunityChanges{Count: 1}, Removed: gs.CommunityChanges{Count: 2}, Changed: gs.CommunityChanges{Count: 3}, Unchanged: 1,
			BatchesRemapped: 4, AnswersReused: 1}, true,
			"changes since q-1: 1 community added, 2 removed, 3 changed, 1 unchanged; 4 of 5 batches re-mapped, 1 answer reused"},
		{"a renumbered index", gs.Changes{StandingQuery: "nightly", PreviousQueryID: "q-1", Communities: 3, Changed: gs.CommunityChanges{Count: 1},
			Unchanged: 2, Renumbered: 3}, false,
			"changes since q-1: 0 communities added, 0 removed, 1 changed, 2 unchanged (3 under new ids)"},
		{"a plan", gs.Changes{StandingQuery: "nightly", PreviousQueryID: "q-1", Communities: 2, Unchanged: 2}, false,
			"changes since q-1: 0 communities added, 0 removed, 0 changed, 2 unchanged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.changes.Line(tc.mapped))
		})
	}
}

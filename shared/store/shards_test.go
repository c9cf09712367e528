package store

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShardNames(t *testing.T) {
	cases := []struct {
		name       string
		version    string
		shards     int
		partitions []string
	}{
		{name: "one shard keeps the partition of old", version: "0a", shards: 1, partitions: []string{"ns#0a"}},
		{name: "the legacy partition", version: legacyVersion, shards: 1, partitions: []string{"ns"}},
		{name: "a head that never switched", version: "", shards: 1, partitions: []string{"ns"}},
		{name: "three shards", version: "0a-3", shards: 3, partitions: []string{"ns#0a-3#0", "ns#0a-3#1", "ns#0a-3#2"}},
		{name: "a count that is no number reads as one shard", version: "0a-x", shards: 1, partitions: []string{"ns#0a-x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.shards, shardsOf(tc.version))
			assert.Equal(t, tc.partitions, versionPartitions("ns", tc.version))
			for _, sk := range []string{"summary#a", "claim#b", "chunk#c"} {
				assert.Contains(t, tc.partitions, recordPartition("ns", tc.version, sk), "%s is in one of the version's partitions", sk)
			}
		})
	}
}

func TestShardCount(t *testing.T) {
	cases := []struct {
		perShard, total int64
		want            int
	}{
		{0, 1, 1},
		{0, DefaultShardBytes, 1},
		{0, DefaultShardBytes + 1, 2},
		{0, 250 << 20, 16},
		{0, 10 << 30, maxShards},
		{1000, 0, 1},
		{1000, 4500, 5},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d of %d", tc.total, tc.perShard), func(t *testing.T) {
			c := NewClient(nil, WithShardBytes(tc.perShard))
			assert.Equal(t, tc.want, c.shardCount(tc.total))
			assert.Equal(t, tc.want, shardsOf(shardedVersion("0a", tc.want)), "the name carries the count")
		})
	}
}

// The hash spreads records evenly: no shard of 8 holds twice its share of
// 8,000 sort keys.
func TestShardSpread(t *testing.T) {
	counts := map[string]int{}
	for i := range 8000 {
		counts[recordPartition("ns", "0a-8", fmt.Sprintf("summary#c%05d", i))]++
	}
	assert.Len(t, counts, 8)
	for p, n := range counts {
		assert.Less(t, n, 2000, "partition %s", p)
		assert.Greater(t, n, 500, "partition %s", p)
	}
}

// TestMergeBySortKey: parts each in sort-key order merge into one list in
// that order, whatever their sizes, as a sort of them all would give.
func TestMergeSorted(t *testing.T) {
	tests := []struct {
		name  string
		parts [][]string
		want  []string
	}{
		{"none", nil, []string{}},
		{"empty parts", [][]string{{}, {}}, []string{}},
		{"one part", [][]string{{"a", "b"}}, []string{"a", "b"}},
		{"interleaved", [][]string{{"a", "c", "e"}, {"b", "d"}, {}, {"f"}}, []string{"a", "b", "c", "d", "e", "f"}},
		{"one part first", [][]string{{"x", "y"}, {"a", "b"}}, []string{"a", "b", "x", "y"}},
		{"byte order, as DynamoDB sorts", [][]string{{"B", "b"}, {"a"}}, []string{"B", "a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, mergeSorted(tc.parts, func(s *string) string { return *s }))
		})
	}
}

package store

import (
	"container/heap"
	"context"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// A version larger than one shard is spread over several partitions,
// "namespace#version#k" for shard k (docs/dynamodb.md#shards): DynamoDB
// serves one partition key 3,000 read units and 1,000 write units a second,
// so a 250 MB version in one partition takes at least 10 s to read
// (eventually consistent) and 4 minutes to write, however many requests
// are in flight. A record's shard is a CRC-32C of its sort key, so a
// chunk's key is computed from its id (BatchGetItem needs no Query), and
// the version's name carries its shard count, so every reader and the
// deletion of a retired version know the partitions without another read.
const (
	// DefaultShardBytes is the most record bytes one shard holds, as
	// DynamoDB sizes items: 16 MiB is 2,048 eventually consistent read
	// units, within one partition's second of burst, so a shard reads in
	// one round of Query pages rather than at the partition's rate.
	DefaultShardBytes = 16 << 20
	// maxShards bounds the Queries one read of a kind sends at once; past
	// 32 shards (512 MiB) a shard grows instead.
	maxShards = 32
	// shardSep separates a version's generated name from its shard count;
	// generated names are hex, so it occurs in no other version.
	shardSep = "-"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WithShardBytes sets the most record bytes one shard of a version holds
// (default DefaultShardBytes). Tests set it small to spread a few records
// over several partitions.
func WithShardBytes(n int64) Option { return func(c *Client) { c.shardBytes = n } }

// shardCount is how many shards records of total bytes take.
func (s *Client) shardCount(total int64) int {
	per := s.shardBytes
	if per <= 0 {
		per = DefaultShardBytes
	}
	return int(min(max((total+per-1)/per, 1), maxShards))
}

// shardedVersion is the name of a version of shards shards.
func shardedVersion(version string, shards int) string {
	if shards <= 1 {
		return version
	}
	return version + shardSep + strconv.Itoa(shards)
}

// shardsOf is the shard count a version's name carries: 1 for a name
// without one (every version written before shards, and "legacy").
func shardsOf(version string) int {
	_, count, ok := strings.Cut(version, shardSep)
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// versionPartitions are the partitions holding a version's records.
func versionPartitions(namespace, version string) []string {
	n := shardsOf(version)
	if n == 1 {
		return []string{versionPartition(namespace, version)}
	}
	out := make([]string, n)
	for k := range out {
		out[k] = shardPartition(namespace, version, k)
	}
	return out
}

func shardPartition(namespace, version string, k int) string {
	return fmt.Sprintf("%s#%s#%d", namespace, version, k)
}

// recordPartition is the partition of the record at sort key sk.
func recordPartition(namespace, version, sk string) string {
	n := shardsOf(version)
	if n == 1 {
		return versionPartition(namespace, version)
	}
	return shardPartition(namespace, version, int(crc32.Checksum([]byte(sk), castagnoli)%uint32(n)))
}

// eachPartition runs read on every partition of a version at once and
// returns their records in sort-key order, the order one partition's Query
// gives, so a sharded version reads exactly as an unsharded one. A
// partition holds one kind's records under one prefix, so their sort keys
// are in the order of key, their ids.
func eachPartition[R any](ctx context.Context, partitions []string, read func(ctx context.Context, partition string) ([]R, error), key func(*R) string) ([]R, error) {
	if len(partitions) == 1 {
		return read(ctx, partitions[0])
	}
	parts := make([][]R, len(partitions))
	g, gctx := errgroup.WithContext(ctx)
	for k, p := range partitions {
		g.Go(func() (err error) {
			parts[k], err = read(gctx, p)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return mergeSorted(parts, key), nil
}

// mergeSorted merges parts, each in the order of key as a partition's
// Query returns it, into one list in that order. Each record's key is read
// once: sorting the concatenation looked keys up in every comparison, 1.2 s
// of a 100,000-summary prepare's CPU (docs/scale.md#first-map-call-components).
func mergeSorted[R any](parts [][]R, key func(*R) string) []R {
	heads := make(mergeHeads[R], 0, len(parts))
	n := 0
	for _, p := range parts {
		n += len(p)
		if len(p) > 0 {
			heads = append(heads, mergeHead[R]{key: key(&p[0]), rest: p})
		}
	}
	heap.Init(&heads)
	all := make([]R, 0, n)
	for len(heads) > 0 {
		h := &heads[0]
		all = append(all, h.rest[0])
		if h.rest = h.rest[1:]; len(h.rest) > 0 {
			h.key = key(&h.rest[0])
			heap.Fix(&heads, 0)
		} else {
			heap.Pop(&heads)
		}
	}
	return all
}

// mergeHead is one part's next record's key and the part from that record on.
type mergeHead[R any] struct {
	key  string
	rest []R
}

// mergeHeads is a min-heap of parts by their next record's key.
type mergeHeads[R any] []mergeHead[R]

func (h mergeHeads[R]) Len() int           { return len(h) }
func (h mergeHeads[R]) Less(i, j int) bool { return h[i].key < h[j].key }
func (h mergeHeads[R]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeads[R]) Push(x any)        { *h = append(*h, x.(mergeHead[R])) }
func (h *mergeHeads[R]) Pop() any {
	old := *h
	last := old[len(old)-1]
	*h = old[:len(old)-1]
	return last
}

func sortKey(it item) string {
	if sk, ok := it[attrSK].(*types.AttributeValueMemberS); ok {
		return sk.Value
	}
	return ""
}

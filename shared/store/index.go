package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// indexKey is the key of an index-table item; the record's own fields sit
// beside it in the item types below, which write the domain records under
// their stored attribute names (the domain types know nothing of
// DynamoDB); itemdecode.go reads them back.
type indexKey struct {
	Namespace string `dynamodbav:"namespace"`
	SK        string `dynamodbav:"sk"`
}

type summaryItem struct {
	indexKey
	ID                string  `dynamodbav:"id"`
	Level             int     `dynamodbav:"level"`
	ParentCommunityID string  `dynamodbav:"parentCommunityId,omitempty"`
	Title             string  `dynamodbav:"title,omitempty"`
	Summary           string  `dynamodbav:"summary"`
	Rank              float64 `dynamodbav:"rank,omitempty"`
	Size              int     `dynamodbav:"size,omitempty"`
	ShortSummary      string  `dynamodbav:"shortSummary,omitempty"`
}

type claimItem struct {
	indexKey
	ID             string   `dynamodbav:"id"`
	CommunityID    string   `dynamodbav:"communityId"`
	Subject        string   `dynamodbav:"subject"`
	Object         string   `dynamodbav:"object,omitempty"`
	Description    string   `dynamodbav:"description"`
	SourceChunkIDs []string `dynamodbav:"sourceChunkIds"`
}

type chunkItem struct {
	indexKey
	ID         string `dynamodbav:"id"`
	Text       string `dynamodbav:"text"`
	DocumentID string `dynamodbav:"documentId,omitempty"`
	// TextUnitID and DocumentTitle are omitted when empty, so a chunk
	// without them is the item it always was.
	TextUnitID    string `dynamodbav:"textUnitId,omitempty"`
	DocumentTitle string `dynamodbav:"documentTitle,omitempty"`
}

// decodeError is an item a read found but could not decode: a corrupt
// index, which the error says instead of calling it a failed read.
type decodeError struct{ err error }

func (e decodeError) Error() string { return e.err.Error() }
func (e decodeError) Unwrap() error { return e.err }

// appendDecoded appends to out the domain records of items, as decode
// reads one.
func appendDecoded[R any](out []R, items []item, decode func(item) (R, error)) ([]R, error) {
	for _, it := range items {
		r, err := decode(it)
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", sortKey(it), err)
		}
		out = append(out, r)
	}
	return out, nil
}

// head is what a namespace's head item says. Version "" is the legacy
// partition (no head, or a head that never switched). Counts are the
// current version's, nil on a head saved before heads had them.
type head struct {
	Version          string
	Pending, Retired []string
	Counts           *recordCounts
}

// recordCounts are how many records of each kind a version holds, which the
// switch to it records on the head (docs/contract.md#namespace-versions). A
// version's records are all written before the switch and never change, so
// an eventually consistent read of them returns a subset (a replica behind
// the leader lacks some), and one that returns as many as the head says
// returned all of them.
type recordCounts struct {
	Summaries int `dynamodbav:"summaries"`
	Claims    int `dynamodbav:"claims"`
	Chunks    int `dynamodbav:"chunks"`
	// ChunkBytes is the size of the chunk items together, as DynamoDB
	// counts it: what a Query of every chunk costs (chunksByQuery).
	ChunkBytes int64 `dynamodbav:"chunkBytes"`
	// Entities and Relationships are absent (0) on a head saved before
	// the graph was stored, whose versions hold none.
	Entities      int `dynamodbav:"entities,omitempty"`
	Relationships int `dynamodbav:"relationships,omitempty"`
}

// decodeHead reads a head item by hand: DynamoDB drops a set that a DELETE
// empties, and an emulator that keeps it in another shape must read as
// that empty set too.
func decodeHead(it item) head {
	var h head
	if v, ok := it[attrVersion].(*types.AttributeValueMemberS); ok {
		h.Version = v.Value
	}
	if v, ok := it[attrPending].(*types.AttributeValueMemberSS); ok {
		h.Pending = v.Value
	}
	if v, ok := it[attrRetired].(*types.AttributeValueMemberSS); ok {
		h.Retired = v.Value
	}
	var c recordCounts
	if v, ok := it[attrCounts].(*types.AttributeValueMemberM); ok && attributevalue.UnmarshalMap(v.Value, &c) == nil && h.Version != "" {
		h.Counts = &c
	}
	return h
}

// readHead reads a namespace's head with one strongly consistent Query (the
// read prepare's policy allows, docs/contract.md#namespace-versions): an
// eventually consistent read could name a version already replaced and
// being deleted, twice in a row.
func (s *Index) readHead(ctx context.Context, namespace string) (head, error) {
	items, err := s.queryAll(ctx, s.table, expression.NewBuilder().WithKeyCondition(
		expression.Key(attrNamespace).Equal(expression.Value(namespace)).
			And(expression.Key(attrSK).Equal(expression.Value(headSK)))), true)
	if err != nil {
		return head{}, wrap(err, "read the version of namespace %s", namespace)
	}
	if len(items) == 0 {
		return head{}, nil
	}
	return decodeHead(items[0]), nil
}

// Open implements globalsearch.Index: one Query for the head, then every
// read of the snapshot is of the version it names.
func (s *Index) Open(ctx context.Context, namespace string) (globalsearch.Snapshot, error) {
	if namespace == "" {
		// DynamoDB refuses an empty key; an empty name is a namespace that
		// cannot exist, which reads as empty.
		return &snapshot{s: s}, nil
	}
	h, err := s.readHead(ctx, namespace)
	if err != nil {
		return nil, err
	}
	return &snapshot{s: s, namespace: namespace, version: h.Version, counts: h.Counts}, nil
}

// snapshot reads one version of a namespace; counts, when its head has
// them, let its reads be eventually consistent (readKind).
type snapshot struct {
	s                  *Index
	namespace, version string
	counts             *recordCounts
}

// Version implements globalsearch.VersionedSnapshot.
func (v *snapshot) Version() string { return v.version }

// Summaries implements globalsearch.Snapshot. They come back in id byte
// order.
func (v *snapshot) Summaries(ctx context.Context) ([]globalsearch.Summary, error) {
	return readKind(ctx, v, prefixSummary, "summaries", func(c recordCounts) int { return c.Summaries },
		decodeSummary, func(s *globalsearch.Summary) string { return s.ID })
}

// Claims implements globalsearch.Snapshot. They come back in id byte order.
func (v *snapshot) Claims(ctx context.Context) ([]globalsearch.Claim, error) {
	return readKind(ctx, v, prefixClaim, "claims", func(c recordCounts) int { return c.Claims },
		decodeClaim, func(c *globalsearch.Claim) string { return c.ID })
}

// Intact implements globalsearch.Snapshot: versions never repeat and a
// version's records are deleted only after the head has moved past it, so
// a head that still names the version proves every read saw it whole.
func (v *snapshot) Intact(ctx context.Context) (bool, error) {
	if v.namespace == "" {
		return true, nil
	}
	h, err := v.s.readHead(ctx, v.namespace)
	if err != nil {
		return false, err
	}
	return h.Version == v.version, nil
}

// readKind reads every record of one kind with a paginated Query on the
// sort-key prefix: one request per page, never a Scan. When the head
// counted the version's records (of this kind: count), the Query is
// eventually consistent, half the read units of a strongly consistent one,
// and one that comes back short is read again strongly consistent
// (docs/contract.md#namespace-versions); otherwise it is strongly
// consistent, as a search reads a version right after the switch to it.
// Each page is decoded as it arrives, so a version's items are never all
// held at once beside its records: at 100,000 summaries they were most of
// prepare's peak memory, and the heap they grew faulted in page by page.
func readKind[R any](ctx context.Context, v *snapshot, prefix, what string, count func(recordCounts) int,
	decode func(item) (R, error), id func(*R) string) ([]R, error) {
	if v.namespace == "" {
		return []R{}, nil
	}
	query := func(consistent bool) ([]R, error) {
		return eachPartition(ctx, versionPartitions(v.namespace, v.version), func(ctx context.Context, partition string) ([]R, error) {
			var out []R
			err := v.s.queryPages(ctx, v.s.table, expression.NewBuilder().WithKeyCondition(
				expression.Key(attrNamespace).Equal(expression.Value(partition)).
					And(expression.Key(attrSK).BeginsWith(prefix))), consistent, func(page []item) error {
				var err error
				if out, err = appendDecoded(out, page, decode); err != nil {
					return decodeError{err}
				}
				return nil
			})
			return out, err
		}, id)
	}
	out, err := query(v.counts == nil)
	if err == nil && v.counts != nil && len(out) != count(*v.counts) {
		out, err = query(true)
	}
	var undecodable decodeError
	switch {
	case errors.As(err, &undecodable):
		return nil, fmt.Errorf("decode %s of namespace %s: %w", what, v.namespace, undecodable.err)
	case err != nil:
		return nil, wrap(err, "read %s of namespace %s", what, v.namespace)
	case out == nil:
		return []R{}, nil // none is an empty list, as it always read
	}
	return out, nil
}

// Chunks implements globalsearch.Snapshot: one BatchGetItem per 100
// distinct ids, eventually consistent when the head counted the version's
// records; the ids such a read did not find are asked again strongly
// consistent, as a replica behind the leader may lack them.
func (v *snapshot) Chunks(ctx context.Context, ids []string) ([]globalsearch.Chunk, error) {
	if v.namespace == "" || len(ids) == 0 {
		return []globalsearch.Chunk{}, nil
	}
	seen := make(map[string]bool, len(ids))
	keys := make([]item, 0, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue // a batch may not name a key twice
		}
		seen[id] = true
		if v.queryChunks(len(seen)) {
			return v.chunksByQuery(ctx, ids)
		}
		sk := prefixChunk + id
		key, err := attributevalue.MarshalMap(indexKey{Namespace: recordPartition(v.namespace, v.version, sk), SK: sk})
		if err != nil {
			return nil, fmt.Errorf("encode key of chunk %s: %w", id, err)
		}
		keys = append(keys, key)
	}
	items, err := v.s.batchGet(ctx, v.s.table, keys, v.counts == nil)
	if err == nil && v.counts != nil && len(items) < len(keys) {
		var more []item
		more, err = v.s.batchGet(ctx, v.s.table, notFound(keys, items), true)
		items = append(items, more...)
	}
	if err != nil {
		return nil, fmt.Errorf("read chunks of namespace %s: %w", v.namespace, err)
	}
	out, err := appendDecoded(make([]globalsearch.Chunk, 0, len(items)), items, decodeChunk)
	if err != nil {
		return nil, fmt.Errorf("decode chunks of namespace %s: %w", v.namespace, err)
	}
	return out, nil
}

// queryChunks reports whether a Query of every chunk of the version costs
// fewer read units than a BatchGetItem of n of them: BatchGetItem charges
// each item by the 4 KB unit, rounded up, a Query the items' total size,
// so when many small chunks are cited, reading them all is cheaper (and
// on one partition's 3,000 units a second, faster) than asking for each.
func (v *snapshot) queryChunks(n int) bool {
	return v.counts != nil && v.counts.ChunkBytes > 0 && (v.counts.ChunkBytes+readUnitBytes-1)/readUnitBytes < int64(n)
}

// readUnitBytes is what one read unit reads.
const readUnitBytes = 4096

// chunksByQuery reads every chunk of the version (readKind, checked
// against the head's count) and keeps those of ids.
func (v *snapshot) chunksByQuery(ctx context.Context, ids []string) ([]globalsearch.Chunk, error) {
	all, err := readKind(ctx, v, prefixChunk, "chunks", func(c recordCounts) int { return c.Chunks },
		decodeChunk, func(c *globalsearch.Chunk) string { return c.ID })
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	out := all[:0]
	for _, c := range all {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	return out, nil
}

// notFound are the keys no item of found has.
func notFound(keys, found []item) []item {
	have := make(map[string]bool, len(found))
	for _, it := range found {
		if sk, ok := it[attrSK].(*types.AttributeValueMemberS); ok {
			have[sk.Value] = true
		}
	}
	var out []item
	for _, k := range keys {
		if sk, ok := k[attrSK].(*types.AttributeValueMemberS); !ok || !have[sk.Value] {
			out = append(out, k)
		}
	}
	return out
}

// Summaries reads the summaries of a namespace's current version (Open,
// then read): for callers that read one kind.
func (s *Index) Summaries(ctx context.Context, namespace string) ([]globalsearch.Summary, error) {
	v, err := s.Open(ctx, namespace)
	if err != nil {
		return nil, err
	}
	return v.Summaries(ctx)
}

// Claims reads the claims of a namespace's current version.
func (s *Index) Claims(ctx context.Context, namespace string) ([]globalsearch.Claim, error) {
	v, err := s.Open(ctx, namespace)
	if err != nil {
		return nil, err
	}
	return v.Claims(ctx)
}

// Chunks reads chunks of a namespace's current version.
func (s *Index) Chunks(ctx context.Context, namespace string, ids []string) ([]globalsearch.Chunk, error) {
	v, err := s.Open(ctx, namespace)
	if err != nil {
		return nil, err
	}
	return v.Chunks(ctx, ids)
}

// Namespaces implements globalsearch.NamespaceLister with one Query (the
// only read the prepare function's policy allows besides BatchGetItem). It
// lists the namespaces ingested since the catalog existed.
func (s *Index) Namespaces(ctx context.Context) ([]string, error) {
	items, err := s.queryAll(ctx, s.table, expression.NewBuilder().WithKeyCondition(
		expression.Key(attrNamespace).Equal(expression.Value(catalogNamespace)).
			And(expression.Key(attrSK).Equal(expression.Value(catalogSK)))), false)
	if err != nil {
		return nil, wrap(err, "read the namespace list")
	}
	names := []string{}
	for _, it := range items {
		if set, ok := it[catalogNames].(*types.AttributeValueMemberSS); ok {
			names = append(names, set.Value...)
		}
	}
	return names, nil
}

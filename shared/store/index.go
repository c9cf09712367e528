package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// indexKey is the key of an index-table item; the record's own fields sit
// beside it in the item types below, which map the domain records to their
// stored attribute names (the domain types know nothing of DynamoDB).
type indexKey struct {
	Namespace string `dynamodbav:"namespace"`
	SK        string `dynamodbav:"sk"`
}

type summaryItem struct {
	indexKey
	ID                string `dynamodbav:"id"`
	Level             int    `dynamodbav:"level"`
	ParentCommunityID string `dynamodbav:"parentCommunityId,omitempty"`
	Title             string `dynamodbav:"title,omitempty"`
	Summary           string `dynamodbav:"summary"`
}

func (it summaryItem) record() globalsearch.Summary {
	return globalsearch.Summary{ID: it.ID, Level: it.Level, ParentCommunityID: it.ParentCommunityID, Title: it.Title, Summary: it.Summary}
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

func (it claimItem) record() globalsearch.Claim {
	return globalsearch.Claim{ID: it.ID, CommunityID: it.CommunityID, Subject: it.Subject, Object: it.Object, Description: it.Description, SourceChunkIDs: it.SourceChunkIDs}
}

type chunkItem struct {
	indexKey
	ID         string `dynamodbav:"id"`
	Text       string `dynamodbav:"text"`
	DocumentID string `dynamodbav:"documentId,omitempty"`
}

func (it chunkItem) record() globalsearch.Chunk {
	return globalsearch.Chunk{ID: it.ID, Text: it.Text, DocumentID: it.DocumentID}
}

// storedItem is an item type that turns back into its domain record.
type storedItem[R any] interface {
	record() R
}

// records decodes items into their domain records.
func records[I storedItem[R], R any](items []item) ([]R, error) {
	var decoded []I
	if err := attributevalue.UnmarshalListOfMaps(items, &decoded); err != nil {
		return nil, err
	}
	out := make([]R, len(decoded))
	for i, it := range decoded {
		out[i] = it.record()
	}
	return out, nil
}

// Summaries implements globalsearch.Index. They come back in id byte order.
func (s *Store) Summaries(ctx context.Context, namespace string) ([]globalsearch.Summary, error) {
	return readKind[summaryItem, globalsearch.Summary](ctx, s, namespace, prefixSummary, "summaries")
}

// Claims implements globalsearch.Index. They come back in id byte order.
func (s *Store) Claims(ctx context.Context, namespace string) ([]globalsearch.Claim, error) {
	return readKind[claimItem, globalsearch.Claim](ctx, s, namespace, prefixClaim, "claims")
}

// readKind reads every record of one kind with a paginated Query on the
// sort-key prefix: one request per page, never a Scan.
func readKind[I storedItem[R], R any](ctx context.Context, s *Store, namespace, prefix, what string) ([]R, error) {
	if namespace == "" {
		// DynamoDB refuses an empty key; an empty name is a namespace that
		// cannot exist, which reads as empty.
		return []R{}, nil
	}
	items, err := s.queryAll(ctx, s.tables.Index, expression.NewBuilder().WithKeyCondition(
		expression.Key(attrNamespace).Equal(expression.Value(namespace)).
			And(expression.Key(attrSK).BeginsWith(prefix))), false)
	if err != nil {
		return nil, wrap(err, "read %s of namespace %s", what, namespace)
	}
	out, err := records[I](items)
	if err != nil {
		return nil, fmt.Errorf("decode %s of namespace %s: %w", what, namespace, err)
	}
	return out, nil
}

// Chunks implements globalsearch.Index: one BatchGetItem per 100 distinct
// ids.
func (s *Store) Chunks(ctx context.Context, namespace string, ids []string) ([]globalsearch.Chunk, error) {
	if namespace == "" || len(ids) == 0 {
		return []globalsearch.Chunk{}, nil
	}
	seen := make(map[string]bool, len(ids))
	keys := make([]item, 0, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue // a batch may not name a key twice
		}
		seen[id] = true
		key, err := attributevalue.MarshalMap(indexKey{Namespace: namespace, SK: prefixChunk + id})
		if err != nil {
			return nil, fmt.Errorf("encode key of chunk %s: %w", id, err)
		}
		keys = append(keys, key)
	}
	items, err := s.batchGet(ctx, s.tables.Index, keys)
	if err != nil {
		return nil, fmt.Errorf("read chunks of namespace %s: %w", namespace, err)
	}
	out, err := records[chunkItem](items)
	if err != nil {
		return nil, fmt.Errorf("decode chunks of namespace %s: %w", namespace, err)
	}
	return out, nil
}

// ReplaceNamespace implements globalsearch.IndexWriter. Nothing is written
// unless every record is valid and every item fits DynamoDB's 400 KB limit.
//
// It writes the new records (overwriting those with the same kind and id),
// then deletes the old records that are not in the new set. DynamoDB has no
// transaction this large, so while it runs a reader can see a mix: new
// versions of records already written, old versions of records not yet
// written, and old records due for deletion. Once it returns, readers see
// exactly the new set. Two ingests of one namespace must not run at once.
func (s *Store) ReplaceNamespace(ctx context.Context, namespace string, r globalsearch.Records) error {
	if namespace == "" {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace must not be empty")
	}
	if err := r.Validate(); err != nil {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace %s: %w", namespace, err)
	}
	puts := make([]types.WriteRequest, 0, len(r.Summaries)+len(r.Claims)+len(r.Chunks))
	keep := make(map[string]bool, cap(puts))
	add := func(kind, prefix, id string, v any) error {
		it, err := attributevalue.MarshalMap(v)
		if err != nil {
			return fmt.Errorf("namespace %s: encode %s %q: %w", namespace, kind, id, err)
		}
		if err := checkSize(fmt.Sprintf("namespace %s: %s %q", namespace, kind, id), it); err != nil {
			return err
		}
		puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		keep[prefix+id] = true
		return nil
	}
	key := func(prefix, id string) indexKey { return indexKey{Namespace: namespace, SK: prefix + id} }
	for _, v := range r.Summaries {
		if err := add("summary", prefixSummary, v.ID, summaryItem{key(prefixSummary, v.ID), v.ID, v.Level, v.ParentCommunityID, v.Title, v.Summary}); err != nil {
			return err
		}
	}
	for _, v := range r.Claims {
		if err := add("claim", prefixClaim, v.ID, claimItem{key(prefixClaim, v.ID), v.ID, v.CommunityID, v.Subject, v.Object, v.Description, v.SourceChunkIDs}); err != nil {
			return err
		}
	}
	for _, v := range r.Chunks {
		if err := add("chunk", prefixChunk, v.ID, chunkItem{key(prefixChunk, v.ID), v.ID, v.Text, v.DocumentID}); err != nil {
			return err
		}
	}

	old, err := s.namespaceKeys(ctx, namespace)
	if err != nil {
		return err
	}
	if err := s.batchWrite(ctx, s.tables.Index, puts); err != nil {
		return fmt.Errorf("namespace %s: write records: %w", namespace, err)
	}
	var deletes []types.WriteRequest
	for _, k := range old {
		if keep[k.SK] {
			continue
		}
		it, err := attributevalue.MarshalMap(k)
		if err != nil {
			return fmt.Errorf("namespace %s: encode key %s: %w", namespace, k.SK, err)
		}
		deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: it}})
	}
	if err := s.batchWrite(ctx, s.tables.Index, deletes); err != nil {
		return fmt.Errorf("namespace %s: delete records of the previous index: %w", namespace, err)
	}
	// Listed once its records are written, unlisted once they are deleted,
	// so the catalog never names a namespace that was not there.
	if err := s.catalog(ctx, namespace, len(puts) > 0); err != nil {
		return fmt.Errorf("namespace %s: records replaced, but the namespace list was not updated (ingest again to fix it): %w", namespace, err)
	}
	return nil
}

// catalog adds a namespace to the catalog or removes it, atomically (a
// string set's ADD and DELETE), so ingests of different namespaces may run
// at once.
func (s *Store) catalog(ctx context.Context, namespace string, listed bool) error {
	key, err := attributevalue.MarshalMap(indexKey{Namespace: catalogNamespace, SK: catalogSK})
	if err != nil {
		return err
	}
	update := expression.Add(expression.Name(catalogNames), expression.Value(&types.AttributeValueMemberSS{Value: []string{namespace}}))
	if !listed {
		update = expression.Delete(expression.Name(catalogNames), expression.Value(&types.AttributeValueMemberSS{Value: []string{namespace}}))
	}
	expr, err := expression.NewBuilder().WithUpdate(update).Build()
	if err != nil {
		return fmt.Errorf("build namespace list update: %w", err)
	}
	_, err = s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.tables.Index,
		Key:                       key,
		UpdateExpression:          expr.Update(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	})
	if err != nil {
		return wrap(err, "update the namespace list")
	}
	return nil
}

// Namespaces implements globalsearch.NamespaceLister with one Query (the
// only read the prepare function's policy allows besides BatchGetItem). It
// lists the namespaces ingested since the catalog existed.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	items, err := s.queryAll(ctx, s.tables.Index, expression.NewBuilder().WithKeyCondition(
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

// namespaceKeys lists the keys of every item of a namespace, reading only
// the keys.
func (s *Store) namespaceKeys(ctx context.Context, namespace string) ([]indexKey, error) {
	items, err := s.queryAll(ctx, s.tables.Index, expression.NewBuilder().
		WithKeyCondition(expression.Key(attrNamespace).Equal(expression.Value(namespace))).
		WithProjection(expression.NamesList(expression.Name(attrNamespace), expression.Name(attrSK))), false)
	if err != nil {
		return nil, wrap(err, "list records of namespace %s", namespace)
	}
	var keys []indexKey
	if err := attributevalue.UnmarshalListOfMaps(items, &keys); err != nil {
		return nil, fmt.Errorf("decode keys of namespace %s: %w", namespace, err)
	}
	return keys, nil
}

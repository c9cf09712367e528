package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The write side of the index table: a namespace is replaced or deleted
// by switching its head to a new version (docs/contract.md#namespace-versions).

// newVersion names a version: the time orders versions for a reader of
// the table, the random part makes two ingests of one instant differ.
// Versions never repeat, which Intact relies on.
func (s *Index) newVersion() string {
	return fmt.Sprintf("%016x%016x", uint64(s.now().UnixNano()), rand.Uint64())
}

// ReplaceNamespace implements globalsearch.IndexWriter
// (docs/contract.md#namespace-versions). Nothing is written unless the
// records hold a summary, every record is valid and every item fits
// DynamoDB's 400 KB limit. The new records go to a new version's
// partition beside the old one, and one conditional UpdateItem of the head
// switches searches to it once every record is written: a failure at any
// call before the switch leaves the namespace reading exactly as before,
// and after it, exactly the new records. The old version, and what failed
// ingests left, are deleted after the switch. Of two ingests of one
// namespace at once, at most one switches; the other fails.
func (s *Index) ReplaceNamespace(ctx context.Context, namespace string, r globalsearch.Records) error {
	if err := checkNamespace(namespace); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace %s: %w", namespace, err)
	}
	if len(r.Summaries) == 0 {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace %s: %s", namespace, globalsearch.NoSummariesMessage)
	}
	items := make([]encodedRecord, 0, len(r.Summaries)+len(r.Claims)+len(r.Chunks))
	counts := recordCounts{Summaries: len(r.Summaries), Claims: len(r.Claims), Chunks: len(r.Chunks), Entities: len(r.Entities), Relationships: len(r.Relationships)}
	var total int64
	add := func(kind, id string, v any) error {
		it, err := attributevalue.MarshalMap(v)
		if err != nil {
			return fmt.Errorf("namespace %s: encode %s %q: %w", namespace, kind, id, err)
		}
		total += int64(itemSize(it))
		items = append(items, encodedRecord{kind, id, it})
		return nil
	}
	// The partition is set once the size of every record says how many
	// shards the version takes.
	key := func(prefix, id string) indexKey { return indexKey{SK: prefix + id} }
	for _, v := range r.Summaries {
		if err := add("summary", v.ID, summaryItem{key(prefixSummary, v.ID), v.ID, v.Level, v.ParentCommunityID, v.Title, v.Summary, v.Rank, v.Size, v.ShortSummary}); err != nil {
			return err
		}
	}
	for _, v := range r.Claims {
		if err := add("claim", v.ID, claimItem{key(prefixClaim, v.ID), v.ID, v.CommunityID, v.Subject, v.Object, v.Description, v.SourceChunkIDs}); err != nil {
			return err
		}
	}
	for _, v := range r.Chunks {
		if err := add("chunk", v.ID, chunkItem{key(prefixChunk, v.ID), v.ID, v.Text, v.DocumentID, v.TextUnitID, v.DocumentTitle}); err != nil {
			return err
		}
	}
	if err := graphItems(r, key, add); err != nil {
		return err
	}
	version := shardedVersion(s.newVersion(), s.shardCount(total))
	puts, err := placed(namespace, version, items, &counts)
	if err != nil {
		return err
	}

	old, err := s.addPending(ctx, namespace, version)
	if err != nil {
		return fmt.Errorf("namespace %s: nothing replaced: %w", namespace, err)
	}
	if err := s.batchWrite(ctx, s.table, puts); err != nil {
		return s.abandon(ctx, namespace, version, fmt.Errorf("namespace %s: nothing replaced (the previous records still read): write records: %w", namespace, err))
	}
	return s.switchTo(ctx, namespace, old, version, counts, true)
}

// encodedRecord is one encoded record of an ingest, before its partition is
// known.
type encodedRecord struct {
	kind, id string
	item     item
}

// placed puts every record in its partition of version (recordPartition)
// and checks it against DynamoDB's item limit with its key; counts gets
// the chunks' size as stored.
func placed(namespace, version string, records []encodedRecord, counts *recordCounts) ([]types.WriteRequest, error) {
	puts := make([]types.WriteRequest, len(records))
	for i, rec := range records {
		sk := sortKey(rec.item)
		rec.item[attrNamespace] = &types.AttributeValueMemberS{Value: recordPartition(namespace, version, sk)}
		if err := checkSize(fmt.Sprintf("namespace %s: %s %q", namespace, rec.kind, rec.id), rec.item); err != nil {
			return nil, err
		}
		if rec.kind == "chunk" {
			counts.ChunkBytes += int64(itemSize(rec.item))
		}
		puts[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: rec.item}}
	}
	return puts, nil
}

// DeleteNamespace implements globalsearch.IndexWriter: it switches the
// namespace to a new, empty version (so that a search reading the old one
// sees the head move, as after a replacement), unlists it and deletes the
// records of every earlier version.
func (s *Index) DeleteNamespace(ctx context.Context, namespace string) error {
	if err := checkNamespace(namespace); err != nil {
		return err
	}
	h, err := s.readHead(ctx, namespace)
	if err != nil {
		return fmt.Errorf("namespace %s: nothing deleted: %w", namespace, err)
	}
	return s.switchTo(ctx, namespace, h.Version, s.newVersion(), recordCounts{}, false)
}

// checkNamespace refuses the names the key scheme cannot hold.
func checkNamespace(namespace string) error {
	switch {
	case namespace == "":
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace must not be empty")
	case strings.Contains(namespace, "#"):
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace %q holds '#', which the index table keeps for versions", namespace)
	}
	return nil
}

// headKey is the key of a namespace's head item.
func headKey(namespace string) (item, error) {
	return attributevalue.MarshalMap(indexKey{Namespace: namespace, SK: headSK})
}

func stringSet(v ...string) expression.ValueBuilder {
	return expression.Value(&types.AttributeValueMemberSS{Value: v})
}

// updateHead applies one update to a namespace's head and decodes the head
// it leaves.
func (s *Index) updateHead(ctx context.Context, namespace string, b expression.Builder) (head, error) {
	key, err := headKey(namespace)
	if err != nil {
		return head{}, err
	}
	expr, err := b.Build()
	if err != nil {
		return head{}, fmt.Errorf("build the head update of namespace %s: %w", namespace, err)
	}
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key,
		UpdateExpression:          expr.Update(),
		ConditionExpression:       expr.Condition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return head{}, err
	}
	return decodeHead(out.Attributes), nil
}

// addPending records version as being written and returns the version the
// namespace reads now, which the switch will require unchanged.
func (s *Index) addPending(ctx context.Context, namespace, version string) (string, error) {
	h, err := s.updateHead(ctx, namespace, expression.NewBuilder().WithUpdate(
		expression.Add(expression.Name(attrPending), stringSet(version))))
	if err != nil {
		return "", wrap(err, "record version %s as pending", version)
	}
	return h.Version, nil
}

// switchTo makes version, of counts records, the one searches read, in one
// conditional UpdateItem: only if the namespace still reads old and, for a
// replacement (pending), version is still pending (a later ingest may have
// taken it for a leftover and begun deleting it). Then it updates the
// catalog and deletes the records of the versions it retired and of the
// leftovers.
func (s *Index) switchTo(ctx context.Context, namespace, old, version string, counts recordCounts, pending bool) error {
	unchanged := expression.Name(attrVersion).Equal(expression.Value(old))
	if old == "" {
		unchanged = expression.AttributeNotExists(expression.Name(attrVersion))
	}
	retired := old
	if retired == "" {
		retired = legacyVersion
	}
	update := expression.Set(expression.Name(attrVersion), expression.Value(version)).
		Set(expression.Name(attrCounts), expression.Value(counts)).
		Add(expression.Name(attrRetired), stringSet(retired))
	cond := unchanged
	if pending {
		update = update.Delete(expression.Name(attrPending), stringSet(version))
		cond = unchanged.And(expression.Contains(expression.Name(attrPending), version))
	}
	what := "replaced"
	if !pending {
		what = "deleted"
	}
	h, err := s.updateHead(ctx, namespace, expression.NewBuilder().WithUpdate(update).WithCondition(cond))
	if err != nil {
		// The switch may have been applied though its answer was lost (or
		// an SDK retry of it found its own work done): the head says.
		now, readErr := s.readHead(ctx, namespace)
		switch {
		case readErr != nil:
			return fmt.Errorf("namespace %s: unknown whether the records were %s (switching failed, then reading the version failed: %w): run this again: %w", namespace, what, readErr, wrap(err, "switch to version %s", version))
		case now.Version == version:
			h = now
		default:
			var failed *types.ConditionalCheckFailedException
			if errors.As(err, &failed) {
				err = globalsearch.Errorf(globalsearch.KindThrottled, "another ingest or delete of the namespace ran at the same time: run this one again")
			} else {
				err = wrap(err, "switch to version %s", version)
			}
			err = fmt.Errorf("namespace %s: nothing %s (the previous records still read): %w", namespace, what, err)
			if pending {
				return s.abandon(ctx, namespace, version, err)
			}
			return err
		}
	}
	// Listed once its records read, unlisted once they no longer do, so
	// the catalog never names a namespace that is not there.
	if err := s.catalog(ctx, namespace, pending); err != nil {
		return fmt.Errorf("namespace %s: records %s, but the namespace list was not updated (run this again to fix it): %w", namespace, what, err)
	}
	if err := s.dropVersions(ctx, namespace, h); err != nil {
		return fmt.Errorf("namespace %s: records %s, but deleting earlier versions failed (the next ingest deletes them): %w", namespace, what, err)
	}
	return nil
}

// abandon is a failed replacement's best effort to delete what it wrote;
// whatever it leaves stays listed on the head, for the next replacement
// to delete.
func (s *Index) abandon(ctx context.Context, namespace, version string, cause error) error {
	if err := s.dropVersion(ctx, namespace, version, true); err != nil {
		return fmt.Errorf("%w (its partial records are deleted by the next ingest)", cause)
	}
	return cause
}

// dropVersions deletes every version the head lists as retired or pending
// but the current one.
func (s *Index) dropVersions(ctx context.Context, namespace string, h head) error {
	var errs []error
	for _, v := range h.Retired {
		if v != h.Version {
			errs = append(errs, s.dropVersion(ctx, namespace, v, false))
		}
	}
	for _, v := range h.Pending {
		if v != h.Version {
			errs = append(errs, s.dropVersion(ctx, namespace, v, true))
		}
	}
	return errors.Join(errs...)
}

// dropVersion deletes a version's records. A pending version is first
// moved to the retired set, atomically: an ingest still writing it then
// fails its switch rather than switching to records being deleted. The
// version leaves the retired set only once its records are gone, so one
// whose deletion fails is still listed for the next ingest to delete.
func (s *Index) dropVersion(ctx context.Context, namespace, version string, pending bool) error {
	if pending {
		// Never the version searches read: a switch whose answer was lost
		// may have made it current.
		if _, err := s.updateHead(ctx, namespace, expression.NewBuilder().WithUpdate(
			expression.Delete(expression.Name(attrPending), stringSet(version)).
				Add(expression.Name(attrRetired), stringSet(version))).
			WithCondition(expression.AttributeNotExists(expression.Name(attrVersion)).
				Or(expression.Name(attrVersion).NotEqual(expression.Value(version))))); err != nil {
			return wrap(err, "retire version %s", version)
		}
	}
	var keys []indexKey
	for _, p := range versionPartitions(namespace, version) {
		more, err := s.namespaceKeys(ctx, p)
		if err != nil {
			return err
		}
		keys = append(keys, more...)
	}
	deletes := make([]types.WriteRequest, 0, len(keys))
	for _, k := range keys {
		if k.SK == headSK {
			continue // the legacy partition holds the head
		}
		it, err := attributevalue.MarshalMap(k)
		if err != nil {
			return fmt.Errorf("encode key %s: %w", k.SK, err)
		}
		deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: it}})
	}
	if err := s.batchWrite(ctx, s.table, deletes); err != nil {
		return fmt.Errorf("delete records of version %s: %w", version, err)
	}
	if _, err := s.updateHead(ctx, namespace, expression.NewBuilder().WithUpdate(
		expression.Delete(expression.Name(attrRetired), stringSet(version)))); err != nil {
		return wrap(err, "release version %s", version)
	}
	return nil
}

// catalog adds a namespace to the catalog or removes it, atomically (a
// string set's ADD and DELETE), so ingests of different namespaces may run
// at once.
func (s *Index) catalog(ctx context.Context, namespace string, listed bool) error {
	key, err := attributevalue.MarshalMap(indexKey{Namespace: catalogNamespace, SK: catalogSK})
	if err != nil {
		return err
	}
	update := expression.Add(expression.Name(catalogNames), stringSet(namespace))
	if !listed {
		update = expression.Delete(expression.Name(catalogNames), stringSet(namespace))
	}
	expr, err := expression.NewBuilder().WithUpdate(update).Build()
	if err != nil {
		return fmt.Errorf("build namespace list update: %w", err)
	}
	_, err = s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
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

// namespaceKeys lists the keys of every item of a partition, reading only
// the keys.
func (s *Index) namespaceKeys(ctx context.Context, partition string) ([]indexKey, error) {
	items, err := s.queryAll(ctx, s.table, expression.NewBuilder().
		WithKeyCondition(expression.Key(attrNamespace).Equal(expression.Value(partition))).
		WithProjection(expression.NamesList(expression.Name(attrNamespace), expression.Name(attrSK))), false)
	if err != nil {
		return nil, wrap(err, "list records of partition %s", partition)
	}
	var keys []indexKey
	if err := attributevalue.UnmarshalListOfMaps(items, &keys); err != nil {
		return nil, fmt.Errorf("decode keys of partition %s: %w", partition, err)
	}
	return keys, nil
}

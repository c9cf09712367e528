package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// planHeader is the plan item: the plan without its batches, which have
// items of their own so that no item outgrows 400 KB.
type planHeader struct {
	RunID           string              `json:"runId,omitempty"`
	Params          globalsearch.Params `json:"request"`
	SummaryCount    int                 `json:"summaryCount"`
	BatchCount      int                 `json:"batchCount"`
	OrphanClaims    int                 `json:"orphanClaims"`
	MissingChunks   int                 `json:"missingChunks"`
	AvailableLevels []int               `json:"availableLevels,omitempty"`
	CreatedAt       time.Time           `json:"createdAt"`

	EmptyNamespace      bool     `json:"emptyNamespace,omitempty"`
	AvailableNamespaces []string `json:"availableNamespaces,omitempty"`
}

// SavePlan implements globalsearch.Plans. It writes the request, the
// batches and a result item that claims the result for the new run (the
// previous result is gone, and a reduce of an earlier run can no longer
// save one), and the plan item last, so a plan that reads back has all its
// batches. Then it deletes what is left of the previous plan: batches past
// the new count, and that run's answers and reduce count (they are keyed by
// run, so the new run never reads them anyway; a task of an earlier run that
// writes later leaves items that only the TTL removes). All items of one
// save share one expiry, so the plan never outlives its batches.
func (s *Store) SavePlan(ctx context.Context, p globalsearch.Plan) error {
	id := p.Params.QueryID
	if err := requireQueryID(id); err != nil {
		return err
	}
	if len(p.Batches) > maxBatchIndex+1 {
		return globalsearch.Errorf(globalsearch.KindPlanTooLarge, "plan of query %s has %d batches; the runs table holds at most %d", id, len(p.Batches), maxBatchIndex+1)
	}
	exp := s.expiresAt()
	params := p.Params
	writes := make([]types.WriteRequest, 0, len(p.Batches)+2)
	m, err := s.marshalRun("request of query "+id, runItem{QueryID: id, SK: skRequest, ExpiresAt: exp, Request: &params})
	if err != nil {
		return err
	}
	writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: m}})
	m, err = s.marshalRun("result of query "+id, runItem{QueryID: id, SK: skResult, ExpiresAt: exp, RunID: p.RunID, Owner: cmp.Or(p.Owner, id), Status: string(globalsearch.StatusRunning)})
	if err != nil {
		return err
	}
	writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: m}})
	for i := range p.Batches {
		b := p.Batches[i]
		if b.Index != i {
			return globalsearch.Errorf(globalsearch.KindInternal, "plan of query %s: batch at position %d has index %d", id, i, b.Index)
		}
		b.RunID = p.RunID
		m, err := s.marshalRun(fmt.Sprintf("batch %d of query %s", i, id), runItem{QueryID: id, SK: batchSK(i), ExpiresAt: exp, Batch: &b})
		if err != nil {
			return err
		}
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: m}})
	}
	header := planHeader{
		RunID: p.RunID, Params: params, SummaryCount: p.SummaryCount, BatchCount: len(p.Batches),
		OrphanClaims: p.OrphanClaims, MissingChunks: p.MissingChunks,
		AvailableLevels: p.AvailableLevels, CreatedAt: p.CreatedAt,
		EmptyNamespace: p.EmptyNamespace, AvailableNamespaces: p.AvailableNamespaces,
	}
	planItem, err := s.marshalRun("plan of query "+id, runItem{QueryID: id, SK: skPlan, ExpiresAt: exp, Plan: &header})
	if err != nil {
		return err
	}

	// Every item is encoded and checked; only now read or write anything.
	var old *planHeader
	switch it, err := s.get(ctx, "plan of query "+id, id, skPlan); {
	case err == nil && it.Plan != nil:
		old = it.Plan
	case err != nil && !errors.Is(err, globalsearch.ErrNotFound):
		return err
	}
	if err := s.batchWrite(ctx, s.tables.Runs, writes); err != nil {
		return fmt.Errorf("save plan of query %s: %w", id, err)
	}
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.tables.Runs, Item: planItem}); err != nil {
		return wrap(err, "save plan of query %s", id)
	}
	if old == nil {
		return nil
	}
	var staleKeys []string
	for i := len(p.Batches); i < old.BatchCount; i++ {
		staleKeys = append(staleKeys, batchSK(i))
	}
	if old.RunID != p.RunID {
		for i := range old.BatchCount {
			staleKeys = append(staleKeys, answerSK(old.RunID, i))
		}
		staleKeys = append(staleKeys, reduceSK(old.RunID))
	}
	stale := make([]types.WriteRequest, 0, len(staleKeys))
	for _, sk := range staleKeys {
		key, err := attributevalue.MarshalMapWithOptions(runKey{id, sk}, jsonTags)
		if err != nil {
			return fmt.Errorf("encode key %s of query %s: %w", sk, id, err)
		}
		stale = append(stale, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}})
	}
	if err := s.batchWrite(ctx, s.tables.Runs, stale); err != nil {
		return fmt.Errorf("delete what is left of the previous plan of query %s: %w", id, err)
	}
	return nil
}

// Plan implements globalsearch.Plans with one paginated Query: "batch#..."
// sorts just before "plan", so BETWEEN reads the batches and the plan item
// and nothing else of the run.
func (s *Store) Plan(ctx context.Context, queryID string) (globalsearch.Plan, error) {
	return s.readPlan(ctx, "plan of query "+queryID, queryID, nil)
}

// batchMetaAttrs are the attributes PlanMeta reads of each batch: all but
// its content, which is nearly all of a plan's bytes.
var batchMetaAttrs = []string{
	"queryId", "sk", "expiresAt",
	"batch.runId", "batch.index", "batch.communityIds", "batch.estimatedTokens",
}

// PlanMeta implements globalsearch.Plans: the plan item (one GetItem), then
// the Query of Plan projected onto batchMetaAttrs, which reads (and is
// charged for) the same items but sends and decodes a small fraction of
// their bytes. The plan item is read whole on its own because an emulator
// (minidyn) rounds large numbers such as the seed in projected maps.
func (s *Store) PlanMeta(ctx context.Context, queryID string) (globalsearch.Plan, error) {
	what := "plan metadata of query " + queryID
	it, err := s.get(ctx, what, queryID, skPlan)
	if err != nil {
		return globalsearch.Plan{}, err
	}
	if it.Plan == nil {
		return globalsearch.Plan{}, fmt.Errorf("%s has no plan attribute", what)
	}
	return s.readPlan(ctx, what, queryID, it.Plan, batchMetaAttrs...)
}

// readPlan reads the batches of a plan, and its plan item unless header is
// already known.
func (s *Store) readPlan(ctx context.Context, what, queryID string, header *planHeader, project ...string) (globalsearch.Plan, error) {
	items, err := s.query(ctx, what, queryID, expression.Key(attrSK).Between(expression.Value(prefixBatch), expression.Value(skPlan)), project...)
	if err != nil {
		return globalsearch.Plan{}, err
	}
	for _, it := range items {
		if it.SK == skPlan && header == nil {
			header = it.Plan
		}
	}
	if header == nil {
		return globalsearch.Plan{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	batches := make([]globalsearch.Batch, header.BatchCount)
	have := make([]bool, header.BatchCount)
	for _, it := range items {
		if it.Batch == nil || it.Batch.Index < 0 || it.Batch.Index >= header.BatchCount || it.Batch.RunID != header.RunID {
			continue // the plan item, or a batch of another plan that a concurrent SavePlan wrote or has yet to delete
		}
		batches[it.Batch.Index] = *it.Batch
		have[it.Batch.Index] = true
	}
	for i, ok := range have {
		if !ok {
			return globalsearch.Plan{}, fmt.Errorf("%s: batch %d of %d is missing", what, i, header.BatchCount)
		}
	}
	return globalsearch.Plan{
		RunID: header.RunID, Params: header.Params, SummaryCount: header.SummaryCount, Batches: batches,
		OrphanClaims: header.OrphanClaims, MissingChunks: header.MissingChunks,
		AvailableLevels: header.AvailableLevels, CreatedAt: header.CreatedAt,
		EmptyNamespace: header.EmptyNamespace, AvailableNamespaces: header.AvailableNamespaces,
	}, nil
}

// Batch implements globalsearch.Plans with one GetItem.
func (s *Store) Batch(ctx context.Context, queryID string, index int) (globalsearch.Batch, error) {
	what := fmt.Sprintf("batch %d of query %s", index, queryID)
	if index < 0 || index > maxBatchIndex {
		return globalsearch.Batch{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	it, err := s.get(ctx, what, queryID, batchSK(index))
	if err != nil {
		return globalsearch.Batch{}, err
	}
	if it.Batch == nil {
		return globalsearch.Batch{}, fmt.Errorf("%s has no batch attribute", what)
	}
	return *it.Batch, nil
}

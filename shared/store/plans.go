package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// planHeader is the plan item: the plan without its batches, which have
// items of their own so that no item outgrows 400 KB, and without its
// owner, which the result item holds. It embeds the plan, so a field added
// to globalsearch.Plan is stored without a copy here; the two fields below
// shadow the plan's (a shallower field of the same name wins in the
// encoding) and stay empty, so the item holds neither.
type planHeader struct {
	globalsearch.Plan
	BatchCount int                  `json:"batchCount"`
	Batches    []globalsearch.Batch `json:"batches,omitempty"`
	Owner      string               `json:"owner,omitempty"`
	// BatchesKey, on a plan saved with a payload bucket, names the object
	// that holds its batches (batchobject.go); the run then has no batch
	// items.
	BatchesKey string `json:"batchesKey,omitempty"`
	// BatchesETag and TextsETag are the ETags S3 gave the run's two objects
	// when the save wrote them: a ranged read cannot check an object's
	// digest, so it asks S3 for the object only if it is still the one
	// written (docs/contract.md#payloads-bucket). A plan saved before they
	// were recorded has none, and its ranged reads ask for any.
	BatchesETag string `json:"batchesETag,omitempty"`
	TextsETag   string `json:"textsETag,omitempty"`
}

// planItems are the encoded items of one save: every batch, the plan
// item, the request and the result that names the new run.
type planItems struct {
	batches                []types.WriteRequest
	plan, request, running item
	// objects are the objects of the batch texts and of the batches, by
	// key, when the store has a payload bucket and the plan has batches.
	objects map[string]object
	// header and expiresAt are what plan encodes, and textsKey the texts
	// object's key: the plan item is encoded again with the objects'
	// ETags once they are written.
	header    planHeader
	expiresAt int64
	textsKey  string
}

// object is the body of one object a save writes, and its content type.
type object struct {
	contentType string
	body        parts
}

// SavePlan implements globalsearch.Plans. A new run is written beside the
// current one and switched to with one conditional write
// (docs/contract.md#query-ids):
//
//  0. with a payload bucket, the batch texts and the batches, two objects
//     under the run's prefix (docs/contract.md#payloads-bucket), before
//     the plan item names them;
//  1. without one, the batches, keyed by run (batch#<runId>#000042), so
//     they never overwrite the batches of the current run or of a racing
//     save;
//  2. one transaction: the plan item, on the condition that the plan
//     is still the one read before this save (or that there was none),
//     with the request and a result item that names the new run and its
//     owner (status running: the previous result is gone, and a reduce
//     of an earlier run can no longer save one);
//  3. the replaced run's batches, answers and reduce count are deleted.
//
// The transaction's result item is conditional too: a query id whose
// result is cancelled plans nothing more (docs/contract.md#cancel).
// A failure before or at the switch leaves the previous run whole, with
// its result; a save that loses the switch to another is refused
// (KindNotFound: its run is not the current run), and the current plan is
// the other save's, whole. The leftovers of a failed save, or of a failed
// step 3, are keyed by runs nothing reads and expire with them. All items
// of one save share one expiry, so the plan never outlives its batches.
func (s *Runs) SavePlan(ctx context.Context, p globalsearch.Plan) error {
	id := p.Params.QueryID
	items, err := s.encodePlan(p)
	if err != nil {
		return err
	}
	// Every item is encoded and checked; only now read or write anything.
	old, err := s.currentPlan(ctx, id)
	if err != nil {
		return err
	}
	// The switch's condition (the plan still old) keeps this true to the write.
	if p.Continues && (old == nil || old.RunID != p.RunID) {
		return fmt.Errorf("save plan of query %s: run %s is no longer its current run: %w", id, p.RunID, globalsearch.ErrNotFound)
	}
	etags, err := s.putObjects(ctx, items.objects)
	if err != nil {
		return fmt.Errorf("save plan of query %s: %w", id, err)
	}
	if len(etags) > 0 {
		// The ETags are S3's, known only now: the plan item, already
		// checked without them, names them too.
		h := items.header
		h.BatchesETag, h.TextsETag = etags[h.BatchesKey], etags[items.textsKey]
		if items.plan, err = s.marshalRun("plan of query "+id, runItem{QueryID: id, SK: skPlan, ExpiresAt: items.expiresAt, Plan: &h}); err != nil {
			return err
		}
	}
	if err := s.batchWrite(ctx, s.table, items.batches); err != nil {
		return fmt.Errorf("save plan of query %s: %w", id, err)
	}
	if err := s.switchPlan(ctx, p, old, items); err != nil {
		return err
	}
	s.dropReplaced(ctx, id, old, p)
	return nil
}

// encodePlan checks p and encodes every item a save writes, all with one
// expiry.
func (s *Runs) encodePlan(p globalsearch.Plan) (planItems, error) {
	id := p.Params.QueryID
	if err := requireQueryID(id); err != nil {
		return planItems{}, err
	}
	if len(p.Batches) > maxBatchIndex+1 {
		return planItems{}, globalsearch.Errorf(globalsearch.KindPlanTooLarge, "plan of query %s has %d batches; the runs table holds at most %d", id, len(p.Batches), maxBatchIndex+1)
	}
	exp := s.expiresAt()
	var items planItems
	var err error
	header := planHeader{Plan: p, BatchCount: len(p.Batches)}
	if s.payloads != nil && len(p.Batches) > 0 {
		textsKey, texts, refs := textsObject(p)
		batchesKey, batches, err := batchesObject(p, refs)
		if err != nil {
			return planItems{}, err
		}
		header.BatchesKey, items.textsKey = batchesKey, textsKey
		items.objects = map[string]object{textsKey: {"text/plain; charset=utf-8", texts}, batchesKey: {"application/octet-stream", batches}}
	} else if items.batches, err = s.encodeBatches(p, exp); err != nil {
		return planItems{}, err
	}
	params := p.Params
	header.Plan.Batches, header.Plan.Owner = nil, ""
	items.header, items.expiresAt = header, exp
	if items.plan, err = s.marshalRun("plan of query "+id, runItem{QueryID: id, SK: skPlan, ExpiresAt: exp, Plan: &header}); err != nil {
		return planItems{}, err
	}
	if items.request, err = s.marshalRun("request of query "+id, runItem{QueryID: id, SK: skRequest, ExpiresAt: exp, Request: &params}); err != nil {
		return planItems{}, err
	}
	items.running, err = s.marshalRun("result of query "+id, runItem{QueryID: id, SK: skResult, ExpiresAt: exp, RunID: p.RunID, Owner: cmp.Or(p.Owner, id), Status: string(globalsearch.StatusRunning)})
	if err != nil {
		return planItems{}, err
	}
	return items, nil
}

// encodeBatches encodes the batches of p, keyed by its run, for a store
// without a payload bucket; a batch out of its place is a bug of the caller.
func (s *Runs) encodeBatches(p globalsearch.Plan, exp int64) ([]types.WriteRequest, error) {
	id := p.Params.QueryID
	batches := make([]types.WriteRequest, 0, len(p.Batches))
	for i := range p.Batches {
		b := p.Batches[i]
		if b.Index != i {
			return nil, globalsearch.Errorf(globalsearch.KindInternal, "plan of query %s: batch at position %d has index %d", id, i, b.Index)
		}
		b.RunID = p.RunID
		it := runItem{QueryID: id, SK: batchSK(p.RunID, i), ExpiresAt: exp, Batch: &b}
		m, err := s.marshalRun(fmt.Sprintf("batch %d of query %s", i, id), it)
		if err != nil {
			return nil, err
		}
		batches = append(batches, types.WriteRequest{PutRequest: &types.PutRequest{Item: m}})
	}
	return batches, nil
}

// currentPlan reads the plan item a save replaces: nil when there is none.
func (s *Runs) currentPlan(ctx context.Context, queryID string) (*planHeader, error) {
	it, err := s.get(ctx, "plan of query "+queryID, queryID, skPlan)
	switch {
	case err == nil:
		return it.Plan, nil
	case errors.Is(err, globalsearch.ErrNotFound):
		return nil, nil
	}
	return nil, err
}

// switchPlan makes p's run the current one with one transaction, only if
// the plan is still old (or absent, when old is nil). A save that lost the
// switch deletes the batches it wrote and is refused.
func (s *Runs) switchPlan(ctx context.Context, p globalsearch.Plan, old *planHeader, items planItems) error {
	id := p.Params.QueryID
	cond := absentOrExpired(s.now().Unix())
	if old != nil {
		cond = expression.Name("plan.runId").Equal(expression.Value(old.RunID))
	}
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("build condition for plan of query %s: %w", id, err)
	}
	// A cancelled result is final (docs/contract.md#cancel): a prepare
	// that was still running when its execution was stopped plans nothing.
	open, err := expression.NewBuilder().WithCondition(notCancelled()).Build()
	if err != nil {
		return fmt.Errorf("build condition for result of query %s: %w", id, err)
	}
	_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: &s.table, Item: items.plan,
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}},
		{Put: &types.Put{TableName: &s.table, Item: items.request}},
		{Put: &types.Put{
			TableName: &s.table, Item: items.running,
			ConditionExpression: open.Condition(), ExpressionAttributeNames: open.Names(), ExpressionAttributeValues: open.Values(),
		}},
	}})
	// Refused for a cancel, the batches written stay: they may be the
	// cancelled run's own (a resave of its run), and expire with it.
	if _, cancelled := conditionFailed(err, 2); cancelled {
		return fmt.Errorf("save plan of query %s: the query was cancelled: %w", id, globalsearch.ErrNotFound)
	}
	if _, lost := conditionFailed(err, 0); lost {
		s.deleteKeys(ctx, id, runBatchKeys(p.RunID, 0, len(items.batches)))
		return fmt.Errorf("save plan of query %s: run %s is no longer the current run: another plan of the query id was saved since this save read the plan: %w", id, p.RunID, globalsearch.ErrNotFound)
	}
	if err != nil {
		return wrap(err, "save plan of query %s", id)
	}
	return nil
}

// dropReplaced deletes what the switch to p left unreachable of the old
// plan: a resave of the same run drops only the batches past p's, a new
// run drops the old run's batches, answers and reduce count.
// A plan whose batches are in the bucket left no batch items.
func (s *Runs) dropReplaced(ctx context.Context, queryID string, old *planHeader, p globalsearch.Plan) {
	if old == nil {
		return
	}
	items := old.BatchCount
	if old.BatchesKey != "" {
		items = 0
	}
	switch {
	case old.RunID == p.RunID:
		s.deleteKeys(ctx, queryID, runBatchKeys(old.RunID, len(p.Batches), items))
	default:
		stale := runBatchKeys(old.RunID, 0, items)
		for i := range old.BatchCount {
			stale = append(stale, answerSK(old.RunID, i))
		}
		s.deleteKeys(ctx, queryID, append(stale, reduceSK(old.RunID)))
	}
}

// runBatchKeys are the sort keys of batches from to to (excluded) of a run.
func runBatchKeys(runID string, from, to int) []string {
	keys := make([]string, 0, max(to-from, 0))
	for i := from; i < to; i++ {
		keys = append(keys, batchSK(runID, i))
	}
	return keys
}

// deleteKeys deletes items of a query id that no read reaches any more (a
// replaced run's, a refused save's). It is best effort: what it leaves is
// keyed by a run that is not the current one, so it is never read, and it
// expires with that run.
func (s *Runs) deleteKeys(ctx context.Context, queryID string, sks []string) {
	deletes := make([]types.WriteRequest, 0, len(sks))
	for _, sk := range sks {
		key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, sk}, jsonTags)
		if err != nil {
			return
		}
		deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}})
	}
	_ = s.batchWrite(ctx, s.table, deletes) // best effort, as above
}

// Plan implements globalsearch.Plans: the plan item (one GetItem), then
// its run's batches, one paginated Query.
func (s *Runs) Plan(ctx context.Context, queryID string) (globalsearch.Plan, error) {
	what := "plan of query " + queryID
	header, err := s.planItem(ctx, what, queryID)
	if err != nil {
		return globalsearch.Plan{}, err
	}
	return s.readPlan(ctx, what, queryID, header)
}

// planItem reads the plan item of a query id; one without its plan
// attribute is corrupt.
func (s *Runs) planItem(ctx context.Context, what, queryID string) (*planHeader, error) {
	it, err := s.get(ctx, what, queryID, skPlan)
	if err != nil {
		return nil, err
	}
	if it.Plan == nil {
		return nil, fmt.Errorf("%s has no plan attribute", what)
	}
	return it.Plan, nil
}

// batchMetaAttrs are the attributes PlanMeta reads of each batch: all but
// its content, which is nearly all of a plan's bytes. The sources stay:
// reduce resolves citations and counts cited documents from them
// (docs/contract.md#citations).
var batchMetaAttrs = []string{
	"queryId", "sk", "expiresAt",
	"batch.runId", "batch.index", "batch.communityIds", "batch.estimatedTokens", "batch.sources", "batch.centrality", "batch.textHashes",
	"batch.asciiCodePoints", "batch.nonAsciiCodePoints",
}

// PlanMeta implements globalsearch.Plans: the plan item (one GetItem), then
// the Query of Plan projected onto batchMetaAttrs, which reads (and is
// charged for) the same items but sends and decodes a small fraction of
// their bytes. The plan item is read whole on its own because an emulator
// (minidyn) rounds large numbers such as the seed in projected maps. A plan
// whose batches are in the payload bucket reads its batches object, which
// holds no text.
func (s *Runs) PlanMeta(ctx context.Context, queryID string) (globalsearch.Plan, error) {
	what := "plan metadata of query " + queryID
	header, err := s.planItem(ctx, what, queryID)
	if err != nil {
		return globalsearch.Plan{}, err
	}
	return s.readPlan(ctx, what, queryID, header, batchMetaAttrs...)
}

// readPlan reads the batches of the run of a plan item: its items, or its
// batches object (whole: projecting it would save nothing).
func (s *Runs) readPlan(ctx context.Context, what, queryID string, header *planHeader, project ...string) (globalsearch.Plan, error) {
	var items []runItem
	var err error
	if header.BatchesKey != "" {
		items, err = s.readBatches(ctx, what, queryID, header)
	} else {
		items, err = s.query(ctx, what, queryID, expression.Key(attrSK).BeginsWith(batchPrefix(header.RunID)), project...)
	}
	if err != nil {
		return globalsearch.Plan{}, err
	}
	batches := make([]globalsearch.Batch, header.BatchCount)
	have := make([]bool, header.BatchCount)
	for _, it := range items {
		if it.Batch == nil || it.Batch.Index < 0 || it.Batch.Index >= header.BatchCount || it.Batch.RunID != header.RunID {
			continue // not a batch of this run: a corrupt item
		}
		batches[it.Batch.Index] = *it.Batch
		have[it.Batch.Index] = true
	}
	for i, ok := range have {
		if !ok {
			return globalsearch.Plan{}, fmt.Errorf("%s: batch %d of %d is missing", what, i, header.BatchCount)
		}
	}
	if len(project) == 0 {
		if err := s.readTexts(ctx, what, queryID, header.RunID, items, batches); err != nil {
			return globalsearch.Plan{}, err
		}
	}
	plan := header.Plan
	plan.Batches = batches
	return plan, nil
}

// Batch implements globalsearch.Plans: the plan item names the current
// run, whose batch is one more GetItem.
func (s *Runs) Batch(ctx context.Context, queryID string, index int) (globalsearch.Batch, error) {
	what := fmt.Sprintf("batch %d of query %s", index, queryID)
	if index < 0 || index > maxBatchIndex {
		return globalsearch.Batch{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	plan, err := s.get(ctx, what, queryID, skPlan)
	if err != nil {
		return globalsearch.Batch{}, err
	}
	if plan.Plan == nil {
		return globalsearch.Batch{}, fmt.Errorf("plan of query %s has no plan attribute", queryID)
	}
	if index >= plan.Plan.BatchCount {
		return globalsearch.Batch{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	var it runItem
	if plan.Plan.BatchesKey != "" {
		it, err = s.readBatch(ctx, what, queryID, plan.Plan, index)
	} else {
		it, err = s.get(ctx, what, queryID, batchSK(plan.Plan.RunID, index))
	}
	if err != nil {
		return globalsearch.Batch{}, err
	}
	if it.Batch == nil {
		return globalsearch.Batch{}, fmt.Errorf("%s has no batch attribute", what)
	}
	if it.Text != nil {
		if it.Batch.Content, err = s.readText(ctx, what, queryID, plan.Plan.RunID, plan.Plan.TextsETag, it.Text); err != nil {
			return globalsearch.Batch{}, err
		}
	}
	return *it.Batch, nil
}

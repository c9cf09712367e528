package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// runItem is every kind of runs-table item; exactly one payload field is
// set. The payloads are the domain types under their JSON names, so an item
// reads in the console like the API's JSON.
type runItem struct {
	QueryID   string `json:"queryId"`
	SK        string `json:"sk"`
	ExpiresAt int64  `json:"expiresAt"`
	// RunID is the run an answer, reduce count or result belongs to
	// (SPEC §11.1); on the result item it says which run may write it.
	RunID   string                  `json:"runId,omitempty"`
	Request *globalsearch.Params    `json:"request,omitempty"`
	Plan    *planHeader             `json:"plan,omitempty"`
	Batch   *globalsearch.Batch     `json:"batch,omitempty"`
	Answer  *globalsearch.MapAnswer `json:"answer,omitempty"`
	// A result is stored as gzipped JSON: its diagnostics grow with the
	// batch count (thousands of entries for the largest plans the state
	// machine accepts), which as plain attributes would pass 400 KB.
	// Status stays readable beside it.
	Status string `json:"status,omitempty"`
	Result []byte `json:"resultGzip,omitempty"`
	// A failure no function saved (a crashed or timed-out task) is written
	// by the state machine itself (RecordFailure in the ASL), which can
	// neither gzip nor read a clock: a result item with status "failed",
	// no resultGzip, the caught error's name, the caught error as JSON and
	// the state's entry time (ISO 8601).
	Error    string `json:"error,omitempty"`
	Cause    string `json:"cause,omitempty"`
	FailedAt string `json:"failedAt,omitempty"`
	// ReduceCalls is the reduce-calls counter; a pointer so that the reset
	// to 0 is written.
	ReduceCalls *int `json:"reduceCalls,omitempty"`
}

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

type runKey struct {
	QueryID string `json:"queryId"`
	SK      string `json:"sk"`
}

func jsonTags(o *attributevalue.EncoderOptions)    { o.TagKey = "json" }
func jsonTagsDec(o *attributevalue.DecoderOptions) { o.TagKey = "json" }

func (s *Store) expiresAt() int64 { return s.now().Add(s.ttl).Unix() }

// alive reports whether an item has not expired; DynamoDB may still return
// an expired item until its TTL sweep gets to it.
func (s *Store) alive(it runItem) bool {
	return it.ExpiresAt == 0 || it.ExpiresAt > s.now().Unix()
}

func (s *Store) marshalRun(what string, it runItem) (item, error) {
	m, err := attributevalue.MarshalMapWithOptions(it, jsonTags)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if err := checkSize(what, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (s *Store) put(ctx context.Context, what string, it runItem) error {
	m, err := s.marshalRun(what, it)
	if err != nil {
		return err
	}
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.tables.Runs, Item: m}); err != nil {
		return wrap(err, "save %s", what)
	}
	return nil
}

// get reads one item; a missing or expired item is ErrNotFound.
func (s *Store) get(ctx context.Context, what, queryID, sk string) (runItem, error) {
	if queryID == "" {
		return runItem{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, sk}, jsonTags)
	if err != nil {
		return runItem{}, fmt.Errorf("encode key of %s: %w", what, err)
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.tables.Runs, Key: key, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return runItem{}, wrap(err, "read %s", what)
	}
	var it runItem
	if len(out.Item) > 0 {
		if err := attributevalue.UnmarshalMapWithOptions(out.Item, &it, jsonTagsDec); err != nil {
			return runItem{}, fmt.Errorf("decode %s: %w", what, err)
		}
	}
	if len(out.Item) == 0 || !s.alive(it) {
		return runItem{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	return it, nil
}

// query reads every live item of a run whose sort key the condition
// selects, in sort-key order.
func (s *Store) query(ctx context.Context, what, queryID string, sk expression.KeyConditionBuilder) ([]runItem, error) {
	if queryID == "" {
		return nil, nil
	}
	expr, err := expression.NewBuilder().WithKeyCondition(
		expression.Key(attrQueryID).Equal(expression.Value(queryID)).And(sk)).Build()
	if err != nil {
		return nil, fmt.Errorf("build query for %s: %w", what, err)
	}
	items, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 &s.tables.Runs,
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		return nil, wrap(err, "read %s", what)
	}
	var all []runItem
	if err := attributevalue.UnmarshalListOfMapsWithOptions(items, &all, jsonTagsDec); err != nil {
		return nil, fmt.Errorf("decode %s: %w", what, err)
	}
	live := all[:0]
	for _, it := range all {
		if s.alive(it) {
			live = append(live, it)
		}
	}
	return live, nil
}

func requireQueryID(id string) error {
	if id == "" {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "queryId must not be empty")
	}
	return nil
}

// CreateRequest implements globalsearch.Requests with a conditional put, so
// two concurrent starts of one query id store one request. An expired item
// that DynamoDB has not deleted yet counts as absent.
func (s *Store) CreateRequest(ctx context.Context, p globalsearch.Params) (globalsearch.Params, bool, error) {
	if err := requireQueryID(p.QueryID); err != nil {
		return globalsearch.Params{}, false, err
	}
	what := "request of query " + p.QueryID
	m, err := s.marshalRun(what, runItem{QueryID: p.QueryID, SK: skRequest, ExpiresAt: s.expiresAt(), Request: &p})
	if err != nil {
		return globalsearch.Params{}, false, err
	}
	cond := expression.AttributeNotExists(expression.Name(attrQueryID)).
		Or(expression.Name(TTLAttribute).LessThanEqual(expression.Value(s.now().Unix())))
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return globalsearch.Params{}, false, fmt.Errorf("build condition for %s: %w", what, err)
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &s.tables.Runs,
		Item:                                m,
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ExpressionAttributeValues:           expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return p, true, nil
	}
	var exists *types.ConditionalCheckFailedException
	if !errors.As(err, &exists) {
		return globalsearch.Params{}, false, wrap(err, "create %s", what)
	}
	var have runItem
	if len(exists.Item) > 0 {
		if err := attributevalue.UnmarshalMapWithOptions(exists.Item, &have, jsonTagsDec); err != nil {
			return globalsearch.Params{}, false, fmt.Errorf("decode existing %s: %w", what, err)
		}
	} else if have, err = s.get(ctx, what, p.QueryID, skRequest); err != nil {
		// The emulator did not return the item; read it.
		return globalsearch.Params{}, false, err
	}
	if have.Request == nil {
		return globalsearch.Params{}, false, fmt.Errorf("existing %s has no request attribute", what)
	}
	return *have.Request, false, nil
}

// Request implements globalsearch.Requests.
func (s *Store) Request(ctx context.Context, queryID string) (globalsearch.Params, error) {
	it, err := s.get(ctx, "request of query "+queryID, queryID, skRequest)
	if err != nil {
		return globalsearch.Params{}, err
	}
	if it.Request == nil {
		return globalsearch.Params{}, fmt.Errorf("request of query %s has no request attribute", queryID)
	}
	return *it.Request, nil
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
	m, err = s.marshalRun("result of query "+id, runItem{QueryID: id, SK: skResult, ExpiresAt: exp, RunID: p.RunID, Status: string(globalsearch.StatusRunning)})
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
	what := "plan of query " + queryID
	items, err := s.query(ctx, what, queryID, expression.Key(attrSK).Between(expression.Value(prefixBatch), expression.Value(skPlan)))
	if err != nil {
		return globalsearch.Plan{}, err
	}
	var header *planHeader
	for _, it := range items {
		if it.SK == skPlan {
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

// SaveMapAnswer implements globalsearch.Answers: a put on the item of
// (query id, run id, batch index), so a retried map task overwrites.
func (s *Store) SaveMapAnswer(ctx context.Context, queryID, runID string, a globalsearch.MapAnswer) error {
	if err := requireQueryID(queryID); err != nil {
		return err
	}
	if a.BatchIndex < 0 || a.BatchIndex > maxBatchIndex {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "map answer of query %s: batch index %d out of range", queryID, a.BatchIndex)
	}
	return s.put(ctx, fmt.Sprintf("map answer %d of query %s", a.BatchIndex, queryID),
		runItem{QueryID: queryID, SK: answerSK(runID, a.BatchIndex), ExpiresAt: s.expiresAt(), RunID: runID, Answer: &a})
}

// MapAnswers implements globalsearch.Answers; sort-key order is batch
// order.
func (s *Store) MapAnswers(ctx context.Context, queryID, runID string) ([]globalsearch.MapAnswer, error) {
	items, err := s.query(ctx, "map answers of query "+queryID, queryID, expression.Key(attrSK).BeginsWith(answerPrefix(runID)))
	if err != nil {
		return nil, err
	}
	out := make([]globalsearch.MapAnswer, 0, len(items))
	for _, it := range items {
		if it.Answer != nil {
			out = append(out, *it.Answer)
		}
	}
	return out, nil
}

// AddReduceCall implements globalsearch.ReduceCalls with an atomic ADD, so
// concurrent or retried invocations never lose a count.
func (s *Store) AddReduceCall(ctx context.Context, queryID, runID string) (int, error) {
	if err := requireQueryID(queryID); err != nil {
		return 0, err
	}
	what := "reduce calls of query " + queryID
	key, err := attributevalue.MarshalMapWithOptions(runKey{queryID, reduceSK(runID)}, jsonTags)
	if err != nil {
		return 0, fmt.Errorf("encode key of %s: %w", what, err)
	}
	expr, err := expression.NewBuilder().WithUpdate(
		expression.Add(expression.Name("reduceCalls"), expression.Value(1)).
			Set(expression.Name(TTLAttribute), expression.Value(s.expiresAt()))).Build()
	if err != nil {
		return 0, fmt.Errorf("build update of %s: %w", what, err)
	}
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.tables.Runs,
		Key:                       key,
		UpdateExpression:          expr.Update(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, wrap(err, "count %s", what)
	}
	var it runItem
	if err := attributevalue.UnmarshalMapWithOptions(out.Attributes, &it, jsonTagsDec); err != nil || it.ReduceCalls == nil {
		return 0, fmt.Errorf("decode %s: %v", what, err)
	}
	return *it.ReduceCalls, nil
}

// ReduceCalls implements globalsearch.ReduceCalls.
func (s *Store) ReduceCalls(ctx context.Context, queryID, runID string) (int, error) {
	it, err := s.get(ctx, "reduce calls of query "+queryID, queryID, reduceSK(runID))
	switch {
	case errors.Is(err, globalsearch.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	case it.ReduceCalls == nil:
		return 0, nil
	}
	return *it.ReduceCalls, nil
}

// SaveResult implements globalsearch.Results. With a runID the put is
// conditional on the result item naming that run, which SavePlan wrote: a
// newer plan, or a failure recorded since, makes it fail.
func (s *Store) SaveResult(ctx context.Context, r globalsearch.Result, runID string) error {
	if err := requireQueryID(r.QueryID); err != nil {
		return err
	}
	what := "result of query " + r.QueryID
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(r); err != nil {
		return fmt.Errorf("encode %s: %w", what, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compress %s: %w", what, err)
	}
	it := runItem{QueryID: r.QueryID, SK: skResult, ExpiresAt: s.expiresAt(), RunID: runID, Status: string(r.Status), Result: buf.Bytes()}
	if runID == "" {
		return s.put(ctx, what, it)
	}
	m, err := s.marshalRun(what, it)
	if err != nil {
		return err
	}
	expr, err := expression.NewBuilder().WithCondition(expression.Name("runId").Equal(expression.Value(runID))).Build()
	if err != nil {
		return fmt.Errorf("build condition for %s: %w", what, err)
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 &s.tables.Runs,
		Item:                      m,
		ConditionExpression:       expr.Condition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	})
	var superseded *types.ConditionalCheckFailedException
	if errors.As(err, &superseded) {
		return fmt.Errorf("%s: run %s is no longer the current run: %w", what, runID, globalsearch.ErrNotFound)
	}
	if err != nil {
		return wrap(err, "save %s", what)
	}
	return nil
}

// Result implements globalsearch.Results.
func (s *Store) Result(ctx context.Context, queryID string) (globalsearch.Result, error) {
	what := "result of query " + queryID
	it, err := s.get(ctx, what, queryID, skResult)
	if err != nil {
		return globalsearch.Result{}, err
	}
	if len(it.Result) == 0 {
		if it.Status == string(globalsearch.StatusFailed) {
			return recordedFailure(what, it)
		}
		// The item SavePlan writes: the run has no result yet.
		return globalsearch.Result{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	zr, err := gzip.NewReader(bytes.NewReader(it.Result))
	if err != nil {
		return globalsearch.Result{}, fmt.Errorf("decompress %s: %w", what, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return globalsearch.Result{}, fmt.Errorf("decompress %s: %w", what, err)
	}
	var r globalsearch.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return globalsearch.Result{}, fmt.Errorf("decode %s: %w", what, err)
	}
	return r, nil
}

// recordedFailure reads a result item the state machine wrote itself (see
// runItem): a failed result whose error is the caught error's name and its
// message.
func recordedFailure(what string, it runItem) (globalsearch.Result, error) {
	if it.Status != string(globalsearch.StatusFailed) || it.Error == "" {
		return globalsearch.Result{}, fmt.Errorf("decode %s: no resultGzip, and not a failure the state machine recorded (status %q)", what, it.Status)
	}
	res := globalsearch.Result{
		QueryID: it.QueryID, Status: globalsearch.StatusFailed, Error: failureMessage(it.Error, it.Cause),
		SelectedMapAnswers: []globalsearch.SelectedAnswer{}, MapErrors: []globalsearch.BatchFailure{},
	}
	if at, err := time.Parse(time.RFC3339Nano, it.FailedAt); err == nil {
		res.Diagnostics.StartedAt, res.Diagnostics.FinishedAt = at, at
	}
	return res, nil
}

// failureMessage is "<error>: <message>", the message taken from the
// caught error {"Error", "Cause"} as JSON, whose Cause for a Lambda error
// is itself JSON with an errorMessage. Whatever cannot be read that way is
// kept as it came.
func failureMessage(name, cause string) string {
	var caught struct {
		Cause *string `json:"Cause"`
	}
	if json.Unmarshal([]byte(cause), &caught) != nil {
		return joinMessage(name, cause)
	}
	if caught.Cause == nil || *caught.Cause == "" {
		return name + ": no cause was given"
	}
	var lambdaErr struct {
		ErrorType    string `json:"errorType"`
		ErrorMessage string `json:"errorMessage"`
	}
	if json.Unmarshal([]byte(*caught.Cause), &lambdaErr) == nil && lambdaErr.ErrorMessage != "" {
		return joinMessage(name, lambdaErr.ErrorMessage)
	}
	return joinMessage(name, *caught.Cause)
}

func joinMessage(name, msg string) string {
	if msg == "" {
		return name
	}
	return name + ": " + msg
}

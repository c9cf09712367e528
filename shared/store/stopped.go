package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.StoppedResults = (*Runs)(nil)

// ResultState implements globalsearch.StoppedResults with one consistent
// read of the whole result item: no projection can say whether resultGzip
// is there without reading it, and a stopped execution is read once.
func (s *Runs) ResultState(ctx context.Context, queryID string) (globalsearch.ResultState, error) {
	what := "result of query " + queryID
	it, err := s.get(ctx, what, queryID, skResult)
	if err != nil {
		return globalsearch.ResultState{}, err
	}
	return globalsearch.ResultState{Owner: it.Owner, Status: globalsearch.Status(it.Status), RunID: it.RunID,
		FailedRunID: it.FailedRunID, Saved: len(it.Result) > 0}, nil
}

// RecordStopped implements globalsearch.StoppedResults with one
// conditional UpdateItem of the result item (docs/contract.md#stopped-executions):
// it sets r and ends the run (runId becomes endedRunID), on the condition
// that the item is live, still owned by was.Owner, in was.Status, of
// was.RunID (no runId when that is empty) and without a result, so a
// result, a cancel or a new run that came first is never overwritten.
func (s *Runs) RecordStopped(ctx context.Context, r globalsearch.Result, was globalsearch.ResultState) error {
	if err := requireQueryID(r.QueryID); err != nil {
		return err
	}
	if was.Owner == "" || was.Saved {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "record stopped query %s: the state must name its owner and hold no result", r.QueryID)
	}
	what := "result of query " + r.QueryID
	gz, err := s.encodeResult(what, r, endedRunID)
	if err != nil {
		return err
	}
	update := resultUpdate(r.Status, gz, s.expiresAt()).
		Set(expression.Name(attrRunID), expression.Value(endedRunID))
	run := expression.AttributeNotExists(expression.Name(attrRunID))
	if was.RunID != "" {
		run = expression.Name(attrRunID).Equal(expression.Value(was.RunID))
	}
	cond := expression.Name(attrOwner).Equal(expression.Value(was.Owner)).
		And(expression.Name(attrStatus).Equal(expression.Value(string(was.Status)))).
		And(expression.AttributeNotExists(expression.Name(attrResultGzip))).
		And(run).
		And(s.live())
	refused, err := s.updateIf(ctx, "record", what, r.QueryID, skResult, expression.NewBuilder().WithCondition(cond).WithUpdate(update))
	if refused {
		return fmt.Errorf("record stopped %s: it changed since it was read: %w", what, globalsearch.ErrNotFound)
	}
	return err
}

package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// CancelResult implements globalsearch.Cancels with one conditional
// UpdateItem of the result item (docs/contract.md#cancel): it sets the
// cancelled result and ends the run (runId becomes endedRunID), on the
// condition that the item is live, owned by owner and still running. So a
// run that finished first keeps its result, and once cancelled no step of
// the run can save one: SaveResult's condition names the run, and
// RecordFailure's in the state machine names it too. A refused condition
// is read back once to say why.
func (s *Runs) CancelResult(ctx context.Context, r globalsearch.Result, owner string) error {
	if err := requireQueryID(r.QueryID); err != nil {
		return err
	}
	if r.Status != globalsearch.StatusCancelled || owner == "" {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "cancel query %s: the result must be cancelled (is %q) and name its owner", r.QueryID, r.Status)
	}
	what := "result of query " + r.QueryID
	gz, err := s.encodeResult(what, r, endedRunID)
	if err != nil {
		return err
	}
	update := resultUpdate(r.Status, gz, s.expiresAt()).
		Set(expression.Name(attrRunID), expression.Value(endedRunID))
	cond := expression.Name(attrOwner).Equal(expression.Value(owner)).
		And(expression.Name(attrStatus).Equal(expression.Value(string(globalsearch.StatusRunning)))).
		And(s.live())
	refused, err := s.updateIf(ctx, "cancel", what, r.QueryID, skResult, expression.NewBuilder().WithCondition(cond).WithUpdate(update))
	if err != nil || !refused {
		return err
	}
	return s.whyNotCancelled(ctx, what, r.QueryID, owner)
}

// whyNotCancelled reads the result item a cancel's condition refused: a
// cancelled one is success (a repeated cancel), another status is a
// conflict, and a missing, expired or foreign one is not found.
func (s *Runs) whyNotCancelled(ctx context.Context, what, queryID, owner string) error {
	it, err := s.get(ctx, what, queryID, skResult, attrQueryID, attrSK, TTLAttribute, attrOwner, attrStatus)
	switch {
	case errors.Is(err, globalsearch.ErrNotFound):
		return fmt.Errorf("cancel %s: %w", what, globalsearch.ErrNotFound)
	case err != nil:
		return err
	case it.Owner != owner:
		return fmt.Errorf("cancel %s: the run is not owned by %s: %w", what, owner, globalsearch.ErrNotFound)
	case it.Status == string(globalsearch.StatusCancelled):
		return nil
	}
	return globalsearch.Errorf(globalsearch.KindConflict, "cancel query %s: the run already ended (%s)", queryID, it.Status)
}

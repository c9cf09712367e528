package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// A standing question's record (docs/contract.md#standing-questions) is one
// item of the runs table: partition "#standing#<namespace>#<name>", which
// no query id can be ('#' is none of its characters), sort key
// skStanding. It expires like a run, RunsTtlDays after it was written.
const (
	prefixStanding = "#standing#"
	skStanding     = "standing"
	attrStartedAt  = "startedAt"
	attrRecordGzip = "recordGzip"
)

var _ globalsearch.Standing = (*Runs)(nil)

// standingItem is the record's item: its run's start (epoch milliseconds,
// what the save's condition compares) beside the encoded record.
type standingItem struct {
	QueryID   string `json:"queryId"`
	SK        string `json:"sk"`
	ExpiresAt int64  `json:"expiresAt"`
	StartedAt int64  `json:"startedAt"`
	Record    []byte `json:"recordGzip"`
}

func standingPartition(namespace, name string) string {
	return prefixStanding + namespace + "#" + name
}

// StandingRecord implements globalsearch.Standing with one strongly
// consistent GetItem; an expired item reads as absent.
func (s *Runs) StandingRecord(ctx context.Context, namespace, name string) (globalsearch.StandingRecord, error) {
	if err := globalsearch.CheckStandingKey(namespace, name); err != nil {
		return globalsearch.StandingRecord{}, err
	}
	r, _, err := s.readStanding(ctx, namespace, name)
	return r, err
}

// readStanding reads the record's item and its startedAt attribute: a
// failed call is the call's error; an item that does not decode (an
// attribute of another type, a damaged record) is an
// UnreadableStandingRecord naming the item.
func (s *Runs) readStanding(ctx context.Context, namespace, name string) (globalsearch.StandingRecord, int64, error) {
	what := fmt.Sprintf("record of standing question %s in namespace %s", name, namespace)
	where := fmt.Sprintf("item %s of table %s", standingPartition(namespace, name), s.table)
	key, err := attributevalue.MarshalMapWithOptions(runKey{standingPartition(namespace, name), skStanding}, jsonTags)
	if err != nil {
		return globalsearch.StandingRecord{}, 0, fmt.Errorf("encode key of %s: %w", what, err)
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return globalsearch.StandingRecord{}, 0, wrap(err, "read %s", what)
	}
	if len(out.Item) == 0 {
		return globalsearch.StandingRecord{}, 0, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	var it standingItem
	if err := attributevalue.UnmarshalMapWithOptions(out.Item, &it, jsonTagsDec); err != nil {
		return globalsearch.StandingRecord{}, 0, globalsearch.UnreadableStandingRecord(name, where, err)
	}
	if it.ExpiresAt != 0 && it.ExpiresAt <= s.now().Unix() {
		return globalsearch.StandingRecord{}, 0, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	r, err := globalsearch.DecodeStandingRecord(it.Record)
	if err != nil {
		return globalsearch.StandingRecord{}, 0, globalsearch.UnreadableStandingRecord(name, where, err)
	}
	return r, it.StartedAt, nil
}

// standingSaveAttempts bounds how often a save reads again when another
// save changed the item between its read and its write.
const standingSaveAttempts = 3

// SaveStandingRecord implements globalsearch.Standing with one strongly
// consistent GetItem and one conditional UpdateItem (the reduce
// function's role may read and update runs-table items, not put them):
// the item is read as StandingRecord reads it, ReplaceStanding decides,
// and the update's condition holds the item to what was read (absent or
// expired, or the same startedAt), so that a record saved in between is
// judged too. An unreadable item that reset replaces is written with no
// condition: nothing of it can be compared.
func (s *Runs) SaveStandingRecord(ctx context.Context, r globalsearch.StandingRecord, reset bool) error {
	if err := globalsearch.CheckStandingKey(r.Namespace, r.Name); err != nil {
		return err
	}
	what := fmt.Sprintf("record of standing question %s in namespace %s", r.Name, r.Namespace)
	data, err := globalsearch.EncodeStandingRecord(r)
	if err != nil {
		return err
	}
	started := r.StartedAt.UnixMilli()
	it := standingItem{QueryID: standingPartition(r.Namespace, r.Name), SK: skStanding,
		ExpiresAt: s.expiresAt(), StartedAt: started, Record: data}
	m, err := attributevalue.MarshalMapWithOptions(it, jsonTags)
	if err != nil {
		return fmt.Errorf("encode %s: %w", what, err)
	}
	if err := checkSize(what, m); err != nil {
		return err
	}
	update := expression.Set(expression.Name(TTLAttribute), expression.Value(it.ExpiresAt)).
		Set(expression.Name(attrStartedAt), expression.Value(started)).
		Set(expression.Name(attrRecordGzip), expression.Value(data))
	for range standingSaveAttempts {
		old, oldStarted, readErr := s.readStanding(ctx, r.Namespace, r.Name)
		if ok, err := globalsearch.ReplaceStanding(r, old, readErr, reset); !ok || err != nil {
			return err
		}
		b := expression.NewBuilder().WithUpdate(update)
		switch {
		case errors.Is(readErr, globalsearch.ErrNotFound):
			b = b.WithCondition(absentOrExpired(s.now().Unix()))
		case readErr == nil:
			b = b.WithCondition(expression.Name(attrStartedAt).Equal(expression.Value(oldStarted)))
		}
		changed, err := s.updateIf(ctx, "save", what, it.QueryID, skStanding, b)
		if err != nil || !changed {
			return err
		}
	}
	return fmt.Errorf("save %s: the item changed under %d attempts", what, standingSaveAttempts)
}

package store

import (
	"context"
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
	what := fmt.Sprintf("record of standing question %s in namespace %s", name, namespace)
	key, err := attributevalue.MarshalMapWithOptions(runKey{standingPartition(namespace, name), skStanding}, jsonTags)
	if err != nil {
		return globalsearch.StandingRecord{}, fmt.Errorf("encode key of %s: %w", what, err)
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return globalsearch.StandingRecord{}, wrap(err, "read %s", what)
	}
	var it standingItem
	if len(out.Item) > 0 {
		if err := attributevalue.UnmarshalMapWithOptions(out.Item, &it, jsonTagsDec); err != nil {
			return globalsearch.StandingRecord{}, fmt.Errorf("decode %s: %w", what, err)
		}
	}
	if len(out.Item) == 0 || (it.ExpiresAt != 0 && it.ExpiresAt <= s.now().Unix()) {
		return globalsearch.StandingRecord{}, fmt.Errorf("%s: %w", what, globalsearch.ErrNotFound)
	}
	r, err := globalsearch.DecodeStandingRecord(it.Record)
	if err != nil {
		return globalsearch.StandingRecord{}, fmt.Errorf("decode %s: %w", what, err)
	}
	return r, nil
}

// SaveStandingRecord implements globalsearch.Standing with one conditional
// UpdateItem (the reduce function's role may update runs-table items, not
// put them): it writes when there is no item, an expired one, or one of a
// run that started no later.
func (s *Runs) SaveStandingRecord(ctx context.Context, r globalsearch.StandingRecord) error {
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
	cond := absentOrExpired(s.now().Unix()).
		Or(expression.Name(attrStartedAt).LessThanEqual(expression.Value(started)))
	// A refused condition means a later run's record is stored: it stays.
	_, err = s.updateIf(ctx, "save", what, it.QueryID, skStanding, expression.NewBuilder().WithCondition(cond).WithUpdate(update))
	return err
}

// The batches object: with a payload bucket, a run's batches live in S3
// beside their texts instead of one runs-table item each, so saving a plan
// writes no item per batch to the query's one partition
// (docs/contract.md#payloads-bucket).

package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// offsetSize is the width of one entry of a batches object's offset table.
const offsetSize = 8

// storedBatch is one record of a batches object: the batch without its
// content, and where the content is.
type storedBatch struct {
	Batch globalsearch.Batch `json:"batch"`
	Text  textRef            `json:"text"`
}

// batchesObject lays out the batches of p (their texts at refs) as one
// object: n+1 big-endian offsets, then record i, the JSON of batch i, at
// bytes [offset i, offset i+1). A map task reads its entry of the table and
// then its record, two ranged reads; reduce reads the object whole, a small
// fraction of the texts' bytes. The key, under the run's prefix, is named by
// the body's digest, as the texts object is. A batch out of its place is a
// bug of the caller.
func batchesObject(p globalsearch.Plan, refs []textRef) (string, parts, error) {
	id := p.Params.QueryID
	n := len(p.Batches)
	records := make([][]byte, n)
	for i, b := range p.Batches {
		if b.Index != i {
			return "", nil, globalsearch.Errorf(globalsearch.KindInternal, "plan of query %s: batch at position %d has index %d", id, i, b.Index)
		}
		b.RunID, b.Content = p.RunID, ""
		raw, err := json.Marshal(storedBatch{Batch: b, Text: refs[i]})
		if err != nil {
			return "", nil, fmt.Errorf("encode batch %d of query %s: %w", i, id, err)
		}
		records[i] = raw
	}
	var body strings.Builder
	at := uint64(offsetSize * (n + 1))
	for _, r := range records {
		body.Write(binary.BigEndian.AppendUint64(nil, at))
		at += uint64(len(r))
	}
	body.Write(binary.BigEndian.AppendUint64(nil, at))
	for _, r := range records {
		body.Write(r)
	}
	whole := parts{body.String()}
	return runObjectKey(id, p.RunID, "batches", whole), whole, nil
}

// checkBatchesKey refuses a plan item whose batches object lies outside its
// own run's prefix.
func checkBatchesKey(what, queryID string, h *planHeader) error {
	if !strings.HasPrefix(h.BatchesKey, runPrefix(queryID, h.RunID)+"batches-") {
		return fmt.Errorf("%s names batches %q, which are not its run's", what, h.BatchesKey)
	}
	return nil
}

// decodeRecord decodes record index of a batches object and checks that it
// is that batch of the plan's run.
func decodeRecord(what string, h *planHeader, index int, raw []byte) (runItem, error) {
	var sb storedBatch
	if err := json.Unmarshal(raw, &sb); err != nil {
		return runItem{}, fmt.Errorf("%s: decode batch %d of %s: %w", what, index, h.BatchesKey, err)
	}
	if sb.Batch.Index != index || sb.Batch.RunID != h.RunID {
		return runItem{}, fmt.Errorf("%s: record %d of %s is batch %d of run %q, not batch %d of run %s", what, index, h.BatchesKey, sb.Batch.Index, sb.Batch.RunID, index, h.RunID)
	}
	return runItem{Batch: &sb.Batch, Text: &sb.Text}, nil
}

// readBatches reads the batches object of a plan item whole, checked
// against its digest, and decodes every batch, as the items a Query of the
// batches would have returned.
func (s *Runs) readBatches(ctx context.Context, what, queryID string, h *planHeader) ([]runItem, error) {
	if err := s.checkBatches(what, queryID, h); err != nil {
		return nil, err
	}
	body, err := s.payloads.getWhole(ctx, h.BatchesKey, h.BatchesETag)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	n := h.BatchCount
	table := offsetSize * (n + 1)
	if len(body) < table {
		return nil, fmt.Errorf("%s: %s holds %d bytes, too few for the offsets of %d batches", what, h.BatchesKey, len(body), n)
	}
	items := make([]runItem, n)
	for i := range n {
		from, to := binary.BigEndian.Uint64(body[offsetSize*i:]), binary.BigEndian.Uint64(body[offsetSize*(i+1):])
		if from < uint64(table) || from > to || to > uint64(len(body)) {
			return nil, fmt.Errorf("%s: batch %d of %s lies at [%d,%d), outside its %d bytes", what, i, h.BatchesKey, from, to, len(body))
		}
		if items[i], err = decodeRecord(what, h, i, body[from:to]); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// readBatch reads one batch of a plan item's batches object: its entry of
// the offset table, then its record, both only from the object the plan
// item's ETag names.
func (s *Runs) readBatch(ctx context.Context, what, queryID string, h *planHeader, index int) (runItem, error) {
	if err := s.checkBatches(what, queryID, h); err != nil {
		return runItem{}, err
	}
	entry, err := s.payloads.get(ctx, h.BatchesKey, h.BatchesETag, int64(offsetSize*index), 2*offsetSize)
	if err != nil {
		return runItem{}, fmt.Errorf("%s: %w", what, err)
	}
	from, to := binary.BigEndian.Uint64(entry), binary.BigEndian.Uint64(entry[offsetSize:])
	if from < uint64(offsetSize*(h.BatchCount+1)) || from >= to {
		return runItem{}, fmt.Errorf("%s: %s places it at [%d,%d), outside the batch records", what, h.BatchesKey, from, to)
	}
	raw, err := s.payloads.get(ctx, h.BatchesKey, h.BatchesETag, int64(from), int64(to-from))
	if err != nil {
		return runItem{}, fmt.Errorf("%s: %w", what, err)
	}
	return decodeRecord(what, h, index, raw)
}

// checkBatches refuses to read a batches object that is not the plan's
// run's, or without the bucket.
func (s *Runs) checkBatches(what, queryID string, h *planHeader) error {
	if err := checkBatchesKey(what, queryID, h); err != nil {
		return err
	}
	if s.payloads == nil {
		return globalsearch.Errorf(globalsearch.KindInternal, "%s: its batches are in the payload bucket, which this store has no access to", what)
	}
	return nil
}

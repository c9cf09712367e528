package globalsearch

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// MaxStandingRecordBytes caps an encoded standing record
// (docs/contract.md#standing-questions): it fits one DynamoDB item (400 KB)
// with room for its keys, some 23,000 communities of short ids (15 bytes
// each gzipped, identity digest included) or 10,000 of random UUIDs (33),
// and the directory store
// keeps the same cap, so both keep the same records.
const MaxStandingRecordBytes = 350 << 10

// maxStandingJSONBytes bounds what a record decompresses to, so a damaged
// or hostile file cannot exhaust memory.
const maxStandingJSONBytes = 32 << 20

// standingWire is a record as stored: ids, hashes and batches in columns,
// the hashes as raw bytes (8 per community), which compress far better
// than one object per community.
type standingWire struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Question is absent from a record written before records held it.
	Question  *StandingQuestion `json:"question,omitempty"`
	QueryID   string            `json:"queryId"`
	StartedAt time.Time         `json:"startedAt"`
	IDs       []string          `json:"ids"`
	Hashes    []byte            `json:"hashes"`
	Batches   []int             `json:"batches"`
	// Keys are the identity digests, 4 bytes per community; absent from a
	// record written before records held them, or of communities without.
	Keys []byte `json:"keys,omitempty"`
}

// EncodeStandingRecord is r as both stores keep it: gzipped JSON of at most
// MaxStandingRecordBytes, else invalid input naming the size.
func EncodeStandingRecord(r StandingRecord) ([]byte, error) {
	w := standingWire{Namespace: r.Namespace, Name: r.Name, Question: &r.Question, QueryID: r.QueryID, StartedAt: r.StartedAt.UTC(),
		IDs: make([]string, len(r.Communities)), Hashes: make([]byte, 0, 8*len(r.Communities)), Batches: make([]int, len(r.Communities))}
	keys := make([]byte, 0, 4*len(r.Communities))
	for i, c := range r.Communities {
		h, err := hex.DecodeString(c.Hash)
		if err != nil || len(h) != 8 {
			return nil, Errorf(KindInternal, "standing record %s: community %s has hash %q, not 16 hex digits", r.Name, EchoQuoted(c.ID), c.Hash)
		}
		k, err := hex.DecodeString(c.Key)
		if err != nil || len(k) != 4 {
			keys = nil // a community without one: the record keeps none
		} else if keys != nil {
			keys = append(keys, k...)
		}
		w.IDs[i], w.Batches[i] = c.ID, c.Batch
		w.Hashes = append(w.Hashes, h...)
	}
	if len(keys) > 0 {
		w.Keys = keys
	}
	data, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode standing record %s: %w", r.Name, err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err = zw.Write(data)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("compress standing record %s: %w", r.Name, err)
	}
	if buf.Len() > MaxStandingRecordBytes {
		return nil, Errorf(KindInvalidInput, "standing record %s of %d communities is %d bytes, over the %d-byte cap",
			r.Name, len(r.Communities), buf.Len(), MaxStandingRecordBytes)
	}
	return buf.Bytes(), nil
}

// DecodeStandingRecord reads what EncodeStandingRecord wrote; anything else
// (a damaged file, columns of different lengths) is an error.
func DecodeStandingRecord(data []byte) (StandingRecord, error) {
	if len(data) > MaxStandingRecordBytes {
		return StandingRecord{}, fmt.Errorf("standing record is %d bytes, over the %d-byte cap", len(data), MaxStandingRecordBytes)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return StandingRecord{}, fmt.Errorf("read standing record: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxStandingJSONBytes+1))
	if err != nil {
		return StandingRecord{}, fmt.Errorf("read standing record: %w", err)
	}
	if len(raw) > maxStandingJSONBytes {
		return StandingRecord{}, fmt.Errorf("standing record holds more than %d bytes", maxStandingJSONBytes)
	}
	var w standingWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return StandingRecord{}, fmt.Errorf("read standing record: %w", err)
	}
	n := len(w.IDs)
	if len(w.Hashes) != 8*n || len(w.Batches) != n || (len(w.Keys) != 0 && len(w.Keys) != 4*n) {
		return StandingRecord{}, fmt.Errorf("standing record %s is damaged: %d ids, %d hash bytes, %d batches, %d key bytes",
			w.Name, n, len(w.Hashes), len(w.Batches), len(w.Keys))
	}
	r := StandingRecord{Namespace: w.Namespace, Name: w.Name, QueryID: w.QueryID, StartedAt: w.StartedAt, Communities: make([]CommunityHash, n)}
	if w.Question != nil {
		r.Question = *w.Question
	}
	for i, id := range w.IDs {
		if i > 0 && w.IDs[i-1] >= id {
			return StandingRecord{}, fmt.Errorf("standing record %s is damaged: its ids are not in order", w.Name)
		}
		r.Communities[i] = CommunityHash{ID: id, Hash: hex.EncodeToString(w.Hashes[8*i : 8*i+8]), Batch: w.Batches[i]}
		if len(w.Keys) > 0 {
			r.Communities[i].Key = hex.EncodeToString(w.Keys[4*i : 4*i+4])
		}
	}
	return r, nil
}

// CheckStandingKey refuses a namespace or name no request can hold, before
// a store reads or writes: the directory store makes a path of them.
func CheckStandingKey(namespace, name string) error {
	if !ValidNamespace(namespace) || !ValidQueryID(name) {
		return Errorf(KindInvalidInput, "standing question %s of namespace %s: not a valid name", EchoQuoted(name), EchoQuoted(namespace))
	}
	return nil
}

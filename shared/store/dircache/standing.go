package dircache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// maxStandingFileBytes caps a standing record's file: the encoded record's
// cap in base64, with room for the fields beside it.
const maxStandingFileBytes = globalsearch.MaxStandingRecordBytes*4/3 + 1024

// Standing keeps the records of standing questions in a directory
// (docs/contract.md#standing-questions), one file per question,
// <dir>/<namespace>/<name>.json, written like a cache entry (0600, renamed
// into place) and read with the same care. Records expire like runs.
type Standing struct {
	path string
	ttl  time.Duration
	now  func() time.Time
}

var _ globalsearch.Standing = (*Standing)(nil)

// NewStanding returns the records in path, created (0700) when first
// written. ttl <= 0 means globalsearch.DefaultRunsTTL; now nil means
// time.Now.
func NewStanding(path string, ttl time.Duration, now func() time.Time) *Standing {
	if ttl <= 0 {
		ttl = globalsearch.DefaultRunsTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Standing{path: path, ttl: ttl, now: now}
}

type standingFile struct {
	ExpiresAt int64  `json:"expiresAt"`
	StartedAt int64  `json:"startedAt"` // epoch milliseconds, as on DynamoDB
	Record    []byte `json:"record"`
}

// file is the record's file; only names a request can hold are taken, so
// no name reaches outside the directory.
func (s *Standing) file(namespace, name string) (string, error) {
	if err := globalsearch.CheckStandingKey(namespace, name); err != nil {
		return "", err
	}
	return filepath.Join(s.path, namespace, name+".json"), nil
}

// read reads the record file of a question: nil when there is none or it
// expired.
func (s *Standing) read(name string) (*standingFile, error) {
	data, err := readCapped(name, "standing record", maxStandingFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f standingFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read standing record %s: %w", name, err)
	}
	if f.ExpiresAt <= s.now().Unix() {
		return nil, nil
	}
	return &f, nil
}

// StandingRecord implements globalsearch.Standing.
func (s *Standing) StandingRecord(ctx context.Context, namespace, name string) (globalsearch.StandingRecord, error) {
	file, err := s.file(namespace, name)
	if err != nil {
		return globalsearch.StandingRecord{}, err
	}
	if err := ctx.Err(); err != nil {
		return globalsearch.StandingRecord{}, err
	}
	f, err := s.read(file)
	switch {
	case err != nil:
		return globalsearch.StandingRecord{}, err
	case f == nil:
		return globalsearch.StandingRecord{}, fmt.Errorf("standing record %s: %w", file, globalsearch.ErrNotFound)
	}
	r, err := globalsearch.DecodeStandingRecord(f.Record)
	if err != nil {
		return globalsearch.StandingRecord{}, fmt.Errorf("%s: %w", file, err)
	}
	return r, nil
}

// SaveStandingRecord implements globalsearch.Standing. The check of the
// stored record's start and the rename are two steps: of two processes
// saving one question at once the last rename wins.
func (s *Standing) SaveStandingRecord(ctx context.Context, r globalsearch.StandingRecord) error {
	file, err := s.file(r.Namespace, r.Name)
	if err != nil {
		return err
	}
	rec, err := globalsearch.EncodeStandingRecord(r)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	started := r.StartedAt.UnixMilli()
	// An unreadable file is replaced: it holds nothing a run can use.
	if old, err := s.read(file); err == nil && old != nil && old.StartedAt > started {
		return nil
	}
	data, err := json.Marshal(standingFile{ExpiresAt: s.now().Add(s.ttl).Unix(), StartedAt: started, Record: rec})
	if err != nil {
		return fmt.Errorf("encode standing record: %w", err)
	}
	return writeAtomic(file, "standing record", data)
}

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

// read reads the record file of a question: ErrNotFound when there is none
// or it expired, an UnreadableStandingRecord naming the file when
// anything else is at its name (a link, a named pipe, a device, a
// directory, a file over the cap or damaged); readCapped neither follows
// a link nor waits for a pipe's writer, and stops one byte past the cap.
func (s *Standing) read(ctx context.Context, name, file string) (globalsearch.StandingRecord, error) {
	if err := ctx.Err(); err != nil {
		return globalsearch.StandingRecord{}, err
	}
	data, err := readCapped(file, "standing record", maxStandingFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return globalsearch.StandingRecord{}, fmt.Errorf("standing record %s: %w", file, globalsearch.ErrNotFound)
	}
	if err != nil {
		return globalsearch.StandingRecord{}, globalsearch.UnreadableStandingRecord(name, "file "+file, err)
	}
	var f standingFile
	if err := json.Unmarshal(data, &f); err != nil {
		return globalsearch.StandingRecord{}, globalsearch.UnreadableStandingRecord(name, "file "+file, err)
	}
	if f.ExpiresAt <= s.now().Unix() {
		return globalsearch.StandingRecord{}, fmt.Errorf("standing record %s: %w", file, globalsearch.ErrNotFound)
	}
	r, err := globalsearch.DecodeStandingRecord(f.Record)
	if err != nil {
		return globalsearch.StandingRecord{}, globalsearch.UnreadableStandingRecord(name, "file "+file, err)
	}
	return r, nil
}

// StandingRecord implements globalsearch.Standing.
func (s *Standing) StandingRecord(ctx context.Context, namespace, name string) (globalsearch.StandingRecord, error) {
	file, err := s.file(namespace, name)
	if err != nil {
		return globalsearch.StandingRecord{}, err
	}
	return s.read(ctx, name, file)
}

// SaveStandingRecord implements globalsearch.Standing: the stored file is
// read as StandingRecord reads it, ReplaceStanding decides, and the new
// file is renamed into place (writeAtomic), so a reader sees the old
// record whole or the new one whole. The check and the rename are two
// steps: of two processes saving one question at once the last rename
// wins.
func (s *Standing) SaveStandingRecord(ctx context.Context, r globalsearch.StandingRecord, reset bool) error {
	file, err := s.file(r.Namespace, r.Name)
	if err != nil {
		return err
	}
	rec, err := globalsearch.EncodeStandingRecord(r)
	if err != nil {
		return err
	}
	old, err := s.read(ctx, r.Name, file)
	if ok, err := globalsearch.ReplaceStanding(r, old, err, reset); !ok || err != nil {
		return err
	}
	data, err := json.Marshal(standingFile{ExpiresAt: s.now().Add(s.ttl).Unix(), StartedAt: r.StartedAt.UnixMilli(), Record: rec})
	if err != nil {
		return fmt.Errorf("encode standing record: %w", err)
	}
	return writeAtomic(file, "standing record", data)
}

package globalsearch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// Standing keeps, per namespace and standing question, the record of the
// last run of that question that completed (docs/contract.md#standing-questions).
type Standing interface {
	// StandingRecord returns the record of the standing question name in
	// namespace, or ErrNotFound when there is none (never recorded, or
	// expired).
	StandingRecord(ctx context.Context, namespace, name string) (StandingRecord, error)
	// SaveStandingRecord stores r unless the record stored is of a run
	// that started later: a run that finishes late never replaces a
	// newer run's record. A record over MaxStandingRecordBytes encoded is
	// refused (KindInvalidInput) and the stored one stays.
	SaveStandingRecord(ctx context.Context, r StandingRecord) error
}

// StandingRecord is what a completed run of a standing question leaves for
// the next one: which run it was and the content hash of every community
// it mapped, in id order.
type StandingRecord struct {
	Namespace   string
	Name        string
	QueryID     string
	StartedAt   time.Time
	Communities []CommunityHash
}

// CommunityHash is the content hash of one community's map text
// (docs/contract.md#map-text) and the batch that held its first part.
type CommunityHash struct {
	ID    string `json:"id"`
	Hash  string `json:"hash"`
	Batch int    `json:"batch,omitempty"`
}

// Changes is what changed since the previous run of a standing question
// (docs/contract.md#standing-questions). Without a previous run (the first
// one, or a record expired or unreadable) PreviousQueryID is empty and the
// community counts are 0.
type Changes struct {
	StandingQuery     string     `json:"standingQuery"`
	PreviousQueryID   string     `json:"previousQueryId,omitempty"`
	PreviousStartedAt *time.Time `json:"previousStartedAt,omitempty"`
	// Communities counts the communities this run maps.
	Communities int              `json:"communities"`
	Added       CommunityChanges `json:"added"`
	Removed     CommunityChanges `json:"removed"`
	Changed     CommunityChanges `json:"changed"`
	Unchanged   int              `json:"unchanged"`
	// BatchesRemapped are the batches a model mapped (every batch but the
	// cache hits), AnswersReused the cache hits (docs/contract.md#map-cache);
	// a plan has neither yet.
	BatchesRemapped int `json:"batchesRemapped"`
	AnswersReused   int `json:"answersReused"`
}

// CommunityChanges counts one kind of change and lists the first
// MaxListedChanges ids of it in id order, so a report stays small however
// much of the index changed.
type CommunityChanges struct {
	Count int      `json:"count"`
	IDs   []string `json:"ids"`
}

// MaxListedChanges bounds the ids each kind of change lists.
const MaxListedChanges = 50

func (c *CommunityChanges) add(id string) {
	c.Count++
	if len(c.IDs) < MaxListedChanges {
		c.IDs = append(c.IDs, id)
	}
}

// textHash is the content hash of a map text: the first 8 bytes of its
// SHA-256, in hex. Two texts of one community compare; a collision would
// read a change as none, at odds of 2^-64.
func textHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// textHashes hashes the map text of every selected summary.
func (m mapInputs) textHashes() map[string]string {
	w := newWalkScratch()
	out := make(map[string]string, len(m.selected))
	for i, s := range m.selected {
		out[s.ID] = textHash(m.mapText(i, w))
	}
	return out
}

// withTextHashes records with each batch the hash of every community whose
// first part it holds, as planBatches records sources, so that reduce can
// write the record from the plan without reading the index.
func withTextHashes(batches []Batch, hashes map[string]string) {
	seen := make(map[string]bool, len(hashes))
	for i := range batches {
		for _, id := range batches[i].CommunityIDs {
			if !seen[id] {
				seen[id] = true
				batches[i].TextHashes = append(batches[i].TextHashes, CommunityHash{ID: id, Hash: hashes[id]})
			}
		}
	}
}

// planCommunities is the community hashes of a plan's batches, in id order.
func planCommunities(batches []Batch) []CommunityHash {
	var out []CommunityHash
	for _, b := range batches {
		for _, h := range b.TextHashes {
			out = append(out, CommunityHash{ID: h.ID, Hash: h.Hash, Batch: b.Index})
		}
	}
	slices.SortFunc(out, func(a, b CommunityHash) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// standing is the engine's store of standing records: Standing, else the
// runs store when it keeps them too (the runs table on AWS); nil for none.
func (e *Engine) standing() Standing {
	if e.Standing != nil {
		return e.Standing
	}
	s, _ := e.Runs.(Standing)
	return s
}

// checkStanding refuses a standing question the engine has nowhere to
// record, before anything is read or written.
func (e *Engine) checkStanding(p Params) error {
	if p.StandingQuery != "" && e.standing() == nil {
		return Errorf(KindInvalidInput, "standingQuery %s needs a store for its record, and this search has none", p.StandingQuery)
	}
	return nil
}

// compareStanding reports what changed since the previous run of p's
// standing question. A record that cannot be read is logged and reads as
// none: the report is about the run, and must not cost it its answer.
func (e *Engine) compareStanding(ctx context.Context, p Params, batches []Batch) *Changes {
	cur := planCommunities(batches)
	ch := &Changes{StandingQuery: p.StandingQuery, Communities: len(cur)}
	prev, err := e.standing().StandingRecord(ctx, p.Namespace, p.StandingQuery)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			e.logger().LogAttrs(ctx, slogError, "standing record unreadable", slog.String("queryId", p.QueryID),
				slog.String("standingQuery", p.StandingQuery), slog.String("error", err.Error()))
		}
		ch.listed()
		return ch
	}
	started := prev.StartedAt
	ch.PreviousQueryID, ch.PreviousStartedAt = prev.QueryID, &started
	i, j := 0, 0
	for i < len(prev.Communities) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(prev.Communities) && prev.Communities[i].ID < cur[j].ID):
			ch.Removed.add(prev.Communities[i].ID)
			i++
		case i == len(prev.Communities) || cur[j].ID < prev.Communities[i].ID:
			ch.Added.add(cur[j].ID)
			j++
		default:
			if prev.Communities[i].Hash == cur[j].Hash {
				ch.Unchanged++
			} else {
				ch.Changed.add(cur[j].ID)
			}
			i, j = i+1, j+1
		}
	}
	ch.listed()
	return ch
}

// withMapStage is the plan's report with what the map stage did: the
// batches a model mapped and the answers the cache served.
func (c *Changes) withMapStage(batches, cacheHits int) *Changes {
	if c == nil {
		return nil
	}
	out := *c
	out.AnswersReused, out.BatchesRemapped = cacheHits, batches-cacheHits
	out.listed()
	return &out
}

// listed makes every id list a list, never null, however the plan item
// stored an empty one: a client reads the report's lists without a check.
func (c *Changes) listed() {
	for _, l := range []*CommunityChanges{&c.Added, &c.Removed, &c.Changed} {
		if l.IDs == nil {
			l.IDs = []string{}
		}
	}
}

// recordStanding leaves the run's record for the next run of its standing
// question, once its result is saved: a failed run leaves the previous
// record in place. A failed write is logged and costs the run nothing.
func (e *Engine) recordStanding(ctx context.Context, r *reduceRun, status Status) {
	p := r.plan.Params
	if p.StandingQuery == "" || status == StatusFailed || e.standing() == nil {
		return
	}
	rec := StandingRecord{Namespace: p.Namespace, Name: p.StandingQuery, QueryID: p.QueryID,
		StartedAt: r.plan.CreatedAt, Communities: planCommunities(r.plan.Batches)}
	if err := e.standing().SaveStandingRecord(ctx, rec); err != nil {
		e.logger().LogAttrs(ctx, slogError, "standing record not saved", slog.String("queryId", p.QueryID),
			slog.String("standingQuery", p.StandingQuery), slog.String("error", err.Error()))
	}
}

// Line is the report as one line, what run prints under its coverage and
// plan under its estimate (docs/contract.md#standing-questions). mapped
// says whether the run's map stage is in it (a result) or not (a plan).
func (c *Changes) Line(mapped bool) string {
	var b strings.Builder
	if c.PreviousQueryID == "" {
		fmt.Fprintf(&b, "standing question %s: no previous run to compare, %s recorded", c.StandingQuery,
			Plural(c.Communities, "community", "communities"))
	} else {
		fmt.Fprintf(&b, "changes since %s: %s added, %d removed, %d changed, %d unchanged", c.PreviousQueryID,
			Plural(c.Added.Count, "community", "communities"), c.Removed.Count, c.Changed.Count, c.Unchanged)
	}
	if mapped {
		fmt.Fprintf(&b, "; %d of %s re-mapped, %s reused", c.BatchesRemapped,
			Plural(c.BatchesRemapped+c.AnswersReused, "batch", "batches"), Plural(c.AnswersReused, "answer", "answers"))
	}
	return b.String()
}

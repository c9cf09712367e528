package globalsearch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
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
	// expired). A record that is stored but cannot be read (damaged,
	// truncated, not a regular file, too large) is an error of kind
	// KindInvalidInput wrapping a *StandingRecordError that names where it
	// is (UnreadableStandingRecord), never ErrNotFound.
	StandingRecord(ctx context.Context, namespace, name string) (StandingRecord, error)
	// SaveStandingRecord stores r as ReplaceStanding decides from the
	// record stored: never over a record of a run that started later (a
	// run that finishes late never replaces a newer run's record), and,
	// unless reset, never over a record that cannot be read or that
	// belongs to another question. A record over MaxStandingRecordBytes
	// encoded is refused (KindInvalidInput) and the stored one stays.
	SaveStandingRecord(ctx context.Context, r StandingRecord, reset bool) error
}

// StandingRecord is what a completed run of a standing question leaves for
// the next one: which question it belongs to, which run it was and the
// content hash of every community it mapped, in id order.
type StandingRecord struct {
	Namespace string
	Name      string
	// Question is what the record belongs to besides its namespace and
	// name; zero in a record written before records held it.
	Question    StandingQuestion
	QueryID     string
	StartedAt   time.Time
	Communities []CommunityHash
}

// StandingQuestion is what a standing question's record belongs to beside
// its namespace and name (docs/contract.md#standing-questions): the
// question, which communities it is asked of, and what shapes each map
// answer (the map-answer cache key's parts but the batch content:
// docs/contract.md#map-cache). How the communities are packed (budgets,
// batching, shuffle, tokenizer) and the reduce stage may differ between
// runs: the report compares communities, not batches.
type StandingQuestion struct {
	Query          string `json:"query"`
	CommunityLevel Level  `json:"communityLevel"`
	// MaxMapInputTokens chooses the level of communityLevel "auto"; 0 for
	// any other level.
	MaxMapInputTokens int    `json:"maxMapInputTokens,omitempty"`
	Selection         string `json:"selection,omitempty"`
	// RatingThreshold selects the communities of selection "dynamic"; 0
	// for any other selection.
	RatingThreshold  int    `json:"ratingThreshold,omitempty"`
	MapModel         string `json:"mapModel"`
	MapPrompts       string `json:"mapPrompts"`
	MapOutputReserve int    `json:"mapOutputReserve"`
}

// standingQuestion is what a run of p by e asks, as its record keeps it.
func (e *Engine) standingQuestion(p Params) StandingQuestion {
	q := StandingQuestion{Query: p.Query, CommunityLevel: p.CommunityLevel, Selection: p.Selection,
		MapModel: e.ModelID, MapPrompts: mapPromptsDigest(e.prompts()), MapOutputReserve: p.MapOutputReserve}
	if p.CommunityLevel == AutoLevel {
		q.MaxMapInputTokens = p.MaxMapInputTokens
	}
	if p.Selection == SelectionDynamic {
		q.RatingThreshold = p.ratingThreshold()
	}
	// The CLI's plan names the offline model "offline" and its run by the
	// version of its rules ("offline/2", for the cache): one model here.
	if IsOfflineModelID(q.MapModel) {
		q.MapModel = OfflineModelID
	}
	return q
}

// mapPromptsDigest is the first 8 bytes, in hex, of the SHA-256 of the
// prompts a map call sends (the system prompt and the map template),
// each length-prefixed so that no two pairs hash alike.
func mapPromptsDigest(p Prompts) string {
	h := sha256.New()
	var n [8]byte
	for _, s := range []string{p.System, p.Map.head, p.Map.tail} {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// differences names each part of q that differs from o, as q has it and as
// o has it, in the same order.
func (q StandingQuestion) differences(o StandingQuestion) (was, is []string) {
	add := func(differ bool, a, b string) {
		if differ {
			was, is = append(was, a), append(is, b)
		}
	}
	add(q.Query != o.Query, "query "+EchoQuoted(q.Query), "query "+EchoQuoted(o.Query))
	add(q.CommunityLevel != o.CommunityLevel || q.MaxMapInputTokens != o.MaxMapInputTokens ||
		q.Selection != o.Selection || q.RatingThreshold != o.RatingThreshold, q.selection(), o.selection())
	add(q.MapModel != o.MapModel, "map model "+EchoQuoted(q.MapModel), "map model "+EchoQuoted(o.MapModel))
	add(q.MapPrompts != o.MapPrompts, "map prompts of digest "+q.MapPrompts, "map prompts of digest "+o.MapPrompts)
	add(q.MapOutputReserve != o.MapOutputReserve, fmt.Sprintf("mapOutputReserve %d", q.MapOutputReserve),
		fmt.Sprintf("mapOutputReserve %d", o.MapOutputReserve))
	return was, is
}

// selection names how q chooses its communities, as a request says it.
func (q StandingQuestion) selection() string {
	switch {
	case q.Selection == SelectionDynamic:
		return fmt.Sprintf("selection %q, ratingThreshold %d", q.Selection, q.RatingThreshold)
	case q.CommunityLevel == AutoLevel:
		return fmt.Sprintf("communityLevel auto, maxMapInputTokens %d", q.MaxMapInputTokens)
	}
	return "communityLevel " + q.CommunityLevel.String()
}

// resetHint is how every refusal of a standing record ends: the two ways on.
const resetHint = "use another name, or --standing-reset (standingReset: true) to start a new baseline"

// StandingRecordError is a standing question's record that is stored but
// cannot be read (docs/contract.md#standing-questions). It is never read
// as "no previous run": the run is refused and the record kept, until a
// run with standingReset replaces it.
type StandingRecordError struct {
	// Name is the standing question; Where the file or table item that
	// holds its record ("file <path>", "item <key> of table <name>").
	Name, Where string
	Err         error
}

func (e *StandingRecordError) Error() string {
	return fmt.Sprintf("standing question %s: its record, %s, cannot be read (%v); it is kept: %s",
		EchoQuoted(e.Name), e.Where, e.Err, resetHint)
}

func (e *StandingRecordError) Unwrap() error { return e.Err }

// UnreadableStandingRecord is the error every store returns for the record
// of name at where that it holds but cannot read: invalid input, since the
// run cannot go on as asked, while its record stays.
func UnreadableStandingRecord(name, where string, err error) error {
	return &Error{Kind: KindInvalidInput, Err: &StandingRecordError{Name: name, Where: where, Err: err}}
}

// checkBelongs refuses prev as the record of p's question unless it is of
// the same namespace, name and question q (docs/contract.md#standing-questions),
// naming what differs.
func checkBelongs(prev StandingRecord, namespace, name string, q StandingQuestion) error {
	if prev.Question == (StandingQuestion{}) {
		return Errorf(KindInvalidInput, "standing question %s was recorded (by %s) before records named their question, so this run cannot be checked against it: %s",
			EchoQuoted(name), prev.QueryID, resetHint)
	}
	was, is := prev.Question.differences(q)
	if prev.Namespace != namespace || prev.Name != name {
		// A file copied from another question's name reads as this one's.
		was = append([]string{"namespace " + EchoQuoted(prev.Namespace) + " as " + EchoQuoted(prev.Name)}, was...)
		is = append([]string{"namespace " + EchoQuoted(namespace) + " as " + EchoQuoted(name)}, is...)
	}
	if len(was) == 0 {
		return nil
	}
	return Errorf(KindInvalidInput, "standing question %s was recorded for %s; this run asks for %s: %s",
		EchoQuoted(name), strings.Join(was, ", "), strings.Join(is, ", "), resetHint)
}

// ReplaceStanding is the rule of every store's SaveStandingRecord
// (docs/contract.md#standing-questions): whether r may replace the record
// the store holds, given what reading it returned (stored, readErr). A
// record that is absent or expired (ErrNotFound) is replaced; one that
// cannot be read, or belongs to another question, is kept and its error
// returned, unless reset; one of a run that started later is kept
// silently, reset or not, since a late finisher never replaces a newer
// record.
func ReplaceStanding(r, stored StandingRecord, readErr error, reset bool) (bool, error) {
	switch {
	case errors.Is(readErr, ErrNotFound):
		return true, nil
	case readErr != nil && reset && errors.As(readErr, new(*StandingRecordError)):
		return true, nil
	case readErr != nil:
		return false, readErr
	case stored.StartedAt.UnixMilli() > r.StartedAt.UnixMilli():
		return false, nil
	case !reset:
		if err := checkBelongs(stored, r.Namespace, r.Name, r.Question); err != nil {
			return false, err
		}
	}
	return true, nil
}

// CommunityHash is the content hash of one community's map text
// (docs/contract.md#map-text), the batch that held its first part, and the
// digest of its identity (identityDigest; "" in a record written before
// records held it).
type CommunityHash struct {
	ID    string `json:"id"`
	Hash  string `json:"hash"`
	Batch int    `json:"batch,omitempty"`
	Key   string `json:"key,omitempty"`
}

// Changes is what changed since the previous run of a standing question
// (docs/contract.md#standing-questions). Without a previous run (the first
// one, a record expired, or one the run resets) PreviousQueryID is empty
// and the community counts are 0.
type Changes struct {
	StandingQuery string `json:"standingQuery"`
	// Reset says the run was asked to start a new baseline
	// (standingReset): it read no record and replaces the stored one.
	Reset             bool       `json:"reset,omitempty"`
	PreviousQueryID   string     `json:"previousQueryId,omitempty"`
	PreviousStartedAt *time.Time `json:"previousStartedAt,omitempty"`
	// Communities counts the communities this run maps.
	Communities int              `json:"communities"`
	Added       CommunityChanges `json:"added"`
	Removed     CommunityChanges `json:"removed"`
	Changed     CommunityChanges `json:"changed"`
	Unchanged   int              `json:"unchanged"`
	// Renumbered counts the unchanged communities whose id is not the one
	// their text had, and of Changed those paired with their previous text
	// by identity under another id (docs/contract.md#standing-questions).
	Renumbered int `json:"renumbered,omitempty"`
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

// textHashes hashes the map text of every selected summary, with the
// digest of its identity.
func (m mapInputs) textHashes() map[string]CommunityHash {
	w := newWalkScratch()
	out := make(map[string]CommunityHash, len(m.selected))
	for i, s := range m.selected {
		out[s.ID] = CommunityHash{ID: s.ID, Hash: textHash(m.mapText(i, w)), Key: m.identityDigest(i)}
	}
	return out
}

// withTextHashes records with each batch the hash of every community whose
// first part it holds, as planBatches records sources, so that reduce can
// write the record from the plan without reading the index.
func withTextHashes(batches []Batch, hashes map[string]CommunityHash) {
	seen := make(map[string]bool, len(hashes))
	for i := range batches {
		for _, id := range batches[i].CommunityIDs {
			if !seen[id] {
				seen[id] = true
				batches[i].TextHashes = append(batches[i].TextHashes, hashes[id])
			}
		}
	}
}

// planCommunities is the community hashes of a plan's batches, in id order.
func planCommunities(batches []Batch) []CommunityHash {
	var out []CommunityHash
	for _, b := range batches {
		for _, h := range b.TextHashes {
			h.Batch = b.Index
			out = append(out, h)
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

// standingBaseline reads the record of p's standing question, before the
// plan reads the index or calls a model (docs/contract.md#standing-questions):
// nil when there is none, or when p resets it, which is then never read.
// A record that cannot be read, or that belongs to another question, is
// an error: the run is refused and the record stays, since reading it as
// none would report a first run and then replace it.
func (e *Engine) standingBaseline(ctx context.Context, p Params) (*StandingRecord, error) {
	if p.StandingQuery == "" || p.StandingReset {
		return nil, nil
	}
	prev, err := e.standing().StandingRecord(ctx, p.Namespace, p.StandingQuery)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the record of standing question %s: %w", p.StandingQuery, err)
	}
	if err := checkBelongs(prev, p.Namespace, p.StandingQuery, e.standingQuestion(p)); err != nil {
		return nil, err
	}
	return &prev, nil
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
// record in place. A failed or refused write (a record that became
// unreadable, or another question's, since prepare read it) is logged and
// costs the run nothing: its answer is saved.
func (e *Engine) recordStanding(ctx context.Context, r *reduceRun, status Status) {
	p := r.plan.Params
	if p.StandingQuery == "" || status == StatusFailed || e.standing() == nil {
		return
	}
	rec := StandingRecord{Namespace: p.Namespace, Name: p.StandingQuery, Question: e.standingQuestion(p), QueryID: p.QueryID,
		StartedAt: r.plan.CreatedAt, Communities: planCommunities(r.plan.Batches)}
	if err := e.standing().SaveStandingRecord(ctx, rec, p.StandingReset); err != nil {
		e.logger().LogAttrs(ctx, slogError, "standing record not saved", slog.String("queryId", p.QueryID),
			slog.String("standingQuery", p.StandingQuery), slog.String("error", err.Error()))
	}
}

// Line is the report as one line, what run prints under its coverage and
// plan under its estimate (docs/contract.md#standing-questions). mapped
// says whether the run's map stage is in it (a result) or not (a plan).
func (c *Changes) Line(mapped bool) string {
	var b strings.Builder
	switch {
	case c.Reset:
		fmt.Fprintf(&b, "standing question %s: reset, no previous run compared, %s recorded as the new baseline", c.StandingQuery,
			Plural(c.Communities, "community", "communities"))
	case c.PreviousQueryID == "":
		fmt.Fprintf(&b, "standing question %s: no previous run to compare, %s recorded", c.StandingQuery,
			Plural(c.Communities, "community", "communities"))
	default:
		fmt.Fprintf(&b, "changes since %s: %s added, %d removed, %d changed, %d unchanged", c.PreviousQueryID,
			Plural(c.Added.Count, "community", "communities"), c.Removed.Count, c.Changed.Count, c.Unchanged)
		if c.Renumbered > 0 {
			fmt.Fprintf(&b, " (%d under new ids)", c.Renumbered)
		}
	}
	if mapped {
		fmt.Fprintf(&b, "; %d of %s re-mapped, %s reused", c.BatchesRemapped,
			Plural(c.BatchesRemapped+c.AnswersReused, "batch", "batches"), Plural(c.AnswersReused, "answer", "answers"))
	}
	return b.String()
}

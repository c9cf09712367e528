// Package memstore is the embedded, in-process twin of the DynamoDB store:
// an Index loaded from index files and a Runs store held in memory. It is
// what `make run` and the tests use; it passes the same conformance suite
// (storetest) as the DynamoDB adapter.
package memstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Store holds namespaces and runs in memory. It is safe for concurrent use.
// Values go in and come out as copies, so callers never share its state:
// records and plans are copied field by field (strings are immutable, so
// only slices are cloned), which for a 10,000-summary index is an order of
// magnitude cheaper than the JSON round trip results still take.
type Store struct {
	mu         sync.RWMutex
	namespaces map[string]*namespace
	versions   uint64
	requests   map[string]globalsearch.Params
	plans      map[string]globalsearch.Plan
	answers    map[runKey]map[int]globalsearch.MapAnswer
	results    map[string]globalsearch.Result
	// resultRun is the run that may save a query id's result: the last
	// plan's, or "" once a failure was recorded without one.
	resultRun map[string]string
	// owner is the execution that owns a query id's result (as on the
	// DynamoDB store's result item): only it may cancel the run.
	owner  map[string]string
	reduce map[runKey]int
	// standing are the standing questions' records (standing.go).
	standing standingRecords
	// rating are the dynamic selections' batches and ratings (ratings.go).
	rating ratingRecords
	// rounds are the tree reduces' groups and group answers (rounds.go).
	rounds   roundRecords
	attempts mapAttemptRecords // the map attempts no answer holds (mapattempts.go)
}

// runKey keys what belongs to one run of a query id.
type runKey struct{ queryID, runID string }

var (
	_ globalsearch.Index       = (*Store)(nil)
	_ globalsearch.IndexWriter = (*Store)(nil)
	_ globalsearch.Runs        = (*Store)(nil)
)

var _ globalsearch.NamespaceLister = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{
		namespaces: map[string]*namespace{},
		requests:   map[string]globalsearch.Params{},
		plans:      map[string]globalsearch.Plan{},
		answers:    map[runKey]map[int]globalsearch.MapAnswer{},
		results:    map[string]globalsearch.Result{},
		resultRun:  map[string]string{},
		owner:      map[string]string{},
		reduce:     map[runKey]int{},
	}
}

// namespace is one version of a namespace. A replacement stores a new one
// and never changes an old one, so a snapshot that holds it reads one
// whole version however many replacements follow, as on DynamoDB
// (docs/contract.md#namespace-versions), where the lock does what the
// conditional switch does there.
type namespace struct {
	records globalsearch.Records
	chunks  map[string]globalsearch.Chunk
	// version numbers the replacements of the store, so that a snapshot
	// names the version it reads as DynamoDB's does.
	version uint64
}

// ReplaceNamespace implements globalsearch.IndexWriter: the new version
// replaces the old one at once.
func (s *Store) ReplaceNamespace(_ context.Context, name string, r globalsearch.Records) error {
	if err := r.Validate(); err != nil {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace %s: %w", name, err)
	}
	if len(r.Summaries) == 0 {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "namespace %s: %s", name, globalsearch.NoSummariesMessage)
	}
	copied := globalsearch.Records{
		Summaries: slices.Clone(r.Summaries),
		Claims:    cloneClaims(r.Claims),
		Chunks:    slices.Clone(r.Chunks),
		// Entities and relationships hold lists of their own: cloned deep,
		// as claims are, so a caller's later change cannot reach the store.
		Entities:      cloneEntities(r.Entities),
		Relationships: cloneRelationships(r.Relationships),
	}
	byID := make(map[string]globalsearch.Chunk, len(copied.Chunks))
	for _, c := range copied.Chunks {
		byID[c.ID] = c
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions++
	s.namespaces[name] = &namespace{records: copied, chunks: byID, version: s.versions}
	return nil
}

// DeleteNamespace implements globalsearch.IndexWriter.
func (s *Store) DeleteNamespace(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.namespaces, name)
	return nil
}

// Namespaces implements globalsearch.NamespaceLister: the namespaces that
// hold records.
func (s *Store) Namespaces(context.Context) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := slices.Sorted(maps.Keys(s.namespaces))
	if names == nil {
		names = []string{}
	}
	return names, nil
}

// Open implements globalsearch.Index.
func (s *Store) Open(_ context.Context, name string) (globalsearch.Snapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if ns := s.namespaces[name]; ns != nil {
		return snapshot{ns}, nil
	}
	return snapshot{&namespace{}}, nil
}

// snapshot reads one version; it never changes, so it is always intact.
type snapshot struct{ ns *namespace }

// Version implements globalsearch.VersionedSnapshot; an empty namespace has
// version "0".
func (v snapshot) Version() string { return strconv.FormatUint(v.ns.version, 10) }

func (v snapshot) Summaries(context.Context) ([]globalsearch.Summary, error) {
	return slices.Clone(v.ns.records.Summaries), nil
}

func (v snapshot) Claims(context.Context) ([]globalsearch.Claim, error) {
	return cloneClaims(v.ns.records.Claims), nil
}

func (v snapshot) Chunks(_ context.Context, ids []string) ([]globalsearch.Chunk, error) {
	out := make([]globalsearch.Chunk, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if c, ok := v.ns.chunks[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func (snapshot) Intact(context.Context) (bool, error) { return true, nil }

// Entities implements globalsearch.GraphSnapshot.
func (v snapshot) Entities(context.Context) ([]globalsearch.Entity, error) {
	return cloneEntities(v.ns.records.Entities), nil
}

// Relationships implements globalsearch.GraphSnapshot.
func (v snapshot) Relationships(context.Context) ([]globalsearch.Relationship, error) {
	return cloneRelationships(v.ns.records.Relationships), nil
}

func cloneEntities(in []globalsearch.Entity) []globalsearch.Entity {
	out := make([]globalsearch.Entity, len(in))
	for i, e := range in {
		e.CommunityIDs = slices.Clone(e.CommunityIDs)
		out[i] = e
	}
	return out
}

func cloneRelationships(in []globalsearch.Relationship) []globalsearch.Relationship {
	out := make([]globalsearch.Relationship, len(in))
	for i, r := range in {
		r.CommunityIDs = slices.Clone(r.CommunityIDs)
		out[i] = r
	}
	return out
}

// Summaries reads the summaries of the current version of a namespace.
func (s *Store) Summaries(ctx context.Context, name string) ([]globalsearch.Summary, error) {
	v, _ := s.Open(ctx, name)
	return v.Summaries(ctx)
}

// Claims reads the claims of the current version of a namespace.
func (s *Store) Claims(ctx context.Context, name string) ([]globalsearch.Claim, error) {
	v, _ := s.Open(ctx, name)
	return v.Claims(ctx)
}

// Chunks reads chunks of the current version of a namespace, as
// globalsearch.Snapshot does.
func (s *Store) Chunks(ctx context.Context, name string, ids []string) ([]globalsearch.Chunk, error) {
	v, _ := s.Open(ctx, name)
	return v.Chunks(ctx, ids)
}

func cloneClaims(claims []globalsearch.Claim) []globalsearch.Claim {
	claims = slices.Clone(claims)
	for i := range claims {
		claims[i].SourceChunkIDs = slices.Clone(claims[i].SourceChunkIDs)
	}
	return claims
}

// CreateRequest implements globalsearch.Requests. A request it creates
// supersedes the id's result, as the DynamoDB store's fresh result item
// does; the owner ("" for the query id) is the one CancelResult asks for.
func (s *Store) CreateRequest(_ context.Context, p globalsearch.Params, owner string) (globalsearch.Params, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if have, ok := s.requests[p.QueryID]; ok {
		return have, false, nil
	}
	p.SeedGenerated, p.MapConcurrencyDefault = false, false // not stored, as in DynamoDB
	s.requests[p.QueryID] = p
	delete(s.results, p.QueryID)
	s.resultRun[p.QueryID] = ""
	s.owner[p.QueryID] = cmp.Or(owner, p.QueryID)
	return p, true, nil
}

// Request implements globalsearch.Requests.
func (s *Store) Request(_ context.Context, queryID string) (globalsearch.Params, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.requests[queryID]
	if !ok {
		return globalsearch.Params{}, globalsearch.ErrNotFound
	}
	return p, nil
}

// SavePlan implements globalsearch.Plans. A plan is saved with its request,
// so a run started without CreateRequest (a schedule) has one too. It drops
// the previous run's answers, reduce count and result, as the DynamoDB
// store deletes them.
func (s *Store) SavePlan(_ context.Context, p globalsearch.Plan) error {
	copied := clonePlan(p, true)
	copied.Params.SeedGenerated = false // not stored, as in DynamoDB
	copied.Continues = false
	for i := range copied.Batches {
		copied.Batches[i].RunID = p.RunID
	}
	id := p.Params.QueryID
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancelled(id) {
		return fmt.Errorf("save plan of query %s: the query was cancelled: %w", id, globalsearch.ErrNotFound)
	}
	if old, ok := s.plans[id]; p.Continues && (!ok || old.RunID != p.RunID) {
		return fmt.Errorf("save plan of query %s: run %s is no longer its current run: %w", id, p.RunID, globalsearch.ErrNotFound)
	}
	if old, ok := s.plans[id]; ok && old.RunID != p.RunID {
		delete(s.answers, runKey{id, old.RunID})
		delete(s.reduce, runKey{id, old.RunID})
		// Nothing expires here, as the runs table's items do: a long-lived
		// process (serve) would keep every replaced run's ratings.
		s.dropRunItems(runKey{id, old.RunID})
	}
	s.plans[id] = copied
	s.requests[id] = copied.Params
	delete(s.results, id)
	s.resultRun[id] = p.RunID
	s.owner[id] = cmp.Or(p.Owner, id)
	return nil
}

// Plan implements globalsearch.Plans.
func (s *Store) Plan(_ context.Context, queryID string) (globalsearch.Plan, error) {
	s.mu.RLock()
	p, ok := s.plans[queryID]
	s.mu.RUnlock()
	if !ok {
		return globalsearch.Plan{}, globalsearch.ErrNotFound
	}
	return clonePlan(p, true), nil
}

// PlanMeta implements globalsearch.Plans.
func (s *Store) PlanMeta(_ context.Context, queryID string) (globalsearch.Plan, error) {
	s.mu.RLock()
	p, ok := s.plans[queryID]
	s.mu.RUnlock()
	if !ok {
		return globalsearch.Plan{}, globalsearch.ErrNotFound
	}
	return clonePlan(p, false), nil
}

// clonePlan copies what the DynamoDB store would keep of a plan, batch
// content only when withContent. Empty optional lists come back nil, as
// they do from a store that omits them.
func clonePlan(p globalsearch.Plan, withContent bool) globalsearch.Plan {
	// No monotonic reading survives a store.
	p.CreatedAt, p.PlannedAt = p.CreatedAt.Round(0), p.PlannedAt.Round(0)
	p.AvailableLevels = cloneNonEmpty(p.AvailableLevels)
	p.AvailableNamespaces = cloneNonEmpty(p.AvailableNamespaces)
	if p.Changes != nil {
		changes := *p.Changes
		p.Changes = &changes
	}
	if p.Selection != nil {
		s := *p.Selection
		p.Selection = &s
	}
	p.Batches = slices.Clone(p.Batches)
	for i := range p.Batches {
		p.Batches[i].CommunityIDs = slices.Clone(p.Batches[i].CommunityIDs)
		p.Batches[i].Centrality = maps.Clone(p.Batches[i].Centrality)
		p.Batches[i].TextHashes = cloneNonEmpty(p.Batches[i].TextHashes)
		if !withContent {
			p.Batches[i].Content = ""
		}
	}
	return p
}

func cloneNonEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// Batch implements globalsearch.Plans.
func (s *Store) Batch(_ context.Context, queryID string, index int) (globalsearch.Batch, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.plans[queryID]
	if !ok || index < 0 || index >= len(p.Batches) {
		return globalsearch.Batch{}, globalsearch.ErrNotFound
	}
	b := p.Batches[index]
	b.CommunityIDs = slices.Clone(b.CommunityIDs)
	b.Centrality = maps.Clone(b.Centrality)
	return b, nil
}

// SaveMapAnswer implements globalsearch.Answers.
func (s *Store) SaveMapAnswer(_ context.Context, queryID, runID string, a globalsearch.MapAnswer) error {
	a.CommunityIDs = slices.Clone(a.CommunityIDs)
	a.CalledAt, a.AnsweredAt = a.CalledAt.Round(0), a.AnsweredAt.Round(0)
	k := runKey{queryID, runID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answers[k] == nil {
		s.answers[k] = map[int]globalsearch.MapAnswer{}
	}
	s.answers[k][a.BatchIndex] = a
	return nil
}

// MapAnswers implements globalsearch.Answers.
func (s *Store) MapAnswers(_ context.Context, queryID, runID string) ([]globalsearch.MapAnswer, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	byIndex := s.answers[runKey{queryID, runID}]
	out := make([]globalsearch.MapAnswer, 0, len(byIndex))
	for _, i := range slices.Sorted(maps.Keys(byIndex)) {
		a := byIndex[i]
		a.CommunityIDs = slices.Clone(a.CommunityIDs)
		out = append(out, a)
	}
	return out, nil
}

// AddReduceCall implements globalsearch.ReduceCalls.
func (s *Store) AddReduceCall(_ context.Context, queryID, runID string) (int, error) {
	k := runKey{queryID, runID}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reduce[k]++
	return s.reduce[k], nil
}

// ReduceCalls implements globalsearch.ReduceCalls.
func (s *Store) ReduceCalls(_ context.Context, queryID, runID string) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.reduce[runKey{queryID, runID}], nil
}

// SaveResult implements globalsearch.Results.
func (s *Store) SaveResult(_ context.Context, r globalsearch.Result, runID string) error {
	var copied globalsearch.Result
	if err := deepCopy(r, &copied); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if runID != "" && s.resultRun[r.QueryID] != runID {
		return fmt.Errorf("result of query %s: run %s is no longer the current run: %w", r.QueryID, runID, globalsearch.ErrNotFound)
	}
	if s.cancelled(r.QueryID) {
		return fmt.Errorf("result of query %s: the query was cancelled: %w", r.QueryID, globalsearch.ErrNotFound)
	}
	s.results[r.QueryID] = copied
	s.resultRun[r.QueryID] = runID
	return nil
}

// Result implements globalsearch.Results.
func (s *Store) Result(_ context.Context, queryID string) (globalsearch.Result, error) {
	s.mu.RLock()
	r, ok := s.results[queryID]
	s.mu.RUnlock()
	if !ok {
		return globalsearch.Result{}, globalsearch.ErrNotFound
	}
	var copied globalsearch.Result
	err := deepCopy(r, &copied)
	return copied, err
}

// deepCopy copies through JSON, the same round trip a real store makes, so
// the twin cannot keep a field the DynamoDB store would lose. Only results
// take it: one small value per run, whose fields grow most often.
func deepCopy(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return fmt.Errorf("copy %T: %w", from, err)
	}
	return json.Unmarshal(data, to)
}

package lookup

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func ref(s globalsearch.Summary) Ref { return Ref{ID: s.ID, Title: s.Title, Level: s.Level} }

// community builds the Community of id, or reports it absent.
func (r *reader) community(id string) (*Community, bool, error) {
	if err := r.loadSummaries(); err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(r.summaries, func(s globalsearch.Summary) bool { return s.ID == id })
	if i < 0 {
		return nil, false, nil
	}
	s := r.summaries[i]
	c := &Community{ID: s.ID, Title: s.Title, Level: s.Level, ParentCommunityID: s.ParentCommunityID, Summary: s.Summary,
		Children: []Ref{}, Omitted: map[string]int{}}
	children := map[string][]string{}
	for _, o := range r.summaries {
		children[o.ParentCommunityID] = append(children[o.ParentCommunityID], o.ID)
		if o.ParentCommunityID == s.ID && o.ID != s.ID {
			c.Children = append(c.Children, ref(o))
		}
		if o.ID == s.ParentCommunityID {
			p := ref(o)
			c.Parent = &p
		}
	}
	if err := r.loadClaims(); err != nil {
		return nil, false, err
	}
	under := descendants(s.ID, children)
	claims := []globalsearch.Claim{}
	for _, cl := range r.claims {
		if under[cl.CommunityID] {
			claims = append(claims, cl)
		}
	}
	c.Claims = capped(c, "claims", claims, r.opts.Limit)
	excerpts, err := r.excerpts(claims)
	if err != nil {
		return nil, false, err
	}
	c.TextUnitIDs, c.Documents = sources(excerpts)
	c.Excerpts = capped(c, "excerpts", excerpts, r.opts.Limit)
	if err := r.graph(c); err != nil {
		return nil, false, err
	}
	if len(c.Omitted) == 0 {
		c.Omitted = nil
	}
	return c, true, nil
}

// graph adds the entities and relationships of c's community, the most
// connected first (degree, weight), as GraphRAG ranks them in its context.
func (r *reader) graph(c *Community) error {
	entities, err := r.entities()
	if err != nil {
		return err
	}
	mine := []globalsearch.Entity{}
	for _, e := range entities {
		if slices.Contains(e.CommunityIDs, c.ID) {
			mine = append(mine, e)
		}
	}
	slices.SortStableFunc(mine, func(a, b globalsearch.Entity) int { return cmp.Compare(b.Degree, a.Degree) })
	c.Entities = capped(c, "entities", mine, r.opts.Limit)
	rels, err := r.relationships()
	if err != nil {
		return err
	}
	mineRels := []globalsearch.Relationship{}
	for _, rel := range rels {
		if slices.Contains(rel.CommunityIDs, c.ID) {
			mineRels = append(mineRels, rel)
		}
	}
	slices.SortStableFunc(mineRels, func(a, b globalsearch.Relationship) int { return cmp.Compare(b.Weight, a.Weight) })
	c.Relationships = capped(c, "relationships", mineRels, r.opts.Limit)
	return nil
}

// descendants are id and every summary below it. A corrupt hierarchy (a
// cycle) ends the walk where it repeats: a lookup shows what is there.
func descendants(id string, children map[string][]string) map[string]bool {
	out := map[string]bool{id: true}
	todo := []string{id}
	for len(todo) > 0 {
		next := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, ch := range children[next] {
			if !out[ch] {
				out[ch] = true
				todo = append(todo, ch)
			}
		}
	}
	return out
}

// capped is list cut to limit (none when limit <= 0), counting the rest
// in c.Omitted under name.
func capped[T any](c *Community, name string, list []T, limit int) []T {
	if limit > 0 && len(list) > limit {
		c.Omitted[name] = len(list) - limit
		return list[:limit]
	}
	return list
}

// excerpts are the chunks claims cite that exist, in citation order.
func (r *reader) excerpts(claims []globalsearch.Claim) ([]globalsearch.Chunk, error) {
	ids := []string{}
	seen := map[string]bool{}
	for _, c := range claims {
		for _, id := range c.SourceChunkIDs {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return []globalsearch.Chunk{}, nil
	}
	got, err := r.snap.Chunks(r.ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]globalsearch.Chunk, len(got))
	for _, c := range got {
		byID[c.ID] = c
	}
	out := make([]globalsearch.Chunk, 0, len(got))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// sources are the distinct text units and documents of chunks, in
// first-cited order.
func sources(chunks []globalsearch.Chunk) ([]string, []Document) {
	units, docs := []string{}, []Document{}
	for _, c := range chunks {
		if c.TextUnitID != "" && !slices.Contains(units, c.TextUnitID) {
			units = append(units, c.TextUnitID)
		}
		if c.DocumentID != "" && !slices.ContainsFunc(docs, func(d Document) bool { return d.ID == c.DocumentID }) {
			docs = append(docs, Document{ID: c.DocumentID, Title: c.DocumentTitle})
		}
	}
	return units, docs
}

// claim builds the Claim of id, or reports it absent.
func (r *reader) claim(id string) (*Claim, bool, error) {
	if err := r.loadClaims(); err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(r.claims, func(c globalsearch.Claim) bool { return c.ID == id })
	if i < 0 {
		return nil, false, nil
	}
	c := &Claim{Claim: r.claims[i]}
	excerpts, err := r.excerpts([]globalsearch.Claim{c.Claim})
	if err != nil {
		return nil, false, err
	}
	c.Excerpts = excerpts
	if err := r.loadSummaries(); err != nil {
		return nil, false, err
	}
	if j := slices.IndexFunc(r.summaries, func(s globalsearch.Summary) bool { return s.ID == c.CommunityID }); j >= 0 {
		p := ref(r.summaries[j])
		c.Community = &p
	}
	return c, true, nil
}

// Level is the reports of one level, by id.
type Level struct {
	Level   int   `json:"level"`
	Reports []Ref `json:"reports"`
}

// Reports lists the community reports of namespace by level, lowest level
// first and by id within one: the way into an index for a reader who has
// no id yet (serve's reports endpoint, `globalsearch show` without an id).
func Reports(ctx context.Context, index globalsearch.Index, namespace string) ([]Level, error) {
	snap, err := index.Open(ctx, namespace)
	if err != nil {
		return nil, err
	}
	summaries, err := snap.Summaries(ctx)
	if err != nil {
		return nil, err
	}
	byLevel := map[int][]Ref{}
	for _, s := range summaries {
		byLevel[s.Level] = append(byLevel[s.Level], ref(s))
	}
	levels := []Level{}
	for _, l := range slices.Sorted(maps.Keys(byLevel)) {
		refs := byLevel[l]
		slices.SortFunc(refs, func(a, b Ref) int { return compareIDs(a.ID, b.ID) })
		levels = append(levels, Level{Level: l, Reports: refs})
	}
	return levels, nil
}

// compareIDs orders ids that are numbers (GraphRAG's community numbers) by
// value, "2" before "10", and any other id after them by its bytes.
func compareIDs(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

// ReportList is the communities of a namespace by level, as `show --json`
// without an id prints them and serve's reports route answers.
type ReportList struct {
	Namespace string  `json:"namespace"`
	Levels    []Level `json:"levels"`
}

// Show is what `globalsearch show` prints: with an id, the record (Find)
// and its Text; without, the ReportList and its ReportsText.
func Show(ctx context.Context, index globalsearch.Index, namespace, id string, opts Options) (value any, text string, err error) {
	if id == "" {
		levels, err := Reports(ctx, index, namespace)
		if err != nil {
			return nil, "", err
		}
		return ReportList{Namespace: namespace, Levels: levels}, ReportsText(namespace, levels), nil
	}
	rec, err := Find(ctx, index, namespace, id, opts)
	if err != nil {
		return nil, "", err
	}
	return rec, Text(rec), nil
}

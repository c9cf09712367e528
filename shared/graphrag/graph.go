package graphrag

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The graph behind the communities (docs/contract.md#entities):
// entities.parquet and relationships.parquet become the index's entities
// and relationships, each naming the summaries whose community holds it,
// and documents.parquet gives the chunks their documents' titles. All
// three are optional: a folder without them imports as before, and `show`
// lists no entities. None enters a map text.

// readEntityRecords keeps row i of entities.parquet as an entity, unless
// its id is not a valid id or repeats one (counted in skipped).
func (im *importer) readEntityRecords(t *table) error {
	cols, err := columns(t, "id", "type?", "description?", "degree?")
	if err != nil {
		return err
	}
	names, err := t.firstColumn(true, "title", "name")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	skipped := 0
	for i := range t.rows {
		id, title := cols["id"].str(i), strings.TrimSpace(names.str(i))
		if title == "" || id == "" {
			continue // nothing to show, as readEntities skips it for claims
		}
		if globalsearch.CheckID(id) != nil || seen[id] || !utf8.ValidString(title) {
			skipped++
			continue
		}
		seen[id] = true
		degree, _, err := cols["degree"].int(i)
		if err != nil {
			return err
		}
		im.records.Entities = append(im.records.Entities, globalsearch.Entity{
			ID: id, Title: title, Type: cols["type"].str(i), Description: cols["description"].str(i), Degree: int(max(0, min(degree, 1<<31-1))),
		})
	}
	if skipped > 0 {
		im.warn("%s: %d rows with an id that is not a valid id (docs/contract.md#ids) or with a repeated id are not kept as entities", t.name, skipped)
	}
	return nil
}

// readRelationships keeps the rows of relationships.parquet whose id is a
// valid id and both ends are named.
func (im *importer) readRelationships(t *table) error {
	cols, err := columns(t, "id", "source", "target", "description?", "weight?")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	skipped := 0
	for i := range t.rows {
		r := globalsearch.Relationship{ID: cols["id"].str(i), Source: strings.TrimSpace(cols["source"].str(i)), Target: strings.TrimSpace(cols["target"].str(i)),
			Description: cols["description"].str(i)}
		if r.Source == "" || r.Target == "" || globalsearch.CheckID(r.ID) != nil || seen[r.ID] {
			skipped++
			continue
		}
		seen[r.ID] = true
		w, err := cols["weight"].float(i)
		if err != nil {
			return err
		}
		if w != nil && *w > 0 {
			r.Weight = *w
		}
		im.records.Relationships = append(im.records.Relationships, r)
	}
	if skipped > 0 {
		im.warn("%s: %d rows without both ends, with an id that is not a valid id (docs/contract.md#ids) or with a repeated id are not kept", t.name, skipped)
	}
	im.report.Relationships = len(im.records.Relationships)
	return nil
}

// readDocuments returns the title of each document id.
func (im *importer) readDocuments(t *table) (map[string]string, error) {
	cols, err := columns(t, "id", "title?")
	if err != nil {
		return nil, err
	}
	titles := make(map[string]string, t.rows)
	for i := range t.rows {
		if id := cols["id"].str(i); id != "" {
			titles[id] = strings.TrimSpace(cols["title"].str(i))
		}
	}
	im.report.Documents = len(titles)
	return titles, nil
}

// readGraph reads the relationships and documents, and places the entities
// and relationships in the communities that hold them: by
// communities.parquet's entity_ids and relationship_ids, as GraphRAG's
// own context builder does; a relationship of a folder whose communities
// file has no relationship_ids (GraphRAG before 1.0) is in every community
// that holds both its ends.
func (im *importer) readGraph() error {
	rels, err := im.open("relationships", false)
	if err != nil {
		return err
	}
	if rels != nil {
		if err := im.readRelationships(rels); err != nil {
			return err
		}
	}
	docs, err := im.open("documents", false)
	if err != nil {
		return err
	}
	if docs != nil {
		titles, err := im.readDocuments(docs)
		if err != nil {
			return err
		}
		for i, c := range im.records.Chunks {
			im.records.Chunks[i].DocumentTitle = titles[c.DocumentID]
		}
	}
	im.placeGraph()
	im.fitGraph()
	return nil
}

// placeGraph fills the communityIds of the entities and relationships,
// each in ascending community order, with the communities that have a
// summary only: a community without a report is nowhere to be shown.
func (im *importer) placeGraph() {
	reported := make(map[int64]bool, len(im.records.Summaries))
	for _, s := range im.records.Summaries {
		if n, err := strconv.ParseInt(s.ID, 10, 64); err == nil {
			reported[n] = true
		}
	}
	ofEntity, ofRel := map[string][]string{}, map[string][]string{}
	byRelIDs := im.relationshipIDs
	for _, n := range slices.Sorted(maps.Keys(im.communities)) {
		if !reported[n] {
			continue
		}
		id := strconv.FormatInt(n, 10)
		row := im.communities[n]
		for _, e := range row.entityIDs {
			ofEntity[e] = append(ofEntity[e], id)
		}
		for _, r := range row.relationshipIDs {
			ofRel[r] = append(ofRel[r], id)
		}
	}
	byTitle := map[string][]string{}
	for i, e := range im.records.Entities {
		im.records.Entities[i].CommunityIDs = nonNil(ofEntity[e.ID])
		byTitle[e.Title] = im.records.Entities[i].CommunityIDs
	}
	for i, r := range im.records.Relationships {
		if byRelIDs {
			im.records.Relationships[i].CommunityIDs = nonNil(ofRel[r.ID])
			continue
		}
		both := []string{}
		for _, c := range byTitle[r.Source] {
			if slices.Contains(byTitle[r.Target], c) {
				both = append(both, c)
			}
		}
		im.records.Relationships[i].CommunityIDs = both
	}
}

// fitGraph cuts a description that would make its entity or relationship
// exceed globalsearch.MaxGraphRecordBytes, and keeps at most
// globalsearch.MaxGraphCommunities communities of each, with one warning
// per file: a long description is GraphRAG's summary of many, and the
// rest of the graph is worth importing.
func (im *importer) fitGraph() {
	cut := 0
	fit := func(desc *string, communities *[]string, others int) {
		if len(*communities) > globalsearch.MaxGraphCommunities {
			*communities, cut = (*communities)[:globalsearch.MaxGraphCommunities], cut+1
		}
		for _, c := range *communities {
			others += len(c)
		}
		if room := globalsearch.MaxGraphRecordBytes - others; len(*desc) > room {
			*desc, cut = cutBytes(*desc, max(0, room)), cut+1
		}
	}
	for i := range im.records.Entities {
		e := &im.records.Entities[i]
		fit(&e.Description, &e.CommunityIDs, len(e.ID)+len(e.Title)+len(e.Type))
	}
	for i := range im.records.Relationships {
		r := &im.records.Relationships[i]
		fit(&r.Description, &r.CommunityIDs, len(r.ID)+len(r.Source)+len(r.Target))
	}
	if cut > 0 {
		im.warn("%d entities or relationships were cut to the %d bytes (or %d communities) one may hold", cut, globalsearch.MaxGraphRecordBytes, globalsearch.MaxGraphCommunities)
	}
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// cutBytes is s cut to at most n bytes, at a character's start.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

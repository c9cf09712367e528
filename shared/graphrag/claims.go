package graphrag

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// readEntities maps entity names to their ids. Titles are unique in GraphRAG
// 1.x and later; should two entities share one, a claim about it may sit in
// the community of either, so both ids are kept.
func (im *importer) readEntities(t *table) (map[string][]string, error) {
	ids, err := t.column("id", true)
	if err != nil {
		return nil, err
	}
	// GraphRAG 0.x called the entity name "name".
	names, err := t.firstColumn(true, "title", "name")
	if err != nil {
		return nil, err
	}
	byName := make(map[string][]string, t.rows)
	for i := range t.rows {
		id, name := ids.str(i), names.str(i)
		if id == "" || name == "" {
			continue
		}
		byName[name] = append(byName[name], id)
		im.report.Entities++
	}
	return byName, nil
}

// indexLeaves maps each entity id to the leaf summaries whose community
// holds it, in ascending community order (leaves is sorted).
func (im *importer) indexLeaves(leaves []int64) {
	im.leafOf = map[string][]int64{}
	im.inCommunity = map[string]bool{}
	for _, c := range im.communities {
		for _, e := range c.entityIDs {
			im.inCommunity[e] = true
		}
	}
	for _, leaf := range leaves {
		for _, e := range im.communities[leaf].entityIDs {
			im.leafOf[e] = append(im.leafOf[e], leaf)
		}
	}
}

// claimStatusShown are the claim statuses worth telling the model: a claim
// GraphRAG judged false or only suspected must not read as fact.
var claimStatusShown = map[string]bool{"FALSE": true, "SUSPECTED": true}

// entityNames finds the entity ids of a claim's subject.
type entityNames struct {
	exact map[string][]string
	// folded is a case-insensitive index, consulted only when the exact
	// name misses: the claim and entity extraction prompts both upper-case
	// names, but an LLM does not always comply.
	folded map[string][]string
}

func newEntityNames(byName map[string][]string) entityNames {
	folded := make(map[string][]string, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		key := strings.ToUpper(strings.TrimSpace(name))
		folded[key] = append(folded[key], byName[name]...)
	}
	return entityNames{exact: byName, folded: folded}
}

func (n entityNames) ids(subject string) ([]string, bool) {
	if ids, ok := n.exact[subject]; ok {
		return ids, true
	}
	ids, ok := n.folded[strings.ToUpper(subject)]
	return ids, ok
}

// covariateColumns are the columns of covariates.parquet a claim is built of.
type covariateColumns struct {
	ids, readable                                       *column
	subject, object, status, description, unit, sources *column
}

func readCovariateColumns(t *table) (covariateColumns, error) {
	cols, err := columns(t, "subject_id", "object_id?", "status?", "description?", "text_unit_id?", "source_text?")
	if err != nil {
		return covariateColumns{}, err
	}
	ids, err := t.firstColumn(true, "id", "human_readable_id")
	if err != nil {
		return covariateColumns{}, err
	}
	readable, err := t.column("human_readable_id", false)
	if err != nil {
		return covariateColumns{}, err
	}
	return covariateColumns{
		ids: ids, readable: readable,
		subject: cols["subject_id"], object: cols["object_id"], status: cols["status"],
		description: cols["description"], unit: cols["text_unit_id"], sources: cols["source_text"],
	}, nil
}

// id is the claim id of row i: its id, else its human-readable id.
func (c covariateColumns) id(i int) string {
	if id := c.ids.str(i); id != "" {
		return id
	}
	return c.readable.str(i)
}

// readCovariates stores as claims the covariates whose subject is in a leaf
// community, and reports the others.
func (im *importer) readCovariates(t *table, byName map[string][]string) error {
	cols, err := readCovariateColumns(t)
	if err != nil {
		return err
	}
	names := newEntityNames(byName)
	seen := map[string]bool{}
	im.report.Covariates = t.rows
	for i := range t.rows {
		if i%1000 == 0 {
			if err := im.ctx.Err(); err != nil {
				return err
			}
		}
		id := cols.id(i)
		// Names are trimmed: the map text shows them (docs/contract.md#map-text) and an LLM
		// sometimes pads them.
		subject := strings.TrimSpace(cols.subject.str(i))
		leaf, reason := im.placeClaim(id, subject, seen, names)
		if reason != "" {
			im.report.Unmatched = append(im.report.Unmatched, UnmatchedClaim{ID: id, Subject: subject, Reason: reason})
			continue
		}
		seen[id] = true
		im.records.Claims = append(im.records.Claims, im.newClaim(cols, i, id, subject, leaf))
	}
	im.report.ClaimsAttached = len(im.records.Claims)
	if t.rows > 0 && im.report.ClaimsAttached == 0 {
		return im.noClaimPlaced(t)
	}
	im.progress("%d of %d claims attached to leaf communities from %s", im.report.ClaimsAttached, t.rows, t.name)
	return nil
}

// placeClaim returns the leaf community of the claim id about subject, or
// the reason it has none; seen holds the ids already stored.
func (im *importer) placeClaim(id, subject string, seen map[string]bool, names entityNames) (int64, string) {
	switch {
	case id == "":
		return 0, ReasonNoID
	case seen[id]:
		return 0, ReasonDuplicateID
	case subject == "":
		return 0, ReasonNoSubject
	}
	entityIDs, ok := names.ids(subject)
	if !ok {
		return 0, ReasonUnknownEntity
	}
	leaf, ok := im.leafFor(entityIDs)
	if !ok {
		// GraphRAG leaves entities without relationships out of every
		// community; telling that apart from a hierarchy without leaf
		// data tells the user which of the two to look at.
		if slices.ContainsFunc(entityIDs, func(e string) bool { return im.inCommunity[e] }) {
			return 0, ReasonNoLeaf
		}
		return 0, ReasonNoCommunity
	}
	return leaf, ""
}

// newClaim builds the claim of row i, placed in leaf, and records the chunks
// it cites.
func (im *importer) newClaim(cols covariateColumns, i int, id, subject string, leaf int64) globalsearch.Claim {
	c := globalsearch.Claim{
		ID:             id,
		CommunityID:    strconv.FormatInt(leaf, 10),
		Subject:        subject,
		Description:    cols.description.str(i),
		SourceChunkIDs: []string{},
	}
	// GraphRAG writes "NONE" when a claim has no object.
	if o := strings.TrimSpace(cols.object.str(i)); o != "" && o != "NONE" {
		c.Object = o
	}
	if st := strings.ToUpper(strings.TrimSpace(cols.status.str(i))); claimStatusShown[st] {
		c.Description = "[status: " + st + "] " + c.Description
	}
	c.SourceChunkIDs = im.cite(cols.unit.str(i), cols.sources.strs(i))
	return c
}

// leafFor picks the smallest leaf community holding any of the entity ids.
func (im *importer) leafFor(entityIDs []string) (int64, bool) {
	best, found := int64(0), false
	for _, e := range entityIDs {
		if leaves := im.leafOf[e]; len(leaves) > 0 && (!found || leaves[0] < best) {
			best, found = leaves[0], true
		}
	}
	return best, found
}

// noClaimPlaced is the error of a covariates file none of whose claims
// could be placed (docs/contract.md#import). GraphRAG places most claims of
// a real index, so none at all is a folder whose files do not belong
// together, such as the reports copied as communities.parquet: imported, it
// would search without a single claim, and a warning is easily missed. The
// message counts the reasons and says what the commonest one likely means.
func (im *importer) noClaimPlaced(t *table) error {
	counts := map[string]int{}
	for _, u := range im.report.Unmatched {
		counts[u.Reason]++
	}
	reasons := slices.Collect(maps.Keys(counts))
	slices.SortFunc(reasons, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", counts[r], r)
	}
	communities, entities := cmp.Or(im.files["communities"], "communities.parquet"), cmp.Or(im.files["entities"], "entities.parquet")
	hint := map[string]string{
		ReasonNoCommunity:   fmt.Sprintf("%s may not be GraphRAG's communities file (the community reports copied under its name?), or it and %s come from different index runs", communities, entities),
		ReasonNoLeaf:        fmt.Sprintf("%s names no leaf community that holds their entities: it and %s may come from different index runs", communities, im.files["community_reports"]),
		ReasonUnknownEntity: fmt.Sprintf("their subjects name no entity of %s: it and %s may come from different index runs", entities, t.name),
		ReasonNoSubject:     t.name + " may not be GraphRAG's covariates file: its claims have no subject",
		ReasonNoID:          t.name + " may not be GraphRAG's covariates file: its claims have no id",
		ReasonDuplicateID:   t.name + " repeats one claim id throughout",
	}[reasons[0]]
	return fmt.Errorf("none of the %d claims in %s could be placed in a leaf community (%s): %s; every file of the folder must come from one run of `graphrag index`",
		t.rows, t.name, strings.Join(parts, ", "), hint)
}

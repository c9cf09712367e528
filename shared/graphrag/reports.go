package graphrag

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func (im *importer) readCommunities(t *table) error {
	spec := []string{"community", "parent?", "children?", "entity_ids?", "relationship_ids?"}
	if im.opts.SearchOnly {
		spec = spec[:len(spec)-1] // relationships are not imported
	}
	cols, err := columns(t, spec...)
	if err != nil {
		return err
	}
	if im.opts.SearchOnly {
		cols["relationship_ids"] = &column{file: t.name, name: "relationship_ids"}
	}
	im.communities = make(map[int64]communityRow, t.rows)
	for i := range t.rows {
		id, ok, err := cols["community"].int(i)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s row %d: column \"community\" is null", t.name, i)
		}
		var row communityRow
		if row.parent, row.hasParent, err = cols["parent"].int(i); err != nil {
			return err
		}
		if row.children, err = cols["children"].ints(i); err != nil {
			return err
		}
		row.entityIDs = cols["entity_ids"].strs(i)
		row.relationshipIDs = cols["relationship_ids"].strs(i)
		im.communities[id] = row
	}
	im.relationshipIDs = cols["relationship_ids"].present
	if !cols["entity_ids"].present {
		im.warn("%s has no entity_ids column: claims cannot be placed in communities", t.name)
	}
	return nil
}

// reportRow is what a summary needs of one row of community_reports.parquet.
type reportRow struct {
	id, parent int64
	hasParent  bool
	level      int64
	title      string
	text       string
	// short is the report's summary column beside a full_content text:
	// what dynamic selection rates (docs/contract.md#dynamic-selection).
	short string
	// rank and size are GraphRAG's, kept for centrality
	// (docs/contract.md#centrality): 0 when absent.
	rank float64
	size int64
}

// readReports builds the summaries and returns the community numbers of the
// leaves, sorted.
func (im *importer) readReports(t *table) ([]int64, error) {
	reports, parentOfChild, err := im.readReportRows(t)
	if err != nil {
		return nil, err
	}
	im.inheritParents(reports, parentOfChild)
	hasParent := im.dropMissingParents(reports)
	leaves := im.addSummaries(reports, hasParent)
	im.progress("%d summaries (%d leaves) from %s", len(reports), len(leaves), t.name)
	return leaves, nil
}

// readReportRows reads the reports, sorted by community number, and the
// parent each community listed among some report's children has (the first
// report in file order to list it).
func (im *importer) readReportRows(t *table) ([]reportRow, map[int64]int64, error) {
	text := string(im.opts.Content)
	names := []string{"community", "level", "parent?", "children?", "title?", "rank?", "size?", text}
	if im.opts.Content == ContentFullContent {
		names = append(names, string(ContentSummary)+"?")
	}
	cols, err := columns(t, names...)
	if err != nil {
		return nil, nil, err
	}
	reports := make([]reportRow, 0, t.rows)
	byID := make(map[int64]bool, t.rows)
	parentOfChild := map[int64]int64{}
	for i := range t.rows {
		r, children, err := readReportRow(t, cols, text, i)
		if err != nil {
			return nil, nil, err
		}
		if byID[r.id] {
			return nil, nil, fmt.Errorf("%s row %d: community %d has two reports", t.name, i, r.id)
		}
		byID[r.id] = true
		for _, c := range children {
			if _, ok := parentOfChild[c]; !ok {
				parentOfChild[c] = r.id
			}
		}
		reports = append(reports, r)
	}
	slices.SortFunc(reports, func(a, b reportRow) int { return cmp.Compare(a.id, b.id) })
	return reports, parentOfChild, nil
}

// readReportRow reads row i of the reports and the children it lists.
func readReportRow(t *table, cols map[string]*column, text string, i int) (reportRow, []int64, error) {
	var r reportRow
	var ok bool
	var err error
	if r.id, ok, err = cols["community"].int(i); err != nil {
		return r, nil, err
	} else if !ok {
		return r, nil, fmt.Errorf("%s row %d: column \"community\" is null", t.name, i)
	}
	if r.level, ok, err = cols["level"].int(i); err != nil {
		return r, nil, err
	} else if !ok || r.level < 0 {
		return r, nil, fmt.Errorf("%s row %d (community %d): column \"level\" must be an integer >= 0", t.name, i, r.id)
	}
	if r.parent, r.hasParent, err = cols["parent"].int(i); err != nil {
		return r, nil, err
	}
	children, err := cols["children"].ints(i)
	if err != nil {
		return r, nil, err
	}
	if rank, err := cols["rank"].float(i); err != nil {
		return r, nil, err
	} else if rank != nil && *rank > 0 && !math.IsInf(*rank, 0) {
		// GraphRAG rates 0-10; a rank it cannot have (NaN fails the test
		// above) ranks nothing.
		r.rank = *rank
	}
	if r.size, _, err = cols["size"].int(i); err != nil {
		return r, nil, err
	}
	r.size = max(r.size, 0)
	r.title = cols["title"].str(i)
	r.text = cols[text].str(i)
	if c := cols[string(ContentSummary)]; c != nil && text != string(ContentSummary) {
		r.short = c.str(i)
	}
	return r, children, nil
}

// inheritParents gives each report without a parent column the hierarchy:
// the communities file's parent, else whoever lists the community among its
// children (reports first, then communities in ascending order, so a
// conflict resolves the same way every time).
func (im *importer) inheritParents(reports []reportRow, parentOfChild map[int64]int64) {
	communityIDs := slices.Sorted(maps.Keys(im.communities))
	for _, id := range communityIDs {
		for _, child := range im.communities[id].children {
			if _, ok := parentOfChild[child]; !ok {
				parentOfChild[child] = id
			}
		}
	}
	for i := range reports {
		r := &reports[i]
		if r.hasParent {
			continue
		}
		if c, ok := im.communities[r.id]; ok && c.hasParent {
			r.parent, r.hasParent = c.parent, true
			continue
		}
		r.parent, r.hasParent = parentOfChild[r.id]
	}
}

// dropMissingParents makes roots of the reports whose parent is no report
// (or themselves), with a warning, and returns the communities some report
// names as parent.
func (im *importer) dropMissingParents(reports []reportRow) map[int64]bool {
	byID := make(map[int64]bool, len(reports))
	for _, r := range reports {
		byID[r.id] = true
	}
	hasParent := map[int64]bool{}
	var missing []string
	for i := range reports {
		r := &reports[i]
		// GraphRAG marks a root with parent -1.
		if !r.hasParent || r.parent < 0 {
			r.hasParent = false
			continue
		}
		if r.parent == r.id || !byID[r.parent] {
			missing = append(missing, fmt.Sprintf("%d (parent %d)", r.id, r.parent))
			r.hasParent = false
			continue
		}
		hasParent[r.parent] = true
	}
	if len(missing) > 0 {
		im.warn("%d communities name a parent that has no report (or themselves); they are imported as roots: %s", len(missing), globalsearch.ListCapped(missing, ", "))
	}
	return hasParent
}

// addSummaries stores a summary per report and returns the leaves: the
// communities no report names as parent, in ascending order.
func (im *importer) addSummaries(reports []reportRow, hasParent map[int64]bool) []int64 {
	var leaves []int64
	im.records.Summaries = make([]globalsearch.Summary, 0, len(reports))
	for _, r := range reports {
		s := globalsearch.Summary{
			ID:      strconv.FormatInt(r.id, 10),
			Level:   int(r.level),
			Title:   r.title,
			Summary: withTitle(r.title, r.text),
			Rank:    r.rank,
			Size:    int(min(r.size, math.MaxInt32)),
		}
		// Rated beside the title, the short form needs no heading.
		s.ShortSummary = strings.TrimSpace(r.short)
		if r.hasParent {
			s.ParentCommunityID = strconv.FormatInt(r.parent, 10)
		}
		if !hasParent[r.id] {
			leaves = append(leaves, r.id)
		}
		if strings.TrimSpace(s.Summary) == "" {
			im.report.BlankSummaries++
		}
		im.report.Levels[s.Level]++
		im.records.Summaries = append(im.records.Summaries, s)
	}
	im.report.Summaries = len(reports)
	im.report.Leaves = len(leaves)
	return leaves
}

// withTitle puts the title at the head of text as a Markdown heading, unless
// text is blank or already starts with that heading (full_content does).
func withTitle(title, text string) string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" || strings.TrimSpace(text) == "" {
		return text
	}
	heading := "# " + title
	if first, _, _ := strings.Cut(strings.TrimSpace(text), "\n"); strings.TrimSpace(first) == heading {
		return text
	}
	return heading + "\n\n" + text
}

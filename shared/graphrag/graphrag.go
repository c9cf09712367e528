// Package graphrag imports the output folder of a Microsoft GraphRAG index
// run (parquet files, schema versions 1 to 3) as the records of one
// namespace (docs/contract.md#index): community reports become summaries, covariates
// become claims assigned to leaf communities, text units become chunks.
//
// Files are read with github.com/parquet-go/parquet-go: pure Go (no cgo, so
// the CLI and Lambda builds stay static), actively maintained (the
// successor of segmentio/parquet-go), and it decodes what pandas/pyarrow
// write for GraphRAG: dictionary and RLE encodings, data pages v1 and v2,
// Snappy, Zstd, Gzip, LZ4 and Brotli compression, nested LIST columns.
// Columns are read by name through its low-level column API rather than
// into Go structs, because GraphRAG's columns drift between versions.
//
// Choices the contract (docs/contract.md) leaves open, made here:
//   - A summary's id is its community number in decimal; its parent is the
//     report's `parent` column, else the communities file's, else the
//     inverse of `children`. A parent that names no community report is
//     dropped (the summary becomes a root) and reported as a warning, so one
//     failed report in GraphRAG does not make the whole index unsearchable.
//   - A claim goes to the leaf summary whose community's `entity_ids` holds
//     its subject entity; when several leaves do, the smallest community
//     number wins. Subjects are matched to entity titles exactly, then
//     case-insensitively after trimming.
//   - A claim that matches no leaf is not stored: its id, subject and reason
//     are in the Report. Storing it would make every search count it as an
//     orphan claim, a diagnostic meant for an index that broke after import.
//   - A claim whose status is FALSE or SUSPECTED keeps that status as a
//     prefix of its description ("[status: FALSE] ..."), so a model never
//     reads a disproved claim as fact. The claim type is not kept.
//   - covariates.parquet (claim extraction is off by default in GraphRAG) and
//     text_units.parquet are optional: without them there are no claims, or
//     no whole text units to cite (excerpts then lack a document id), and
//     the Report says so.
//   - A report's title heads its summary text as a Markdown heading
//     ("# <title>"), the form of GraphRAG's own full_content, because the
//     map text (docs/contract.md#map-text) shows the summary and not the title. A report
//     without summary text stays blank: a title alone answers nothing.
//   - Claims cite excerpts by default (Options.Excerpts): a text unit is a
//     whole 1,200-token window, repeated in the map text of every summary
//     one of its claims reaches, while a covariate's source_text is the
//     passage that supports the claim, the child chunk docs/contract.md#index means.
package graphrag

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Content selects the report text a summary holds.
type Content string

// The two texts a GraphRAG community report has.
const (
	// ContentSummary is the report's short executive summary.
	ContentSummary Content = "summary"
	// ContentFullContent is the whole report (title, summary, findings):
	// richer, and several times longer, so it costs more map batches.
	ContentFullContent Content = "full_content"
)

// Excerpts selects the source chunks claims cite.
type Excerpts string

// The source chunks a claim can cite.
const (
	// ExcerptsSourceText: each claim cites an excerpt chunk holding its
	// covariate's source_text (one chunk per distinct text of a text unit,
	// with the unit's document). A claim without source text cites its
	// whole text unit instead, so that it keeps its evidence.
	ExcerptsSourceText Excerpts = "source-text"
	// ExcerptsTextUnit: each claim cites its whole text unit, and every text
	// unit is imported.
	ExcerptsTextUnit Excerpts = "text-unit"
	// ExcerptsNone: claims cite nothing and no chunk is imported.
	ExcerptsNone Excerpts = "none"
)

// Options tune an import. The zero value is valid.
type Options struct {
	// Content is the report column used as summary text; empty means
	// ContentSummary.
	Content Content
	// Excerpts selects what claims cite; empty means ExcerptsSourceText.
	Excerpts Excerpts
	// Progress, when not nil, receives one line per file read.
	Progress io.Writer
}

// Report says what an import read and what it could not use.
type Report struct {
	Summaries int
	// Leaves is the number of summaries no other summary names as parent.
	Leaves int
	// Levels counts summaries per level.
	Levels map[int]int
	// BlankSummaries are summaries whose text is empty; the search never
	// selects them (docs/contract.md#selection).
	BlankSummaries int
	Entities       int
	// Covariates is the number of rows in covariates.parquet.
	Covariates int
	// ClaimsAttached is the number of claims stored.
	ClaimsAttached int
	// Unmatched are the covariates that could not be stored as claims.
	Unmatched []UnmatchedClaim
	// Excerpts is the mode the claims' citations were built in.
	Excerpts Excerpts
	// ExcerptChunks is the number of excerpt chunks built from source_text.
	ExcerptChunks int
	// NoSourceText counts the attached claims without source text (null,
	// blank or GraphRAG's "NONE") in ExcerptsSourceText mode; of those,
	// CiteTextUnit cite their whole text unit instead and the rest cite
	// nothing (they name no text unit either).
	NoSourceText, CiteTextUnit int
	// TextUnits is the number of text units read; TextUnitsUncited of them
	// were left out because no claim cites them (ExcerptsSourceText: only
	// chunks a claim cites can reach a map text).
	TextUnits, TextUnitsUncited int
	// Chunks is the number of chunks stored (excerpts and text units).
	Chunks int
	// Warnings are problems that did not stop the import.
	Warnings []string
}

// UnmatchedClaim is a covariate left out of the index, and why.
type UnmatchedClaim struct {
	ID, Subject, Reason string
}

// Reasons a covariate is not stored.
const (
	ReasonNoID          = "no id"
	ReasonNoSubject     = "no subject"
	ReasonUnknownEntity = "subject is not an entity"
	ReasonNoCommunity   = "subject entity is in no community"
	ReasonNoLeaf        = "subject entity is in no leaf community"
	ReasonDuplicateID   = "duplicate id"
)

// File names, newest first: GraphRAG 1.x prefixed them with create_final_.
var fileNames = map[string][]string{
	"community_reports": {"community_reports.parquet", "create_final_community_reports.parquet"},
	"communities":       {"communities.parquet", "create_final_communities.parquet"},
	"entities":          {"entities.parquet", "create_final_entities.parquet"},
	"covariates":        {"covariates.parquet", "create_final_covariates.parquet"},
	"text_units":        {"text_units.parquet", "create_final_text_units.parquet"},
}

// Import reads the GraphRAG output folder dir. The records it returns pass
// the rules every search applies (Records.Validate and
// globalsearch.CheckHierarchy), so an import never writes an index the search
// refuses. Every error but a canceled ctx is invalid input
// (globalsearch.KindInvalidInput) naming the file (docs/contract.md#import).
func Import(ctx context.Context, dir string, opts Options) (globalsearch.Records, Report, error) {
	records, report, err := importDir(ctx, dir, opts)
	if err != nil && ctx.Err() == nil && globalsearch.KindOf(err) != globalsearch.KindInvalidInput {
		// Whatever is wrong with the folder's files is the user's to fix, and
		// nothing was written yet: a malformed folder exits like bad input.
		err = &globalsearch.Error{Kind: globalsearch.KindInvalidInput, Err: err}
	}
	return records, report, err
}

func importDir(ctx context.Context, dir string, opts Options) (globalsearch.Records, Report, error) {
	im := importer{ctx: ctx, dir: dir, opts: opts, report: Report{Levels: map[int]int{}},
		units: map[string]globalsearch.Chunk{}, citedUnits: map[string]bool{}, excerptSeen: map[string]bool{}, files: map[string]string{}}
	// Empty lists, not nil: an index file says "claims": [] rather than null.
	im.records = globalsearch.Records{Summaries: []globalsearch.Summary{}, Claims: []globalsearch.Claim{}, Chunks: []globalsearch.Chunk{}}
	switch opts.Content {
	case "":
		im.opts.Content = ContentSummary
	case ContentSummary, ContentFullContent:
	default:
		return globalsearch.Records{}, Report{}, fmt.Errorf("content must be %q or %q, not %q", ContentSummary, ContentFullContent, opts.Content)
	}
	switch opts.Excerpts {
	case "":
		im.opts.Excerpts = ExcerptsSourceText
	case ExcerptsSourceText, ExcerptsTextUnit, ExcerptsNone:
	default:
		return globalsearch.Records{}, Report{}, fmt.Errorf("excerpts must be %q, %q or %q, not %q", ExcerptsSourceText, ExcerptsTextUnit, ExcerptsNone, opts.Excerpts)
	}
	im.report.Excerpts = im.opts.Excerpts
	if info, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return globalsearch.Records{}, Report{}, fmt.Errorf("GraphRAG output folder %s: no such folder", dir)
	} else if err != nil {
		return globalsearch.Records{}, Report{}, fmt.Errorf("GraphRAG output folder: %w", err)
	} else if !info.IsDir() {
		return globalsearch.Records{}, Report{}, fmt.Errorf("GraphRAG output folder: %s is not a folder", dir)
	}
	err := im.run()
	for _, t := range im.tables {
		t.close()
	}
	if err != nil {
		return globalsearch.Records{}, Report{}, err
	}
	if err := im.validate(); err != nil {
		return globalsearch.Records{}, Report{}, err
	}
	return im.records, im.report, nil
}

// validate applies the search's own rules to what the import built, each
// kind of record under the name of the file it came from. Import already
// drops a parent that names no report (with a warning), so what is left for
// CheckHierarchy is a cycle or a child not below its parent: GraphRAG never
// writes either, so the folder is damaged and nothing is imported.
func (im *importer) validate() error {
	r := im.records
	if err := (globalsearch.Records{Summaries: r.Summaries}).Validate(); err != nil {
		return fmt.Errorf("%s: %w", im.files["community_reports"], err)
	}
	if err := globalsearch.CheckHierarchy(r.Summaries); err != nil {
		return fmt.Errorf("%s: %w", im.hierarchyFiles(), err)
	}
	if err := (globalsearch.Records{Claims: r.Claims}).Validate(); err != nil {
		return fmt.Errorf("%s: %w", im.files["covariates"], err)
	}
	if err := (globalsearch.Records{Chunks: r.Chunks}).Validate(); err != nil {
		return fmt.Errorf("%s: %w", cmp.Or(im.files["text_units"], im.files["covariates"]), err)
	}
	return nil
}

// hierarchyFiles names the files the parent links were read from.
func (im *importer) hierarchyFiles() string {
	if c := im.files["communities"]; c != "" {
		return im.files["community_reports"] + " (with " + c + ")"
	}
	return im.files["community_reports"]
}

type importer struct {
	ctx     context.Context
	dir     string
	opts    Options
	records globalsearch.Records
	report  Report

	// communities holds, per community number, its row of communities.parquet.
	communities map[int64]communityRow
	// leafOf maps an entity id to the leaf summaries holding it, sorted.
	leafOf map[string][]int64
	// inCommunity holds the entity ids some community holds.
	inCommunity map[string]bool

	// units are the text units by id, read before the covariates so that
	// an excerpt can take its unit's document.
	units map[string]globalsearch.Chunk
	// unitOrder lists the unit ids in file order.
	unitOrder []string
	// citedUnits are the unit ids some claim cites whole.
	citedUnits map[string]bool
	// excerpts are the excerpt chunks in first-cited order; excerptSeen
	// holds their ids.
	excerpts    []globalsearch.Chunk
	excerptSeen map[string]bool
	// noUnits is set when text_units.parquet is absent; the warning comes
	// after the claims', in the order the files matter to a reader.
	noUnits bool
	// files holds, per kind, the name of the file read, for messages.
	files map[string]string
	// tables are the files opened, closed when the import ends.
	tables []*table
}

type communityRow struct {
	parent    int64
	hasParent bool
	children  []int64
	entityIDs []string
}

func (im *importer) run() error {
	reports, err := im.open("community_reports", true)
	if err != nil {
		return err
	}
	covariates, err := im.open("covariates", false)
	if err != nil {
		return err
	}
	// communities.parquet gives entity membership (needed only to place
	// claims) and may give the hierarchy the reports lack (older versions).
	communities, err := im.open("communities", covariates != nil)
	if err != nil {
		return err
	}
	if communities != nil {
		if err := im.readCommunities(communities); err != nil {
			return err
		}
	}
	leaves, err := im.readReports(reports)
	if err != nil {
		return err
	}
	if im.opts.Excerpts != ExcerptsNone {
		units, err := im.open("text_units", false)
		if err != nil {
			return err
		}
		if units == nil {
			im.noUnits = true
		} else if err := im.readTextUnits(units); err != nil {
			return err
		}
	}
	if covariates != nil {
		entities, err := im.open("entities", true)
		if err != nil {
			return err
		}
		byName, err := im.readEntities(entities)
		if err != nil {
			return err
		}
		im.indexLeaves(leaves)
		if err := im.readCovariates(covariates, byName); err != nil {
			return err
		}
	} else {
		im.warn("no covariates.parquet: no claims imported (claim extraction is off by default in GraphRAG)")
	}
	if im.noUnits {
		im.warn("no text_units.parquet: %s", map[Excerpts]string{
			ExcerptsSourceText: "excerpts have no document id and claims without source text cite nothing",
			ExcerptsTextUnit:   "no source chunks imported",
		}[im.opts.Excerpts])
	}
	im.collectChunks()
	return nil
}

// open opens the file of kind under its first existing name; a missing
// optional file is (nil, nil).
func (im *importer) open(kind string, required bool) (*table, error) {
	if err := im.ctx.Err(); err != nil {
		return nil, err
	}
	for _, name := range fileNames[kind] {
		path := filepath.Join(im.dir, name)
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		start := time.Now()
		t, err := openTable(path, name)
		if err != nil {
			return nil, err
		}
		im.files[kind] = name
		im.tables = append(im.tables, t)
		im.progress("opened %s: %d rows (%s)", name, t.rows, time.Since(start).Round(time.Millisecond))
		return t, nil
	}
	if required {
		return nil, fmt.Errorf("%s: no %s in %s", kind, strings.Join(fileNames[kind], " or "), im.dir)
	}
	return nil, nil
}

func (im *importer) progress(format string, args ...any) {
	if im.opts.Progress != nil {
		fmt.Fprintf(im.opts.Progress, "import: "+format+"\n", args...)
	}
}

func (im *importer) warn(format string, args ...any) {
	im.report.Warnings = append(im.report.Warnings, fmt.Sprintf(format, args...))
}

// columns reads several columns of t; names ending in "?" are optional.
func columns(t *table, names ...string) (map[string]*column, error) {
	out := make(map[string]*column, len(names))
	for _, n := range names {
		name, optional := strings.CutSuffix(n, "?")
		c, err := t.column(name, !optional)
		if err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, nil
}

func (im *importer) readCommunities(t *table) error {
	cols, err := columns(t, "community", "parent?", "children?", "entity_ids?")
	if err != nil {
		return err
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
		im.communities[id] = row
	}
	if !cols["entity_ids"].present {
		im.warn("%s has no entity_ids column: claims cannot be placed in communities", t.name)
	}
	return nil
}

// readReports builds the summaries and returns the community numbers of the
// leaves, sorted.
func (im *importer) readReports(t *table) ([]int64, error) {
	text := string(im.opts.Content)
	cols, err := columns(t, "community", "level", "parent?", "children?", "title?", text)
	if err != nil {
		return nil, err
	}
	type report struct {
		id, parent int64
		hasParent  bool
		level      int64
		title      string
		text       string
	}
	reports := make([]report, 0, t.rows)
	byID := make(map[int64]bool, t.rows)
	parentOfChild := map[int64]int64{}
	for i := range t.rows {
		var r report
		var ok bool
		if r.id, ok, err = cols["community"].int(i); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("%s row %d: column \"community\" is null", t.name, i)
		}
		if r.level, ok, err = cols["level"].int(i); err != nil {
			return nil, err
		} else if !ok || r.level < 0 {
			return nil, fmt.Errorf("%s row %d (community %d): column \"level\" must be an integer >= 0", t.name, i, r.id)
		}
		if byID[r.id] {
			return nil, fmt.Errorf("%s row %d: community %d has two reports", t.name, i, r.id)
		}
		byID[r.id] = true
		if r.parent, r.hasParent, err = cols["parent"].int(i); err != nil {
			return nil, err
		}
		children, err := cols["children"].ints(i)
		if err != nil {
			return nil, err
		}
		for _, c := range children {
			if _, ok := parentOfChild[c]; !ok {
				parentOfChild[c] = r.id
			}
		}
		r.title = cols["title"].str(i)
		r.text = cols[text].str(i)
		reports = append(reports, r)
	}
	slices.SortFunc(reports, func(a, b report) int { return cmp.Compare(a.id, b.id) })

	// The hierarchy: the report's parent, else the communities file's, else
	// whoever lists the community among its children (reports first, then
	// communities in ascending order, so a conflict resolves the same way
	// every time).
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

	var leaves []int64
	im.records.Summaries = make([]globalsearch.Summary, 0, len(reports))
	for _, r := range reports {
		s := globalsearch.Summary{
			ID:      strconv.FormatInt(r.id, 10),
			Level:   int(r.level),
			Title:   r.title,
			Summary: withTitle(r.title, r.text),
		}
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
	im.progress("%d summaries (%d leaves) from %s", len(reports), len(leaves), t.name)
	return leaves, nil
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

func (im *importer) readCovariates(t *table, byName map[string][]string) error {
	cols, err := columns(t, "subject_id", "object_id?", "status?", "description?", "text_unit_id?", "source_text?")
	if err != nil {
		return err
	}
	ids, err := t.firstColumn(true, "id", "human_readable_id")
	if err != nil {
		return err
	}
	readable, err := t.column("human_readable_id", false)
	if err != nil {
		return err
	}
	// A case-insensitive index, consulted only when the exact name misses:
	// the claim and entity extraction prompts both upper-case names, but an
	// LLM does not always comply.
	folded := make(map[string][]string, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		key := strings.ToUpper(strings.TrimSpace(name))
		folded[key] = append(folded[key], byName[name]...)
	}
	seen := map[string]bool{}
	im.report.Covariates = t.rows
	for i := range t.rows {
		if i%1000 == 0 {
			if err := im.ctx.Err(); err != nil {
				return err
			}
		}
		id := ids.str(i)
		if id == "" {
			id = readable.str(i)
		}
		// Names are trimmed: the map text shows them (docs/contract.md#map-text) and an LLM
		// sometimes pads them.
		subject := strings.TrimSpace(cols["subject_id"].str(i))
		unmatched := func(reason string) {
			im.report.Unmatched = append(im.report.Unmatched, UnmatchedClaim{ID: id, Subject: subject, Reason: reason})
		}
		switch {
		case id == "":
			unmatched(ReasonNoID)
			continue
		case seen[id]:
			unmatched(ReasonDuplicateID)
			continue
		case subject == "":
			unmatched(ReasonNoSubject)
			continue
		}
		entityIDs, ok := byName[subject]
		if !ok {
			entityIDs, ok = folded[strings.ToUpper(subject)]
		}
		if !ok {
			unmatched(ReasonUnknownEntity)
			continue
		}
		leaf, ok := im.leafFor(entityIDs)
		if !ok {
			// GraphRAG leaves entities without relationships out of every
			// community; telling that apart from a hierarchy without leaf
			// data tells the user which of the two to look at.
			if slices.ContainsFunc(entityIDs, func(e string) bool { return im.inCommunity[e] }) {
				unmatched(ReasonNoLeaf)
			} else {
				unmatched(ReasonNoCommunity)
			}
			continue
		}
		seen[id] = true
		c := globalsearch.Claim{
			ID:             id,
			CommunityID:    strconv.FormatInt(leaf, 10),
			Subject:        subject,
			Description:    cols["description"].str(i),
			SourceChunkIDs: []string{},
		}
		// GraphRAG writes "NONE" when a claim has no object.
		if o := strings.TrimSpace(cols["object_id"].str(i)); o != "" && o != "NONE" {
			c.Object = o
		}
		if st := strings.ToUpper(strings.TrimSpace(cols["status"].str(i))); claimStatusShown[st] {
			c.Description = "[status: " + st + "] " + c.Description
		}
		c.SourceChunkIDs = im.cite(cols["text_unit_id"].str(i), cols["source_text"].strs(i))
		im.records.Claims = append(im.records.Claims, c)
	}
	im.report.ClaimsAttached = len(im.records.Claims)
	im.progress("%d of %d claims attached to leaf communities from %s", im.report.ClaimsAttached, t.rows, t.name)
	return nil
}

// cite returns the chunk ids a claim of text unit unit with source texts
// texts cites, in the mode of the import, and records the chunks it needs.
func (im *importer) cite(unit string, texts []string) []string {
	switch im.opts.Excerpts {
	case ExcerptsNone:
		return []string{}
	case ExcerptsTextUnit:
		if unit == "" {
			return []string{}
		}
		return []string{unit}
	}
	ids := []string{}
	for _, text := range texts {
		// GraphRAG writes "NONE" when the model quoted nothing.
		if text = strings.TrimSpace(text); text == "" || text == "NONE" {
			continue
		}
		id := excerptID(unit, text)
		if slices.Contains(ids, id) {
			continue
		}
		ids = append(ids, id)
		if !im.excerptSeen[id] {
			im.excerptSeen[id] = true
			im.excerpts = append(im.excerpts, globalsearch.Chunk{ID: id, Text: text, DocumentID: im.units[unit].DocumentID})
		}
	}
	if len(ids) > 0 {
		return ids
	}
	im.report.NoSourceText++
	// Only a unit that exists: a citation of a missing chunk would read as
	// a broken index in every search's diagnostics.
	if _, ok := im.units[unit]; ok {
		im.report.CiteTextUnit++
		im.citedUnits[unit] = true
		return []string{unit}
	}
	return ids
}

// excerptID names an excerpt chunk after its text unit and its text, so that
// a re-import gives it the same id and the same words quoted from two units
// stay two chunks, each with its document. The id is short because the map
// text repeats it before every excerpt (docs/contract.md#map-text): a lead of the unit id
// (to find the unit by eye) and 64 bits of a hash of both (to tell excerpts
// apart). It satisfies the id rule of docs/contract.md#ids whatever the unit id holds.
func excerptID(unit, text string) string {
	sum := hashParts(unit, "\x00", text)
	lead := []rune{}
	for _, r := range unit {
		if len(lead) == 8 || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			break
		}
		lead = append(lead, r)
	}
	if len(lead) == 0 {
		lead = []rune("excerpt")
	}
	return string(lead) + "~" + hex.EncodeToString(sum[:8])
}

// hashParts is the SHA-256 of the parts joined, hashed through a small
// buffer: joining them, or converting a text to bytes, would copy a huge
// covariate once more.
func hashParts(parts ...string) []byte {
	h := sha256.New()
	buf := make([]byte, 0, 32<<10)
	for _, p := range parts {
		for len(p) > 0 {
			n := min(len(p), cap(buf))
			h.Write(append(buf[:0], p[:n]...))
			p = p[n:]
		}
	}
	return h.Sum(nil)
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

func (im *importer) readTextUnits(t *table) error {
	ids, err := t.column("id", true)
	if err != nil {
		return err
	}
	text, err := t.column("text", true)
	if err != nil {
		return err
	}
	// GraphRAG before 2.0 linked a unit to a list of documents.
	docs, err := t.firstColumn(false, "document_id", "document_ids")
	if err != nil {
		return err
	}
	skipped := 0
	for i := range t.rows {
		id := ids.str(i)
		if _, seen := im.units[id]; id == "" || seen {
			skipped++
			continue
		}
		c := globalsearch.Chunk{ID: id, Text: text.str(i)}
		if d := docs.strs(i); len(d) > 0 {
			c.DocumentID = d[0]
		}
		im.units[id] = c
		im.unitOrder = append(im.unitOrder, id)
	}
	if skipped > 0 {
		im.warn("%s: %d rows without an id or with a repeated id were skipped", t.name, skipped)
	}
	im.report.TextUnits = len(im.unitOrder)
	im.progress("%d text units from %s", im.report.TextUnits, t.name)
	return nil
}

// collectChunks stores the chunks of the import's mode: every text unit
// (text-unit), or the excerpts and the units claims cite whole (source-text).
func (im *importer) collectChunks() {
	im.records.Chunks = make([]globalsearch.Chunk, 0, len(im.unitOrder)+len(im.excerpts))
	for _, id := range im.unitOrder {
		if im.opts.Excerpts == ExcerptsTextUnit || im.citedUnits[id] {
			im.records.Chunks = append(im.records.Chunks, im.units[id])
		} else {
			im.report.TextUnitsUncited++
		}
	}
	im.records.Chunks = append(im.records.Chunks, im.excerpts...)
	im.report.ExcerptChunks = len(im.excerpts)
	im.report.Chunks = len(im.records.Chunks)
}

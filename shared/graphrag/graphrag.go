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
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	// SearchOnly reads only what a search uses (docs/indexes.md): no
	// entities, relationships or document titles are imported, so
	// relationships.parquet and documents.parquet are not read, nor
	// entities.parquet unless claims need it to be placed. A search never
	// shows them; show, MCP's read, the page's side panel and import do,
	// and read the whole folder.
	SearchOnly bool
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
	// Entities counts the rows of entities.parquet with an id and a
	// title; Relationships the relationships kept, Documents the document
	// titles read (docs/contract.md#entities).
	Entities, Relationships, Documents int
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
	"relationships":     {"relationships.parquet", "create_final_relationships.parquet"},
	"documents":         {"documents.parquet", "create_final_documents.parquet"},
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
	// relationshipIDs is set when communities.parquet has relationship_ids.
	relationshipIDs bool

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
	parent          int64
	hasParent       bool
	children        []int64
	entityIDs       []string
	relationshipIDs []string
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
	// Claims need the entities to be placed; without claims they are
	// only shown, so a folder without them still imports.
	var entities *table
	if covariates != nil || !im.opts.SearchOnly {
		if entities, err = im.open("entities", covariates != nil); err != nil {
			return err
		}
	}
	var byName map[string][]string
	if entities != nil {
		if byName, err = im.readEntities(entities); err != nil {
			return err
		}
		if !im.opts.SearchOnly {
			if err := im.readEntityRecords(entities); err != nil {
				return err
			}
		}
	}
	if covariates != nil {
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
	if im.opts.SearchOnly {
		return nil
	}
	return im.readGraph()
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
		if err := globalsearch.InFolder(im.dir, path); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
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

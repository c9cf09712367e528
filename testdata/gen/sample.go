package main

import (
	_ "embed"
	"fmt"
	"log"
	"strconv"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The sample's hand-written records live in tab-separated tables beside
// this file, so that adding a record is a line of data, not a line of
// code. A line starting with # is a comment.
var (
	//go:embed summaries.tsv
	summaryTable string
	//go:embed claims.tsv
	claimTable string
	//go:embed chunks.tsv
	chunkTable string
)

// chronicleID is the summary whose text portChronicle assembles.
const chronicleID = "c2-port-chronicle"

// rows splits table into its rows of exactly width fields; a row of
// another width is a mistake in the table, so it stops the generator
// rather than write a wrong index.
func rows(name, table string, width int) [][]string {
	var out [][]string
	for n, line := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != width {
			log.Fatalf("%s line %d: %d fields, want %d", name, n+1, len(fields), width)
		}
		out = append(out, fields)
	}
	return out
}

func sum(id string, level int, parent, title, text string) globalsearch.Summary {
	return globalsearch.Summary{ID: id, Level: level, ParentCommunityID: parent, Title: title, Summary: text}
}

func ch(id, doc, text string) globalsearch.Chunk {
	return globalsearch.Chunk{ID: id, DocumentID: doc, Text: text}
}

// summaries reads summaries.tsv: id, level, parent id, title, text.
func summaries() []globalsearch.Summary {
	var out []globalsearch.Summary
	for _, r := range rows("summaries.tsv", summaryTable, 5) {
		level, err := strconv.Atoi(r[1])
		if err != nil {
			log.Fatalf("summaries.tsv: level of %s: %v", r[0], err)
		}
		text := r[4]
		if r[0] == chronicleID {
			text = portChronicle()
		}
		out = append(out, sum(r[0], level, r[2], r[3], text))
	}
	return out
}

// claims reads claims.tsv: community id, subject, object, description and
// the cited chunk ids, numbering the claims in their order.
func claims() []globalsearch.Claim {
	var out []globalsearch.Claim
	for i, r := range rows("claims.tsv", claimTable, 5) {
		out = append(out, globalsearch.Claim{
			ID: fmt.Sprintf("claim-%03d", i+1), CommunityID: r[0], Subject: r[1], Object: r[2], Description: r[3],
			// Fields gives an empty list, not nil, for no chunk, so the
			// file says [] rather than null.
			SourceChunkIDs: strings.Fields(r[4]),
		})
	}
	return out
}

// chunks reads chunks.tsv: id, document id, text.
func chunks() []globalsearch.Chunk {
	var out []globalsearch.Chunk
	for _, r := range rows("chunks.tsv", chunkTable, 3) {
		out = append(out, ch(r[0], r[1], r[2]))
	}
	return out
}

package indexfile_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// benchFile is an index of 2,000 summaries, 8,000 claims and 8,000 chunks
// (about 5 MB), to measure what the strict check adds to a parse.
func benchFile(b *testing.B) []byte {
	b.Helper()
	var f indexfile.File
	f.Namespace = "bench"
	text := strings.Repeat("Port Calder doubled its throughput after the expansion. ", 8)
	for i := range 2000 {
		f.Summaries = append(f.Summaries, globalsearch.Summary{ID: fmt.Sprintf("c%d", i), Summary: text})
	}
	for i := range 8000 {
		f.Claims = append(f.Claims, globalsearch.Claim{ID: fmt.Sprintf("k%d", i), CommunityID: fmt.Sprintf("c%d", i%2000),
			Subject: "Port", Description: text[:120], SourceChunkIDs: []string{fmt.Sprintf("ch%d", i)}})
		f.Chunks = append(f.Chunks, globalsearch.Chunk{ID: fmt.Sprintf("ch%d", i), Text: text})
	}
	var buf bytes.Buffer
	if err := indexfile.Write(&buf, f); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkParse is the whole parse, strict check included.
func BenchmarkParse(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := indexfile.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStrictCheck is the strict check alone: its share of Parse.
func BenchmarkStrictCheck(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := strictjson.Check(data); err != nil {
			b.Fatal(err)
		}
	}
}

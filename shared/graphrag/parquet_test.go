package graphrag

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// smallReports is a valid community_reports.parquet of two reports, written
// with the writer options given.
func smallReports(t testing.TB, options ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, parquet.Write(&buf, []reportV3{
		{Community: 0, Level: 0, Parent: ptr[int64](-1), Title: ptr("Root"), Summary: ptr("root summary")},
		{Community: 1, Level: 1, Parent: ptr[int64](0), Title: ptr("Leaf"), Summary: ptr("leaf summary")},
	}, options...))
	return buf.Bytes()
}

// footerOf decodes the footer of a parquet file and returns it with the
// offset where it starts.
func footerOf(t testing.TB, data []byte) (format.FileMetaData, int) {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	var md format.FileMetaData
	require.NoError(t, thrift.Unmarshal(new(thrift.CompactProtocol), data[start:len(data)-8], &md))
	return md, start
}

// withFooter replaces the footer of data (which starts at start) with md.
func withFooter(t testing.TB, data []byte, start int, md *format.FileMetaData) []byte {
	t.Helper()
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	require.NoError(t, err)
	out := append(bytes.Clone(data[:start]), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

func editFooter(t testing.TB, data []byte, edit func(*format.FileMetaData)) []byte {
	md, start := footerOf(t, data)
	edit(&md)
	return withFooter(t, data, start, &md)
}

// editFirstPage rewrites the first page of column col (its header, and its
// body when body is not nil) and moves everything after it, so that the
// file stays consistent but for the edit.
func editFirstPage(t testing.TB, data []byte, col int, header func(*format.PageHeader), body func([]byte) []byte) []byte {
	t.Helper()
	md, footerStart := footerOf(t, data)
	cm := &md.RowGroups[0].Columns[col].MetaData
	off := cm.DataPageOffset
	if cm.DictionaryPageOffset > 0 {
		off = cm.DictionaryPageOffset
	}
	r := new(thrift.CompactProtocol).NewReaderFromBytes(data[off:footerStart])
	var h format.PageHeader
	require.NoError(t, thrift.NewDecoder(r).Decode(&h))
	headerLen := r.BytesRead()
	oldBody := data[int(off)+headerLen : int(off)+headerLen+int(h.CompressedPageSize)]
	newBody := oldBody
	if body != nil {
		newBody = body(bytes.Clone(oldBody))
		h.CompressedPageSize = int32(len(newBody))
		if h.CRC != 0 {
			h.CRC = int32(crc32.ChecksumIEEE(newBody))
		}
	}
	if header != nil {
		header(&h)
	}
	enc, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	require.NoError(t, err)
	delta := int64(len(enc)+len(newBody)) - int64(headerLen+len(oldBody))
	out := append(bytes.Clone(data[:off]), enc...)
	out = append(out, newBody...)
	out = append(out, data[int(off)+headerLen+len(oldBody):footerStart]...)
	for g := range md.RowGroups {
		for c := range md.RowGroups[g].Columns {
			cc := &md.RowGroups[g].Columns[c]
			m := &cc.MetaData
			for _, p := range []*int64{&m.DataPageOffset, &m.DictionaryPageOffset, &m.BloomFilterOffset, &cc.OffsetIndexOffset, &cc.ColumnIndexOffset} {
				if *p > off {
					*p += delta
				}
			}
		}
	}
	cm.TotalCompressedSize += delta
	return withFooter(t, out, len(out), &md)
}

// setNumValues sets the value count of a data page of either version.
func setNumValues(h *format.PageHeader, n int32) {
	h.DataPageHeader.V.NumValues = n
	h.DataPageHeaderV2.V.NumValues = n
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestImportRefusesFilesThatClaimMoreThanTheyHold: a footer or page that
// declares more rows, values or bytes than the file holds is invalid input
// naming the file, found before the decoder allocates what it declares.
func TestImportRefusesFilesThatClaimMoreThanTheyHold(t *testing.T) {
	plain := smallReports(t)
	gzipped := smallReports(t, parquet.Compression(&parquet.Gzip))
	snappy := smallReports(t, parquet.Compression(&parquet.Snappy))
	// 64 MiB of zeros compress to about 64 KiB.
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, err := zw.Write(make([]byte, 64<<20))
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	tests := []struct {
		name string
		file func(t *testing.T) []byte
		want string
	}{
		{
			name: "2^61 rows",
			file: func(t *testing.T) []byte {
				return editFooter(t, plain, func(md *format.FileMetaData) { md.NumRows = 1 << 61 })
			},
			want: "the footer claims 2305843009213693952 rows in a",
		},
		{
			name: "50,000,000 rows",
			file: func(t *testing.T) []byte {
				return editFooter(t, plain, func(md *format.FileMetaData) { md.NumRows, md.RowGroups[0].NumRows = 50_000_000, 50_000_000 })
			},
			want: "the footer claims 50000000 rows in a",
		},
		{
			name: "row groups that do not add up",
			file: func(t *testing.T) []byte {
				return editFooter(t, plain, func(md *format.FileMetaData) { md.RowGroups[0].NumRows = 1 })
			},
			want: "the row groups hold 1 rows, the footer says 2",
		},
		{
			name: "a column chunk past the end of the file",
			file: func(t *testing.T) []byte {
				return editFooter(t, plain, func(md *format.FileMetaData) { md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 40 })
			},
			want: "lie outside the data of the file",
		},
		{
			name: "a chunk of another type than its column",
			file: func(t *testing.T) []byte {
				return editFooter(t, plain, func(md *format.FileMetaData) { md.RowGroups[0].Columns[0].MetaData.Type = format.ByteArray })
			},
			want: `column "community" is INT64 in the schema but BYTE_ARRAY in row group 0`,
		},
		{
			name: "a footer longer than the file",
			file: func(t *testing.T) []byte {
				data := bytes.Clone(plain)
				binary.LittleEndian.PutUint32(data[len(data)-8:], 0xfffffff0)
				return data
			},
			want: "the footer claims 4294967280 bytes of a",
		},
		{
			name: "a footer list longer than the footer",
			file: func(t *testing.T) []byte {
				// version = 1, then schema: a list of 2^31-1 structs.
				footer := []byte{0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 0x00}
				out := append([]byte("PAR1"), footer...)
				out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
				return append(out, "PAR1"...)
			},
			want: "a list of 2147483647 elements in 2 bytes",
		},
		{
			name: "a page that claims 2 GiB",
			file: func(t *testing.T) []byte {
				return editFirstPage(t, plain, 0, func(h *format.PageHeader) { h.UncompressedPageSize = 1<<31 - 1 }, nil)
			},
			want: "page 0: decompresses to 2147483647 bytes, past the limit",
		},
		{
			name: "a page longer than its column",
			file: func(t *testing.T) []byte {
				return editFirstPage(t, plain, 0, func(h *format.PageHeader) { h.CompressedPageSize = 1<<31 - 1 }, nil)
			},
			want: "page 0: 2147483647 bytes",
		},
		{
			name: "a page that claims 2^31 values",
			file: func(t *testing.T) []byte {
				data := editFirstPage(t, plain, 2, func(h *format.PageHeader) { setNumValues(h, 1<<31-1) }, nil)
				return editFooter(t, data, func(md *format.FileMetaData) { md.RowGroups[0].Columns[2].MetaData.NumValues = 1<<31 - 1 })
			},
			want: "2147483647 values for 2 rows in",
		},
		{
			name: "pages with more values than the footer says",
			file: func(t *testing.T) []byte {
				return editFirstPage(t, plain, 2, func(h *format.PageHeader) { setNumValues(h, 1000) }, nil)
			},
			want: "the pages hold 1000 values, the footer says 2",
		},
		{
			name: "a snappy block that claims 4 GiB",
			file: func(t *testing.T) []byte {
				return editFirstPage(t, snappy, 0, nil, func(body []byte) []byte {
					_, n := binary.Uvarint(body)
					return append(binary.AppendUvarint(nil, 1<<32-1), body[n:]...)
				})
			},
			want: "page 0: decompresses to 4294967295 bytes where",
		},
		{
			name: "a gzip page that inflates past its size",
			file: func(t *testing.T) []byte {
				return editFirstPage(t, gzipped, 0, nil, func([]byte) []byte { return bomb.Bytes() })
			},
			want: "page 0: decompresses to more than the",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := tc.file(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "community_reports.parquet"), data, 0o644))
			var err error
			alloc := allocated(func() { _, _, err = Import(context.Background(), dir, Options{}) })
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "%v", err)
			assert.Contains(t, err.Error(), "community_reports.parquet: not a readable parquet file")
			assert.Contains(t, err.Error(), tc.want)
			assert.Less(t, alloc, uint64(16<<20), "a refused file of %d bytes allocates little", len(data))
		})
	}
}

// TestImportReadsEveryCodec: the checks accept what the writer produces in
// every compression codec the decoder supports.
func TestImportReadsEveryCodec(t *testing.T) {
	tests := []struct {
		name  string
		codec parquet.WriterOption
	}{
		{"uncompressed", parquet.Compression(&parquet.Uncompressed)},
		{"snappy", parquet.Compression(&parquet.Snappy)},
		{"gzip", parquet.Compression(&parquet.Gzip)},
		{"zstd", parquet.Compression(&parquet.Zstd)},
		{"lz4", parquet.Compression(&parquet.Lz4Raw)},
		{"brotli", parquet.Compression(&parquet.Brotli)},
		{"data pages v2", parquet.DataPageVersion(2)},
		{"dictionaries", parquet.DefaultEncoding(&parquet.RLEDictionary)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "community_reports.parquet"), smallReports(t, tc.codec), 0o644))
			records, _, err := Import(context.Background(), dir, Options{})
			require.NoError(t, err)
			require.Len(t, records.Summaries, 2)
			assert.Equal(t, "# Leaf\n\nleaf summary", records.Summaries[1].Summary)
		})
	}
}

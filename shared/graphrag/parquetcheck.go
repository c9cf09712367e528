package graphrag

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// The parquet decoder trusts the sizes a file declares: a footer length, a
// list length in the footer, a page's sizes and value counts are allocated
// as declared before the bytes behind them are read, and some codecs grow
// their output until the data ends. A few bytes can so claim gigabytes. The
// checks below prove every declared size against the bytes that hold it
// before the decoder sees the file (docs/contract.md#import).

// Limits of what the import reads (docs/contract.md#import).
const (
	// maxThriftDepth caps the nesting of the footer and page headers;
	// parquet's own structures nest about six deep.
	maxThriftDepth = 32
	// maxInflation caps the decompressed size of a file's pages at this
	// multiple of the file's size, plus inflationSlack for small files.
	// GraphRAG's text compresses two to five times.
	maxInflation   = 32
	inflationSlack = 1 << 20
)

// The parquet physical page types (format.PageType).
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3
)

// checkLayout checks the frame of the parquet file of size bytes read by r:
// the magic bytes at both ends, a footer that fits in the file, and a
// footer whose every length fits in the footer. It returns the footer's
// length.
func checkLayout(r io.ReaderAt, size int64) (int64, error) {
	if size < 12 {
		return 0, fmt.Errorf("%d bytes are too few for a parquet file", size)
	}
	var head, tail [4]byte
	var trailer [8]byte
	if err := readFull(r, head[:], 0); err != nil {
		return 0, err
	}
	if err := readFull(r, trailer[:], size-8); err != nil {
		return 0, err
	}
	copy(tail[:], trailer[4:])
	if string(head[:]) != "PAR1" || string(tail[:]) != "PAR1" {
		if string(head[:]) == "PARE" || string(tail[:]) == "PARE" {
			return 0, errors.New("the file is encrypted")
		}
		return 0, errors.New(`the file does not start and end with "PAR1"`)
	}
	footer := int64(binary.LittleEndian.Uint32(trailer[:4]))
	if footer > size-12 {
		return 0, fmt.Errorf("the footer claims %d bytes of a %d-byte file", footer, size)
	}
	b := make([]byte, footer)
	if err := readFull(r, b, size-8-footer); err != nil {
		return 0, err
	}
	w := compactWalker{b: b}
	if err := w.walkStruct(0); err != nil {
		return 0, fmt.Errorf("footer: %w", err)
	}
	if w.pos != len(w.b) {
		return 0, fmt.Errorf("footer: %d bytes after its end", len(w.b)-w.pos)
	}
	return footer, nil
}

// readFull reads len(b) bytes at off.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	switch {
	case n == len(b):
		return nil // a read up to the end may say io.EOF
	case err == nil || errors.Is(err, io.EOF):
		return io.ErrUnexpectedEOF
	default:
		return err
	}
}

// checkMetadata checks the footer's counts and offsets against the file:
// row counts that add up and fit (a row takes at least a byte of a GraphRAG
// table, whose every file has an id column), column chunks inside the data
// section, and pages that fill their chunks (checkPages). Chunks are read
// one at a time, so the check holds no more than the largest.
func checkMetadata(r io.ReaderAt, size, footer int64, md *format.FileMetaData) error {
	end := size - 8 - footer // the data section is [4, end)
	if md.NumRows < 0 || md.NumRows > size {
		return fmt.Errorf("the footer claims %d rows in a %d-byte file", md.NumRows, size)
	}
	var rows int64
	var chunk []byte
	budget := &inflationBudget{left: maxInflation*size + inflationSlack}
	for g, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > md.NumRows-rows {
			return fmt.Errorf("row group %d claims %d rows, more than the file's %d", g, rg.NumRows, md.NumRows)
		}
		rows += rg.NumRows
		for c := range rg.Columns {
			cm := &rg.Columns[c].MetaData
			start := cm.DataPageOffset
			if cm.DictionaryPageOffset > 0 {
				start = cm.DictionaryPageOffset
			}
			switch {
			case start < 4 || cm.DataPageOffset < start || cm.TotalCompressedSize < 0 || cm.TotalCompressedSize > end-start:
				return fmt.Errorf("row group %d, column %d: its %d bytes at offset %d lie outside the data of the file", g, c, cm.TotalCompressedSize, start)
			case cm.NumValues < rg.NumRows:
				return fmt.Errorf("row group %d, column %d: %d values for %d rows", g, c, cm.NumValues, rg.NumRows)
			}
			chunk = slices.Grow(chunk[:0], int(cm.TotalCompressedSize))[:cm.TotalCompressedSize]
			if err := readFull(r, chunk, start); err != nil {
				return fmt.Errorf("row group %d, column %d: %w", g, c, err)
			}
			if err := checkPages(chunk, cm, rg.NumRows, budget); err != nil {
				return fmt.Errorf("row group %d, column %d: %w", g, c, err)
			}
		}
	}
	if rows != md.NumRows {
		return fmt.Errorf("the row groups hold %d rows, the footer says %d", rows, md.NumRows)
	}
	return nil
}

// checkTypes checks that each row group has a chunk for every leaf column
// of the schema, of the physical type the schema declares: the decoder reads
// a chunk's bytes as the schema's type, whatever the chunk says.
func checkTypes(f *parquet.File) error {
	var leaves []*parquet.Column
	var walk func(c *parquet.Column)
	walk = func(c *parquet.Column) {
		if c.Leaf() {
			leaves = append(leaves, c)
			return
		}
		for _, child := range c.Columns() {
			walk(child)
		}
	}
	walk(f.Root())
	for g, rg := range f.Metadata().RowGroups {
		if len(rg.Columns) != len(leaves) {
			return fmt.Errorf("row group %d has %d columns, the schema %d", g, len(rg.Columns), len(leaves))
		}
		for _, leaf := range leaves {
			i := leaf.Index()
			if i < 0 || i >= len(rg.Columns) {
				return fmt.Errorf("column %q has no chunk in row group %d", strings.Join(leaf.Path(), "."), g)
			}
			want := leaf.Type().Kind()
			if lt := leaf.Type().LogicalType(); lt != nil && isNull(lt.Value) {
				// A column of nulls alone (pyarrow's NULL type, such as
				// documents.parquet's raw_data) is INT32 by pyarrow's
				// convention, and its type decodes no value from the bytes.
				want = parquet.Int32
			}
			if got := parquet.Kind(rg.Columns[i].MetaData.Type); got != want {
				return fmt.Errorf("column %q is %s in the schema but %s in row group %d", strings.Join(leaf.Path(), "."), want, got, g)
			}
		}
	}
	return nil
}

// inflationBudget is what the pages of one file may still decompress to.
type inflationBudget struct{ left int64 }

// pageHeader is what checkPages needs of a page header.
type pageHeader struct {
	typ, uncompressed, compressed int64
	numValues                     int64
	// v2 pages: level bytes stored uncompressed ahead of the values.
	levelBytes   int64
	uncompressV2 bool
}

// checkPages walks the pages of one column chunk: each header well-formed,
// each page inside the chunk, the pages filling it exactly, decompressing to
// no more than they declare, and holding no more values than their bytes in
// the file can (a value beyond the first of its row takes at least a bit: a
// list element of GraphRAG's is a distinct id; a dictionary entry at least a
// byte). The values are what the import holds in memory, so they are bounded
// by the file's bytes, not by what those bytes decompress to.
func checkPages(chunk []byte, cm *format.ColumnMetaData, rows int64, budget *inflationBudget) error {
	var values, dataBytes int64
	for pos, page := 0, 0; pos < len(chunk); page++ {
		h, n, err := readPageHeader(chunk[pos:])
		if err != nil {
			return fmt.Errorf("page %d: %w", page, err)
		}
		pos += n
		switch {
		case h.compressed < 0 || h.compressed > int64(len(chunk)-pos):
			return fmt.Errorf("page %d: %d bytes, %d left in the column", page, h.compressed, len(chunk)-pos)
		case h.uncompressed < 0 || h.uncompressed > budget.left:
			return fmt.Errorf("page %d: decompresses to %d bytes, past the limit of %d times the file's size", page, h.uncompressed, maxInflation)
		case h.numValues < 0:
			return fmt.Errorf("page %d: %d values", page, h.numValues)
		case h.levelBytes < 0 || h.levelBytes > h.compressed || h.levelBytes > h.uncompressed:
			return fmt.Errorf("page %d: %d bytes of levels in a page of %d", page, h.levelBytes, h.compressed)
		}
		budget.left -= h.uncompressed
		body := chunk[pos : pos+int(h.compressed)]
		pos += int(h.compressed)
		switch h.typ {
		case pageDictionary:
			if h.numValues > h.uncompressed {
				return fmt.Errorf("page %d: a dictionary of %d values in %d bytes", page, h.numValues, h.uncompressed)
			}
		case pageData, pageDataV2:
			values += h.numValues
			dataBytes += h.compressed
		default:
			continue // index pages and unknown kinds are skipped by the decoder
		}
		if h.typ != pageDataV2 || h.uncompressV2 {
			if err := checkInflate(cm.Codec, body[h.levelBytes:], h.uncompressed-h.levelBytes); err != nil {
				return fmt.Errorf("page %d: %w", page, err)
			}
		}
	}
	if values != cm.NumValues {
		return fmt.Errorf("the pages hold %d values, the footer says %d", values, cm.NumValues)
	}
	if values > rows+8*dataBytes {
		return fmt.Errorf("%d values for %d rows in %d bytes", values, rows, dataBytes)
	}
	return nil
}

// readPageHeader reads the page header at the start of b and returns it and
// its length.
func readPageHeader(b []byte) (pageHeader, int, error) {
	h := pageHeader{typ: -1, uncompressed: -1, compressed: -1, uncompressV2: true}
	var rep, def int64
	w := compactWalker{b: b, onInt: func(path []int16, v int64) {
		switch {
		case len(path) == 1 && path[0] == 1:
			h.typ = v
		case len(path) == 1 && path[0] == 2:
			h.uncompressed = v
		case len(path) == 1 && path[0] == 3:
			h.compressed = v
		case len(path) == 2 && path[1] == 1 && (path[0] == 5 || path[0] == 7 || path[0] == 8):
			h.numValues = v // data_page_header, dictionary_page_header, data_page_header_v2
		case len(path) == 2 && path[0] == 8 && path[1] == 5:
			def = v
		case len(path) == 2 && path[0] == 8 && path[1] == 6:
			rep = v
		case len(path) == 2 && path[0] == 8 && path[1] == 7:
			h.uncompressV2 = v != 0
		}
	}}
	if err := w.walkStruct(0); err != nil {
		return h, 0, fmt.Errorf("header: %w", err)
	}
	if h.typ < 0 || h.uncompressed < 0 || h.compressed < 0 {
		return h, 0, errors.New("header without a type or sizes")
	}
	if rep < 0 || def < 0 {
		return h, 0, errors.New("header with negative level sizes")
	}
	if h.typ == pageDataV2 {
		h.levelBytes = rep + def
	}
	return h, w.pos, nil
}

// checkInflate proves that src, compressed with codec, decompresses to no
// more than want bytes, without holding more than that: the decoder's codecs
// trust the size a compressed block declares, or grow until the data ends.
func checkInflate(codec format.CompressionCodec, src []byte, want int64) error {
	var r io.Reader
	switch codec {
	case format.Uncompressed:
		if int64(len(src)) > want {
			return fmt.Errorf("%d bytes where %d are declared", len(src), want)
		}
		return nil
	case format.Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		if int64(n) > want {
			return fmt.Errorf("decompresses to %d bytes where %d are declared", n, want)
		}
		return nil
	case format.Lz4Raw:
		// The decoder retries with a buffer twice as large while a block
		// fails, so a block that fails at the declared size must be refused.
		if _, err := lz4.UncompressBlock(src, make([]byte, want)); err != nil {
			return fmt.Errorf("lz4: %w (declared %d bytes)", err, want)
		}
		return nil
	case format.Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		r = zr
	case format.Brotli:
		r = brotli.NewReader(bytes.NewReader(src))
	case format.Zstd:
		// A streaming decoder holds one window: capped at the default window
		// of encoders (8 MiB) or the page's size, whichever is larger.
		zr, err := zstd.NewReader(bytes.NewReader(src), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(uint64(max(want, 8<<20))+1))
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		defer zr.Close()
		r = zr
	default:
		return fmt.Errorf("compression codec %d is not supported", codec)
	}
	n, err := io.Copy(io.Discard, io.LimitReader(r, want+1))
	if err != nil {
		return fmt.Errorf("%s: %w", codec, err)
	}
	if n > want {
		return fmt.Errorf("decompresses to more than the %d bytes declared", want)
	}
	return nil
}

func isNull(v format.LogicalTypeValue) bool {
	_, ok := v.(*format.NullType)
	return ok
}

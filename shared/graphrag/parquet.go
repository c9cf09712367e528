package graphrag

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// MissingColumnError is a parquet file without a column the import needs.
// Column may list alternatives ("id" or "human_readable_id").
type MissingColumnError struct {
	File   string
	Column string
	// Have lists the columns the file does have, to spot a renamed one.
	Have []string
}

func (e *MissingColumnError) Error() string {
	return fmt.Sprintf("%s: required column %s is missing (the file has: %s)", e.File, e.Column, strings.Join(e.Have, ", "))
}

// table is one parquet file read column by column, by name. GraphRAG's
// schema drifts between versions (columns added, renamed, ints written as
// floats or strings by pandas), so nothing here binds to a Go struct: a
// column is looked up by its top-level name, its values are read whatever
// their physical type, and the typed accessors convert and report.
type table struct {
	name   string // the file's base name, for messages
	file   *parquet.File
	rows   int
	closer io.Closer // the open file, when there is one
}

// openTable opens the parquet file at path; the table reads it until close.
// Only a regular file is opened: opening a named pipe would block, and a
// device can be endless. Every error names the file.
func openTable(path, name string) (*table, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: is not a regular file (%s)", name, info.Mode().Type())
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t, err := openParquet(file, info.Size(), name)
	if err != nil {
		file.Close()
		return nil, err
	}
	t.closer = file
	return t, nil
}

// openParquet opens the parquet file of size bytes read by r, after
// checking that nothing in it declares more than its bytes hold
// (checkLayout, checkTypes, checkMetadata). The file is read where it lies
// rather than into memory: the import then holds the values it decodes, not
// the file besides.
func openParquet(r io.ReaderAt, size int64, name string) (*table, error) {
	footer, err := checkLayout(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable parquet file: %w", name, err)
	}
	var f *parquet.File
	err = guard(func() (err error) {
		// The page index and bloom filters are never used: not reading them
		// leaves fewer declared sizes to trust.
		f, err = parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable parquet file: %w", name, err)
	}
	if err := checkTypes(f); err != nil {
		return nil, fmt.Errorf("%s: not a readable parquet file: %w", name, err)
	}
	if err := checkMetadata(r, size, footer, f.Metadata()); err != nil {
		return nil, fmt.Errorf("%s: not a readable parquet file: %w", name, err)
	}
	return &table{name: name, file: f, rows: int(f.NumRows())}, nil
}

// close releases the table's file, if it has one.
func (t *table) close() {
	if t.closer != nil {
		t.closer.Close()
	}
}

// guard runs fn and turns a panic of the parquet decoder into an error: a
// file crafted against the decoder's assumptions must fail like any other
// malformed file rather than end the process.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the parquet decoder failed: %v", r)
		}
	}()
	return fn()
}

// columnNames lists the top-level columns, for error messages.
func (t *table) columnNames() []string {
	var names []string
	for _, c := range t.file.Root().Columns() {
		names = append(names, c.Name())
	}
	return names
}

// has reports whether the file has a top-level column of that name.
func (t *table) has(name string) bool { return t.file.Root().Column(name) != nil }

// column is the content of one column: for each row, its non-null values
// (none for a null or an empty list, one for a scalar, any number for a
// list), already converted to Go values (string, int64, float64, bool). An
// absent column has no cells: every row is null.
type column struct {
	file, name string
	present    bool
	cells      [][]any
}

// cell returns the values of row i.
func (c *column) cell(i int) []any {
	if i < len(c.cells) {
		return c.cells[i]
	}
	return nil
}

// column reads the named top-level column. A missing column is an error when
// required, else an absent column whose every cell is null.
func (t *table) column(name string, required bool) (*column, error) {
	c := t.file.Root().Column(name)
	if c == nil {
		if required {
			return nil, &MissingColumnError{File: t.name, Column: strconv.Quote(name), Have: t.columnNames()}
		}
		return &column{file: t.name, name: name}, nil
	}
	leaf, err := singleLeaf(c)
	if err != nil {
		return nil, fmt.Errorf("%s: column %q: %w", t.name, name, err)
	}
	var cells [][]any
	err = guard(func() (err error) {
		cells, err = readLeaf(leaf, t.rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: column %q: %w", t.name, name, err)
	}
	return &column{file: t.name, name: name, present: true, cells: cells}, nil
}

// firstColumn reads the first of names the file has (a column renamed
// between GraphRAG versions). None of them is an error when required.
func (t *table) firstColumn(required bool, names ...string) (*column, error) {
	for _, n := range names {
		if t.has(n) {
			return t.column(n, true)
		}
	}
	if required {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = strconv.Quote(n)
		}
		return nil, &MissingColumnError{File: t.name, Column: strings.Join(quoted, " or "), Have: t.columnNames()}
	}
	return &column{file: t.name, name: names[0]}, nil
}

// singleLeaf descends from a top-level column to its one leaf: itself for a
// scalar, the element of a list whatever the list's group names are
// (`list.element` from pyarrow, `list.item`, `bag.array` from older
// writers). A column with several leaves (a list of structs such as
// `findings`) is not something the import reads.
func singleLeaf(c *parquet.Column) (*parquet.Column, error) {
	for !c.Leaf() {
		children := c.Columns()
		if len(children) != 1 {
			return nil, errors.New("is a group of several columns, not a scalar or a list of scalars")
		}
		c = children[0]
	}
	return c, nil
}

// readLeaf reads every value of a leaf column across row groups and folds
// them into rows. A value with repetition level 0 starts a row; only a value
// defined down to the leaf (definition level at its maximum) is data, lower
// levels encode a null or an empty list. Counting rows this way also copes
// with old writers whose pages do not start at row boundaries.
func readLeaf(c *parquet.Column, numRows int) ([][]any, error) {
	pages := c.Pages()
	defer pages.Close()
	cells := make([][]any, 0, numRows)
	maxDef := c.MaxDefinitionLevel()
	buf := make([]parquet.Value, 256)
	for {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		values := page.Values()
		for {
			n, err := values.ReadValues(buf)
			for _, v := range buf[:n] {
				if v.RepetitionLevel() == 0 {
					if len(cells) == numRows {
						parquet.Release(page)
						return nil, fmt.Errorf("holds more rows than the file's %d", numRows)
					}
					cells = append(cells, nil)
				}
				if len(cells) == 0 {
					parquet.Release(page)
					return nil, errors.New("data starts in the middle of a row")
				}
				if v.DefinitionLevel() == maxDef && !v.IsNull() {
					cells[len(cells)-1] = append(cells[len(cells)-1], goValue(v))
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				parquet.Release(page)
				return nil, err
			}
		}
		parquet.Release(page)
	}
	if len(cells) != numRows {
		return nil, fmt.Errorf("holds %d rows, the file says %d", len(cells), numRows)
	}
	return cells, nil
}

// goValue converts a parquet value to a Go value that outlives its page
// (strings are copied out of the page buffer).
func goValue(v parquet.Value) any {
	switch v.Kind() {
	case parquet.Boolean:
		return v.Boolean()
	case parquet.Int32:
		return int64(v.Int32())
	case parquet.Int64:
		return v.Int64()
	case parquet.Float:
		return float64(v.Float())
	case parquet.Double:
		return v.Double()
	default: // ByteArray, FixedLenByteArray, Int96: text or opaque bytes
		return string(v.ByteArray())
	}
}

// str returns row i as text: "" for null. Numbers are formatted, so an id
// column written as integers still reads as an id.
func (c *column) str(i int) string {
	vals := c.cell(i)
	if len(vals) == 0 {
		return ""
	}
	return formatValue(vals[0])
}

// strs returns row i as a list of text values (nil for null or empty).
func (c *column) strs(i int) []string {
	vals := c.cell(i)
	if len(vals) == 0 {
		return nil
	}
	out := make([]string, len(vals))
	for j, v := range vals {
		out[j] = formatValue(v)
	}
	return out
}

// int returns row i as an integer; ok is false for null. A float with a
// fraction or text that is not an integer is an error naming the row: pandas
// writes an int column with nulls as float64, and GraphRAG 0.x wrote
// community numbers as strings, so both are accepted when integral.
func (c *column) int(i int) (n int64, ok bool, err error) {
	vals := c.cell(i)
	if len(vals) == 0 {
		return 0, false, nil
	}
	n, err = toInt(vals[0])
	if err != nil {
		return 0, false, fmt.Errorf("%s row %d: column %q: %w", c.file, i, c.name, err)
	}
	return n, true, nil
}

// float returns row i as a number, nil for null. An integer or numeric
// text is accepted: GraphRAG's rank is a float, but a pandas frame may
// write whole ratings as integers.
func (c *column) float(i int) (*float64, error) {
	vals := c.cell(i)
	if len(vals) == 0 {
		return nil, nil
	}
	var f float64
	switch x := vals[0].(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return nil, fmt.Errorf("%s row %d: column %q: %s is not a number", c.file, i, c.name, globalsearch.EchoQuoted(x))
		}
	default:
		return nil, fmt.Errorf("%s row %d: column %q: %s (%T) is not a number", c.file, i, c.name, globalsearch.Echo(fmt.Sprint(x)), x)
	}
	return &f, nil
}

// ints returns row i as a list of integers (nil for null or empty).
func (c *column) ints(i int) ([]int64, error) {
	vals := c.cell(i)
	if len(vals) == 0 {
		return nil, nil
	}
	out := make([]int64, len(vals))
	for j, v := range vals {
		n, err := toInt(v)
		if err != nil {
			return nil, fmt.Errorf("%s row %d: column %q: %w", c.file, i, c.name, err)
		}
		out[j] = n
	}
	return out, nil
}

func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
			return 0, fmt.Errorf("%v is not an integer", x)
		}
		return int64(x), nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			// "3.0" from a float written as text.
			f, ferr := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if ferr != nil || f != math.Trunc(f) {
				return 0, fmt.Errorf("%s is not an integer", globalsearch.EchoQuoted(x))
			}
			return int64(f), nil
		}
		return n, nil
	default:
		return 0, fmt.Errorf("%s (%T) is not an integer", globalsearch.Echo(fmt.Sprint(v)), v)
	}
}

func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	default:
		return fmt.Sprint(v)
	}
}

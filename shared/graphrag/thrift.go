package graphrag

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// compactWalker walks Thrift compact-protocol bytes (the encoding of
// parquet's footer and page headers) without building anything: every list,
// set, map and binary must fit in the bytes that remain (an element takes at
// least a byte) and nesting is capped, so that decoding them afterwards
// allocates in proportion to their bytes.
type compactWalker struct {
	b   []byte
	pos int
	// onInt, when set, receives each integer or boolean field outside lists
	// with the ids of the fields leading to it.
	onInt func(path []int16, v int64)
	path  []int16
}

var errThriftEOF = errors.New("ends early")

func (w *compactWalker) readByte() (byte, error) {
	if w.pos >= len(w.b) {
		return 0, errThriftEOF
	}
	w.pos++
	return w.b[w.pos-1], nil
}

func (w *compactWalker) uvarint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.pos:])
	if n <= 0 {
		return 0, errors.New("bad varint")
	}
	w.pos += n
	return v, nil
}

func (w *compactWalker) left() uint64 { return uint64(len(w.b) - w.pos) }

func (w *compactWalker) skip(n uint64) error {
	if n > w.left() {
		return fmt.Errorf("%d bytes declared, %d left", n, w.left())
	}
	w.pos += int(n)
	return nil
}

func (w *compactWalker) walkStruct(depth int) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("nested deeper than %d levels", maxThriftDepth)
	}
	var id int16
	for {
		h, err := w.readByte()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil
		}
		if delta := int16(h >> 4); delta != 0 {
			id += delta
		} else {
			v, err := w.uvarint()
			if err != nil {
				return err
			}
			id = int16(int64(v>>1) ^ -int64(v&1))
		}
		w.path = append(w.path, id)
		err = w.walkValue(h&0x0f, depth, true)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
}

func (w *compactWalker) walkValue(typ byte, depth int, field bool) error {
	report := func(v int64) {
		if field && w.onInt != nil {
			w.onInt(w.path, v)
		}
	}
	switch typ {
	case 1, 2: // true, false: in a field the type is the value, in a list a byte
		if field {
			report(int64(2 - typ))
			return nil
		}
		_, err := w.readByte()
		return err
	case 3: // i8
		_, err := w.readByte()
		return err
	case 4, 5, 6: // i16, i32, i64: zigzag varints
		v, err := w.uvarint()
		report(int64(v>>1) ^ -int64(v&1))
		return err
	case 7: // double
		return w.skip(8)
	case 8: // binary
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		return w.skip(n)
	case 9, 10: // list, set
		h, err := w.readByte()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = w.uvarint(); err != nil {
				return err
			}
		}
		if n > w.left() {
			return fmt.Errorf("a list of %d elements in %d bytes", n, w.left())
		}
		return w.walkElements(n, []byte{h & 0x0f}, depth)
	case 11: // map
		n, err := w.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.readByte()
		if err != nil {
			return err
		}
		if n > w.left()/2 {
			return fmt.Errorf("a map of %d entries in %d bytes", n, w.left())
		}
		return w.walkElements(n, []byte{kv >> 4, kv & 0x0f}, depth)
	case 12:
		return w.walkStruct(depth + 1)
	default:
		return fmt.Errorf("unknown thrift type %d", typ)
	}
}

// walkElements walks n elements made of one value of each of types.
func (w *compactWalker) walkElements(n uint64, types []byte, depth int) error {
	if depth+1 > maxThriftDepth {
		return fmt.Errorf("nested deeper than %d levels", maxThriftDepth)
	}
	for range n {
		for _, t := range types {
			if err := w.walkValue(t, depth+1, false); err != nil {
				return err
			}
		}
	}
	return nil
}

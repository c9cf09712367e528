package globalsearch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// planJSONTail is how the indented JSON of a PlanReport whose batches are
// an empty list ends: batches is its last field.
const planJSONTail = "[]\n}\n"

// WriteJSON writes r as `plan --json` prints it, indented by two spaces
// with HTML left unescaped, exactly as one json.Encoder so set would, but
// one batch at a time: encoding the whole plan at once held every batch's
// content twice more (encoded, then indented, each in a buffer grown by
// doubling).
func (r PlanReport) WriteJSON(w io.Writer) error {
	batches := r.Batches
	if len(batches) == 0 {
		return indentedEncoder(w, "").Encode(r)
	}
	r.Batches = []PlanBatch{}
	var head bytes.Buffer
	if err := indentedEncoder(&head, "").Encode(r); err != nil {
		return err
	}
	if !bytes.HasSuffix(head.Bytes(), []byte(planJSONTail)) {
		return errors.New("plan output: batches must be the last field")
	}
	bw := bufio.NewWriter(w)
	bw.Write(head.Bytes()[:head.Len()-len(planJSONTail)])
	bw.WriteString("[\n")
	var one bytes.Buffer
	enc := indentedEncoder(&one, "    ") // an element of a list in the top-level object
	for i, b := range batches {
		one.Reset()
		if err := enc.Encode(b); err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		if i < len(batches)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ]\n}\n")
	return bw.Flush()
}

func indentedEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	return enc
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// planJSONTail is how writeJSON ends a planOutput whose batches are an
// empty list: batches is its last field.
const planJSONTail = "[]\n}\n"

// writePlanJSON writes out exactly as writeJSON does, one batch at a time:
// encoding the whole plan at once held every batch's content twice more
// (encoded, then indented, each in a buffer grown by doubling).
func writePlanJSON(w io.Writer, out planOutput) error {
	batches := out.Batches
	if len(batches) == 0 {
		return writeJSON(w, out)
	}
	out.Batches = []plannedBatch{}
	var head bytes.Buffer
	if err := writeJSON(&head, out); err != nil {
		return err
	}
	if !bytes.HasSuffix(head.Bytes(), []byte(planJSONTail)) {
		return errors.New("plan output: batches must be the last field")
	}
	bw := bufio.NewWriter(w)
	bw.Write(head.Bytes()[:head.Len()-len(planJSONTail)])
	bw.WriteString("[\n")
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetIndent("    ", "  ") // an element of a list in the top-level object
	enc.SetEscapeHTML(false)
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

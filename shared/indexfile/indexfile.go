// Package indexfile reads and writes the JSON index file: one namespace of
// summaries, claims and chunks (docs/indexes.md#the-index-file documents
// the shape). It is the format `make run` loads, `ingest` uploads and
// `import graphrag --out` writes.
package indexfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// File is one namespace of an index.
type File struct {
	Namespace string `json:"namespace"`
	globalsearch.Records
}

// Load reads and validates the index file at path.
// Every error is invalid input: a file that cannot be read or does not
// parse is a wrong file named by the caller, whichever command reads it.
func Load(path string) (File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "read index file: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return File{}, fmt.Errorf("index file %s: %w", path, err)
	}
	return f, nil
}

// Save writes f to path as indented JSON.
func Save(path string, f File) error {
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Write encodes f as indented JSON.
func Write(w io.Writer, f File) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(f)
}

type rawFile struct {
	Namespace json.RawMessage   `json:"namespace"`
	Summaries []json.RawMessage `json:"summaries"`
	Claims    []json.RawMessage `json:"claims"`
	Chunks    []json.RawMessage `json:"chunks"`
	// Entities and Relationships are optional (docs/contract.md#entities):
	// a file without them reads as before.
	Entities      []json.RawMessage `json:"entities"`
	Relationships []json.RawMessage `json:"relationships"`
}

// Parse decodes and validates an index file. Unknown fields, duplicate
// keys and anything after the top-level object are rejected, and every
// error names the place (record kind, position, id, field, or byte offset).
// Every error is invalid input (globalsearch.KindInvalidInput).
func Parse(data []byte) (File, error) {
	f, err := parse(data)
	if err != nil && globalsearch.KindOf(err) != globalsearch.KindInvalidInput {
		err = &globalsearch.Error{Kind: globalsearch.KindInvalidInput, Err: err}
	}
	return f, err
}

// typedFile is rawFile with its records decoded: a valid file decodes in
// this one pass. Only a file that fails it is decoded record by record,
// for an error that names the record.
type typedFile struct {
	Namespace     json.RawMessage             `json:"namespace"`
	Summaries     []globalsearch.Summary      `json:"summaries"`
	Claims        []globalsearch.Claim        `json:"claims"`
	Chunks        []globalsearch.Chunk        `json:"chunks"`
	Entities      []globalsearch.Entity       `json:"entities"`
	Relationships []globalsearch.Relationship `json:"relationships"`
}

func parse(data []byte) (File, error) {
	// The strict check and the decode each read every byte of a file that
	// may hold tens of megabytes; they run side by side.
	checked := make(chan error, 1)
	go func() { checked <- strictjson.Check(data) }()
	var typed typedFile
	typedErr := decodeTyped(data, &typed)
	checkErr := <-checked

	// encoding/json stops at the end of the first value and keeps the last
	// of two equal keys: a stray '}' or a record given an id twice would
	// pass unseen. It also reads text that is not UTF-8 as U+FFFD, so two
	// ids differing only there would load as one; the strict check refuses
	// such text in every field, ids and text alike (docs/contract.md#ids).
	// Its error comes first: it also names where a file that is not JSON
	// breaks, and a byte order mark.
	if checkErr != nil {
		return File{}, fmt.Errorf("index file: %w", checkErr)
	}
	raw := rawFile{Namespace: typed.Namespace}
	if kind := strictjson.Kind(data); typedErr != nil && kind != "an object" && kind != "null" {
		// encoding/json would name field "" of a Go type: say what the
		// file should be instead (null reads as a file without summaries).
		return File{}, fmt.Errorf(`index file: an index file is a JSON object with "summaries" (a list of community summaries) and optionally "namespace", "claims" and "chunks", not %s`, kind)
	}
	if typedErr != nil {
		if err := strictDecode(data, &raw); err != nil {
			return File{}, fmt.Errorf("index file: %w", err)
		}
	}
	var f File
	if raw.Namespace != nil {
		if err := json.Unmarshal(raw.Namespace, &f.Namespace); err != nil || !globalsearch.ValidNamespace(f.Namespace) {
			return File{}, fmt.Errorf(`field "namespace" %s`, globalsearch.NamespaceRule)
		}
	} else {
		f.Namespace = globalsearch.SpecDefaults.Namespace
	}
	if typedErr == nil {
		f.Summaries, f.Claims, f.Chunks = typed.Summaries, typed.Claims, typed.Chunks
		f.Entities, f.Relationships = typed.Entities, typed.Relationships
		return f, validate(f)
	}
	var err error
	if f.Summaries, err = decodeAll[globalsearch.Summary]("summaries", raw.Summaries); err != nil {
		return File{}, err
	}
	if f.Claims, err = decodeAll[globalsearch.Claim]("claims", raw.Claims); err != nil {
		return File{}, err
	}
	if f.Chunks, err = decodeAll[globalsearch.Chunk]("chunks", raw.Chunks); err != nil {
		return File{}, err
	}
	if f.Entities, err = decodeAll[globalsearch.Entity]("entities", raw.Entities); err != nil {
		return File{}, err
	}
	if f.Relationships, err = decodeAll[globalsearch.Relationship]("relationships", raw.Relationships); err != nil {
		return File{}, err
	}
	return f, validate(f)
}

// validate checks the decoded records. A file without summaries is
// refused (docs/contract.md#ingest): ingested, it would empty the namespace
// it replaces, and searched, it has nothing to read, so `null`, `{}` and
// a file of only claims or chunks are mistakes, never an empty index.
func validate(f File) error {
	if err := f.Records.Validate(); err != nil {
		return err
	}
	if len(f.Summaries) == 0 {
		return errors.New("index file holds no summaries: an index needs at least one (to empty a namespace of a table, use delete-namespace)")
	}
	return nil
}

// decodeTyped is strictDecode(data, f) one record at a time. A Decoder
// copies the whole value it decodes into a buffer of its own, grown by
// doubling: decoding the file as one value held up to twice the file's
// size beside data and the records. What strictDecode refuses (a key that
// is no field, a list that is not a list) is an error here too, so the
// caller falls back to the record-by-record decode, which names it.
func decodeTyped(data []byte, f *typedFile) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	tok, err := dec.Token()
	if err != nil || tok == nil { // null decodes to nothing, as strictDecode's does
		return err
	}
	if tok != json.Delim('{') {
		return errors.New("index file: not an object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		// Keys match the tags as encoding/json matches them: exactly, or
		// else folded as bytes.EqualFold folds.
		switch name, _ := key.(string); {
		case strings.EqualFold(name, "namespace"):
			err = dec.Decode(&f.Namespace)
		case strings.EqualFold(name, "summaries"):
			f.Summaries, err = decodeList[globalsearch.Summary](dec)
		case strings.EqualFold(name, "claims"):
			f.Claims, err = decodeList[globalsearch.Claim](dec)
		case strings.EqualFold(name, "chunks"):
			f.Chunks, err = decodeList[globalsearch.Chunk](dec)
		case strings.EqualFold(name, "entities"):
			f.Entities, err = decodeList[globalsearch.Entity](dec)
		case strings.EqualFold(name, "relationships"):
			f.Relationships, err = decodeList[globalsearch.Relationship](dec)
		default:
			err = fmt.Errorf("index file: key %v", globalsearch.EchoQuoted(fmt.Sprint(key)))
		}
		if err != nil {
			return err
		}
	}
	_, err = dec.Token() // the closing '}'
	return err
}

// decodeList reads a JSON list (or null, which is no list) record by record.
func decodeList[T any](dec *json.Decoder) ([]T, error) {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return nil, err
	}
	if tok != json.Delim('[') {
		return nil, errors.New("index file: not a list")
	}
	out := []T{}
	for dec.More() {
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	_, err = dec.Token() // the closing ']'
	return out, err
}

// recordNames name one record of each list, for a message.
var recordNames = map[string]string{"summaries": "a summary", "claims": "a claim", "chunks": "a chunk", "entities": "an entity", "relationships": "a relationship"}

func decodeAll[T any](kind string, raws []json.RawMessage) ([]T, error) {
	out := make([]T, len(raws))
	for i, r := range raws {
		if k := strictjson.Kind(r); k != "an object" && k != "null" {
			return nil, fmt.Errorf("%s[%d]: %s must be a JSON object, not %s", kind, i, recordNames[kind], k)
		}
		if err := strictDecode(r, &out[i]); err != nil {
			return nil, fmt.Errorf("%s[%d]%s: %w", kind, i, idOf(r), err)
		}
	}
	return out, nil
}

func idOf(raw json.RawMessage) string {
	var probe struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.ID != nil {
		id, ok := probe.ID.(string)
		if !ok {
			id = fmt.Sprint(probe.ID)
		}
		return " (id " + globalsearch.Echo(id) + ")"
	}
	return ""
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return fmt.Errorf("field %q must be a %s, not a JSON %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
		}
		// encoding/json names an unknown key in full: a 1 MB key would
		// make a 1 MB message.
		if quoted, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if key, uerr := strconv.Unquote(quoted); uerr == nil {
				return errors.New("json: unknown field " + globalsearch.EchoQuoted(key))
			}
		}
		return err
	}
	// What follows the value is strictjson.Check's to report, with its
	// offset.
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64":
		// encoding/json reads an int from digits only: 1e2 and 100.0 are
		// refused, though they are the integer 100 (docs/contract.md#records).
		return "whole number written in digits (such as 100)"
	case "float64":
		return "number"
	case "slice":
		return "list"
	case "struct", "map":
		return "object"
	}
	return goKind
}

package indexfile

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// keepIDBytes puts back into r the ids and id references exactly as data
// holds them, so that Records.Validate refuses one that is not valid UTF-8
// (docs/contract.md#ids) and names its record. encoding/json reads invalid
// bytes and an escaped half of a surrogate pair as U+FFFD, so without it
// "x\xfe" and "x\xff" would load as one id. Text fields keep encoding/json's
// reading. A file of valid UTF-8 without a surrogate escape, which every
// file this project writes is, is not read again.
func keepIDBytes(data []byte, r *globalsearch.Records) error {
	if utf8.Valid(data) && !hasSurrogateEscape(data) {
		return nil
	}
	var raw rawFile
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	type idFields struct {
		ID                json.RawMessage   `json:"id"`
		ParentCommunityID json.RawMessage   `json:"parentCommunityId"`
		CommunityID       json.RawMessage   `json:"communityId"`
		SourceChunkIDs    []json.RawMessage `json:"sourceChunkIds"`
	}
	fields := func(rec json.RawMessage) (idFields, error) {
		var f idFields
		return f, json.Unmarshal(rec, &f)
	}
	for i := range min(len(raw.Summaries), len(r.Summaries)) {
		f, err := fields(raw.Summaries[i])
		if err != nil {
			return err
		}
		s := &r.Summaries[i]
		s.ID, s.ParentCommunityID = literal(f.ID, s.ID), literal(f.ParentCommunityID, s.ParentCommunityID)
	}
	for i := range min(len(raw.Claims), len(r.Claims)) {
		f, err := fields(raw.Claims[i])
		if err != nil {
			return err
		}
		c := &r.Claims[i]
		c.ID, c.CommunityID = literal(f.ID, c.ID), literal(f.CommunityID, c.CommunityID)
		for j := range min(len(f.SourceChunkIDs), len(c.SourceChunkIDs)) {
			c.SourceChunkIDs[j] = literal(f.SourceChunkIDs[j], c.SourceChunkIDs[j])
		}
	}
	for i := range min(len(raw.Chunks), len(r.Chunks)) {
		f, err := fields(raw.Chunks[i])
		if err != nil {
			return err
		}
		r.Chunks[i].ID = literal(f.ID, r.Chunks[i].ID)
	}
	return nil
}

// hasSurrogateEscape reports whether data may hold an escaped surrogate
// (\uD800-\uDFFF). An escaped backslash before "ud8" is a false alarm,
// which costs only the second read.
func hasSurrogateEscape(data []byte) bool {
	for {
		i := bytes.Index(data, []byte(`\u`))
		if i < 0 || i+3 >= len(data) {
			return false
		}
		if (data[i+2] == 'd' || data[i+2] == 'D') && bytes.IndexByte([]byte("89abcdefABCDEF"), data[i+3]) >= 0 {
			return true
		}
		data = data[i+2:]
	}
}

// literal decodes the JSON string lit keeping what it holds byte for byte:
// an invalid byte stays itself and a lone surrogate escape becomes its
// three-byte form, both invalid UTF-8. Anything that is not a JSON string
// (absent, null) returns decoded, the value encoding/json read.
func literal(lit json.RawMessage, decoded string) string {
	if len(lit) < 2 || lit[0] != '"' {
		return decoded
	}
	lit = lit[1 : len(lit)-1]
	if utf8.Valid(lit) && bytes.IndexByte(lit, '\\') < 0 {
		return decoded
	}
	out := make([]byte, 0, len(lit))
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' || i+1 >= len(lit) {
			out = append(out, lit[i])
			continue
		}
		i++
		switch c := lit[i]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(lit[i+1:])
			if !ok {
				return decoded // the decoder refused it already
			}
			i += 4
			if utf16.IsSurrogate(r) && r < 0xDC00 {
				if r2, ok := hex4(lit[min(i+3, len(lit)):]); ok && i+2 < len(lit) && lit[i+1] == '\\' && lit[i+2] == 'u' {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						out = utf8.AppendRune(out, pair)
						i += 6
						continue
					}
				}
			}
			if utf16.IsSurrogate(r) {
				out = append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
				continue
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out = append(out, c)
		}
	}
	return string(out)
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

package limits

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
)

// batchWrite admits a BatchWriteItem item by item, in order, while each
// item's partition has its units; the rest come back as UnprocessedItems,
// and a call none of whose items is admitted is refused whole with
// ProvisionedThroughputExceededException, as DynamoDB does. An item over
// 400 KB refuses the whole call.
func (d *Double) batchWrite(r *http.Request, body []byte) *httptest.ResponseRecorder {
	var in map[string]json.RawMessage
	var reqs map[string][]json.RawMessage
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["RequestItems"], &reqs) != nil {
		return d.serve(r, body)
	}
	admitted, left := map[string][]json.RawMessage{}, map[string][]json.RawMessage{}
	var all []write
	for table, items := range reqs {
		for _, raw := range items {
			var wr struct {
				PutRequest    *struct{ Item rawItem }
				DeleteRequest *struct{ Key rawItem }
			}
			if json.Unmarshal(raw, &wr) != nil {
				return d.serve(r, body)
			}
			op, item := "DeleteItem", rawItem(nil)
			var key rawItem
			if wr.PutRequest != nil {
				op, item = "PutItem", wr.PutRequest.Item
			} else if wr.DeleteRequest != nil {
				key = wr.DeleteRequest.Key
			}
			w, ok := d.writeOf(table, op, item, key, nil, 1)
			if !ok {
				return d.tooLarge()
			}
			all = append(all, w)
			if d.admit([]write{w}) {
				admitted[table] = append(admitted[table], raw)
			} else {
				left[table] = append(left[table], raw)
			}
		}
	}
	if len(admitted) == 0 && len(all) > 0 {
		return d.throttled(all[0].table, writes)
	}
	return d.withUnprocessed(r, in, admitted, left, "RequestItems", "UnprocessedItems")
}

// withUnprocessed serves the admitted part of a batch call and adds what
// was not admitted to the answer's unprocessed field.
func (d *Double) withUnprocessed(r *http.Request, in map[string]json.RawMessage, admitted, left any, field, unprocessed string) *httptest.ResponseRecorder {
	in[field], _ = json.Marshal(admitted)
	body, _ := json.Marshal(in)
	rec := d.serve(r, body)
	n := count(left)
	if rec.Code != http.StatusOK || n == 0 {
		return rec
	}
	var out map[string]json.RawMessage
	if json.Unmarshal(rec.Body.Bytes(), &out) != nil {
		return rec
	}
	out[unprocessed], _ = json.Marshal(left)
	raw, _ := json.Marshal(out)
	d.mu.Lock()
	d.stats.Unprocessed += n
	d.mu.Unlock()
	return jsonResponse(http.StatusOK, raw)
}

func count(left any) int {
	n := 0
	switch l := left.(type) {
	case map[string][]json.RawMessage:
		for _, v := range l {
			n += len(v)
		}
	case map[string]keysAndAttributes:
		for _, v := range l {
			n += len(v.Keys)
		}
	}
	return n
}

// keysAndAttributes is one table's part of a BatchGetItem; Rest keeps the
// fields the double does not read (projection, names) as they were sent.
type keysAndAttributes struct {
	Keys []rawItem
	Rest map[string]json.RawMessage
}

func (k keysAndAttributes) MarshalJSON() ([]byte, error) {
	m := map[string]any{"Keys": k.Keys}
	for name, v := range k.Rest {
		if name != "Keys" {
			m[name] = v
		}
	}
	return json.Marshal(m)
}

// batchGet admits the keys of a BatchGetItem whose partitions are not in
// debt; the rest come back as UnprocessedKeys, and a call none of whose
// keys is admitted is refused whole. What it returned is charged to each
// item's partition.
func (d *Double) batchGet(r *http.Request, body []byte) *httptest.ResponseRecorder {
	var in map[string]json.RawMessage
	var reqs map[string]map[string]json.RawMessage
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["RequestItems"], &reqs) != nil {
		return d.serve(r, body)
	}
	admitted, left := map[string]keysAndAttributes{}, map[string]keysAndAttributes{}
	consistent := map[string]bool{}
	table := ""
	for t, ka := range reqs {
		var keys []rawItem
		var cr bool
		if json.Unmarshal(ka["Keys"], &keys) != nil {
			return d.serve(r, body)
		}
		_ = json.Unmarshal(ka["ConsistentRead"], &cr)
		consistent[t], table = cr, t
		d.partitionKey(t) // known before partitionOfLocked reads it
		for _, k := range keys {
			d.mu.Lock()
			ok := d.take(bucketKey(reads, t, d.partitionOfLocked(t, k)), d.limits.ReadUnits, 0)
			d.mu.Unlock()
			to := left
			if ok {
				to = admitted
			}
			to[t] = keysAndAttributes{Keys: append(to[t].Keys, k), Rest: ka}
		}
	}
	if len(admitted) == 0 && len(left) > 0 {
		return d.throttled(table, reads)
	}
	rec := d.withUnprocessed(r, in, admitted, left, "RequestItems", "UnprocessedKeys")
	var out struct{ Responses map[string][]rawItem }
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	if n := len(out.Responses[table]); n > 0 && rec.Code == http.StatusOK && d.takeStale(consistent[table]) {
		rec = dropFirst(rec, "Responses")
	}
	for t, items := range out.Responses {
		for _, it := range items {
			d.chargeRead(t, bucketKey(reads, t, d.partitionOf(t, it)), units(itemSize(it), readUnit), consistent[t])
		}
	}
	return rec
}

// partitionOfLocked is partitionOf with d.mu held: the key schema of a
// table is known by then (asked before the lock), or the key is "".
func (d *Double) partitionOfLocked(table string, it rawItem) string {
	return string(it[d.keys[table][0]])
}

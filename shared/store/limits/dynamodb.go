package limits

import (
	"encoding/json"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
)

const (
	writes = "write"
	reads  = "read"
)

// The messages DynamoDB sends with the errors the double returns.
const (
	throttledMessage = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
	tooLargeMessage  = "Item size has exceeded the maximum allowed size"
)

// write is one item a write request puts, updates, deletes or checks.
type write struct {
	table, partition string
	units            float64
}

// dynamoDB serves one DynamoDB JSON request, X-Amz-Target target.
func (d *Double) dynamoDB(r *http.Request, target string, body []byte) *httptest.ResponseRecorder {
	op := target[strings.LastIndexByte(target, '.')+1:]
	switch op {
	case "PutItem", "UpdateItem", "DeleteItem":
		return d.singleWrite(r, op, body)
	case "TransactWriteItems":
		return d.transactWrite(r, body)
	case "BatchWriteItem":
		return d.batchWrite(r, body)
	case "GetItem", "Query":
		return d.singleRead(r, op, body)
	case "BatchGetItem":
		return d.batchGet(r, body)
	}
	return d.serve(r, body)
}

// singleWrite admits a PutItem, UpdateItem or DeleteItem by its units.
func (d *Double) singleWrite(r *http.Request, op string, body []byte) *httptest.ResponseRecorder {
	var in struct {
		TableName string
		Item, Key rawItem
		Values    rawItem `json:"ExpressionAttributeValues"`
	}
	if json.Unmarshal(body, &in) != nil {
		return d.serve(r, body)
	}
	w, ok := d.writeOf(in.TableName, op, in.Item, in.Key, in.Values, 1)
	if !ok {
		return d.tooLarge()
	}
	if !d.admit([]write{w}) {
		return d.throttled(in.TableName, writes)
	}
	return d.serve(r, body)
}

// writeOf is the write of one item: a put by the item's size, an update by
// its key's and new values' (the item after it is not known yet), a delete
// or a condition check by one unit; factor is 2 in a transaction. It is
// false for a put over MaxItemSize.
func (d *Double) writeOf(table, op string, item, key, values rawItem, factor float64) (write, bool) {
	w := write{table: table}
	switch op {
	case "PutItem", "Put":
		size := itemSize(item)
		if size > MaxItemSize {
			return w, false
		}
		w.partition, w.units = d.partitionOf(table, item), units(size, writeUnit)
	case "UpdateItem", "Update":
		w.partition, w.units = d.partitionOf(table, key), units(itemSize(key)+itemSize(values), writeUnit)
	default:
		w.partition, w.units = d.partitionOf(table, key), 1
	}
	w.units *= factor
	return w, true
}

// admit takes every write's units from its partition, all or none.
func (d *Double) admit(ws []write) bool {
	need := map[string]float64{}
	for _, w := range ws {
		need[bucketKey(writes, w.table, w.partition)] += w.units
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.limits.WriteUnits <= 0 {
		need = nil
	}
	for key, n := range need {
		b := d.bucketLocked(key, d.limits.WriteUnits)
		if b.tokens <= 0 || b.tokens < min(n, b.capacity) {
			return false
		}
	}
	for key, n := range need {
		d.buckets[key].tokens -= n
	}
	for _, w := range ws {
		d.stats.WriteUnits[w.table] += w.units
	}
	return true
}

// transactWrite admits a transaction whole: each item costs twice its
// units (DynamoDB's transactional writes).
func (d *Double) transactWrite(r *http.Request, body []byte) *httptest.ResponseRecorder {
	type op struct {
		TableName string
		Item, Key rawItem
		Values    rawItem `json:"ExpressionAttributeValues"`
	}
	var in struct {
		TransactItems []map[string]op
	}
	if json.Unmarshal(body, &in) != nil {
		return d.serve(r, body)
	}
	var ws []write
	table := ""
	for _, ti := range in.TransactItems {
		for name, o := range ti {
			w, ok := d.writeOf(o.TableName, name, o.Item, o.Key, o.Values, 2)
			if !ok {
				return d.tooLarge()
			}
			ws, table = append(ws, w), o.TableName
		}
	}
	if !d.admit(ws) {
		return d.throttled(table, writes)
	}
	return d.serve(r, body)
}

// singleRead admits a GetItem or Query while its partition is not in debt
// and charges it by what it returned: 4 KB units of the items' total size,
// at least one, half for an eventually consistent read. A projected or
// counted Query is charged by what it sent back, a lower bound of what
// DynamoDB charges (the items read whole).
func (d *Double) singleRead(r *http.Request, op string, body []byte) *httptest.ResponseRecorder {
	var in struct {
		TableName      string
		Key            rawItem
		ConsistentRead bool
		KeyCondition   string            `json:"KeyConditionExpression"`
		Names          map[string]string `json:"ExpressionAttributeNames"`
		Values         rawItem           `json:"ExpressionAttributeValues"`
	}
	if json.Unmarshal(body, &in) != nil {
		return d.serve(r, body)
	}
	partition := d.partitionOf(in.TableName, in.Key)
	if op == "Query" {
		partition = d.queryPartition(in.TableName, in.KeyCondition, in.Names, in.Values)
	}
	key := bucketKey(reads, in.TableName, partition)
	d.mu.Lock()
	ok := d.take(key, d.limits.ReadUnits, 0)
	d.mu.Unlock()
	if !ok {
		return d.throttled(in.TableName, reads)
	}
	rec := d.serve(r, body)
	var out struct {
		Item  rawItem
		Items []rawItem
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	size := itemSize(out.Item)
	if op == "Query" && rec.Code == http.StatusOK {
		rec, size = d.page(in.TableName, rec, out.Items)
		if len(out.Items) > 0 && d.takeStale(in.ConsistentRead) {
			rec = dropFirst(rec, "Items")
		}
	}
	d.chargeRead(in.TableName, key, units(size, readUnit), in.ConsistentRead)
	return rec
}

// MaxPage is the most a Query reads in one page, 1 MB: the emulator
// answers a Query whole, which DynamoDB does not.
const MaxPage = 1 << 20

// page cuts a Query's answer after the item that takes it to MaxPage, with
// the LastEvaluatedKey that lets the caller read on, and returns the
// answer and the size of the items it holds.
func (d *Double) page(table string, rec *httptest.ResponseRecorder, items []rawItem) (*httptest.ResponseRecorder, int) {
	size, cut := 0, len(items)
	for i, it := range items {
		size += itemSize(it)
		if size >= MaxPage && i < len(items)-1 {
			cut = i + 1
			break
		}
	}
	hash, rng := d.keySchema(table)
	if cut == len(items) || items[cut-1][hash] == nil || items[cut-1][rng] == nil {
		return rec, size
	}
	var out map[string]json.RawMessage
	if json.Unmarshal(rec.Body.Bytes(), &out) != nil {
		return rec, size
	}
	last := items[cut-1]
	out["Items"], _ = json.Marshal(items[:cut])
	out["Count"], out["ScannedCount"] = json.RawMessage(strconv.Itoa(cut)), json.RawMessage(strconv.Itoa(cut))
	out["LastEvaluatedKey"], _ = json.Marshal(rawItem{hash: last[hash], rng: last[rng]})
	raw, _ := json.Marshal(out)
	return jsonResponse(http.StatusOK, raw), size
}

// dropFirst removes the first item of a Query page (field Items) or of
// each table's BatchGetItem answer (field Responses), keeping its
// LastEvaluatedKey: the page of a replica that lacks that item.
func dropFirst(rec *httptest.ResponseRecorder, field string) *httptest.ResponseRecorder {
	var out map[string]json.RawMessage
	if json.Unmarshal(rec.Body.Bytes(), &out) != nil {
		return rec
	}
	switch field {
	case "Items":
		var items []json.RawMessage
		if json.Unmarshal(out["Items"], &items) != nil || len(items) == 0 {
			return rec
		}
		out["Items"], _ = json.Marshal(items[1:])
		out["Count"] = json.RawMessage(strconv.Itoa(len(items) - 1))
	default:
		var tables map[string][]json.RawMessage
		if json.Unmarshal(out["Responses"], &tables) != nil {
			return rec
		}
		for t, items := range tables {
			if len(items) > 0 {
				tables[t] = items[1:]
			}
		}
		out["Responses"], _ = json.Marshal(tables)
	}
	raw, _ := json.Marshal(out)
	return jsonResponse(http.StatusOK, raw)
}

func (d *Double) chargeRead(table, key string, n float64, consistent bool) {
	if !consistent {
		n /= 2
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.charge(key, d.limits.ReadUnits, n)
	d.stats.ReadUnits[table] += n
}

// keyEquals finds `name = :value` in a key condition.
var keyEquals = regexp.MustCompile(`(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)`)

// queryPartition is the partition key value a Query's key condition names.
func (d *Double) queryPartition(table, cond string, names map[string]string, values rawItem) string {
	return QueryPartition(d.partitionKey(table), cond, names, values)
}

// QueryPartition is the value, as its wire JSON, that a Query's key
// condition cond sets the partition key attribute pk to, through the
// request's ExpressionAttributeNames and ExpressionAttributeValues; "" when
// cond names none. It is exported for the emulator that serves each
// partition from its own instance (shared/store/testenv), so that the
// double and that emulator agree on which partition a Query reads.
func QueryPartition(pk, cond string, names map[string]string, values map[string]json.RawMessage) string {
	for _, m := range keyEquals.FindAllStringSubmatch(cond, -1) {
		name := m[1]
		if n, ok := names[name]; ok {
			name = n
		}
		if name == pk {
			return string(values[m[2]])
		}
	}
	return ""
}

// partitionOf is the partition key value of an item or key of table, as
// its wire JSON.
func (d *Double) partitionOf(table string, it rawItem) string {
	return string(it[d.partitionKey(table)])
}

// partitionKey is the partition key attribute of table.
func (d *Double) partitionKey(table string) string {
	hash, _ := d.keySchema(table)
	return hash
}

// keySchema is the partition and sort key attributes of table, asked of
// the emulator once.
func (d *Double) keySchema(table string) (hash, rng string) {
	d.mu.Lock()
	k, ok := d.keys[table]
	d.mu.Unlock()
	if ok {
		return k[0], k[1]
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":`+strconv.Quote(table)+`}`))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	rec := httptest.NewRecorder()
	d.next.ServeHTTP(rec, req)
	var out struct {
		Table struct {
			KeySchema []struct{ AttributeName, KeyType string }
		}
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	for _, k := range out.Table.KeySchema {
		switch k.KeyType {
		case "HASH":
			hash = k.AttributeName
		case "RANGE":
			rng = k.AttributeName
		}
	}
	if hash != "" {
		d.mu.Lock()
		d.keys[table] = [2]string{hash, rng}
		d.mu.Unlock()
	}
	return hash, rng
}

// throttled is the error DynamoDB answers when a partition key's range is
// over its rate: HTTP 400, ProvisionedThroughputExceededException, with
// its throttling reason (docs/contract.md#limits-model).
func (d *Double) throttled(table, kind string) *httptest.ResponseRecorder {
	d.mu.Lock()
	d.stats.Throttled++
	d.mu.Unlock()
	reason := "TableWriteKeyRangeThroughputExceeded"
	if kind == reads {
		reason = "TableReadKeyRangeThroughputExceeded"
	}
	return jsonError("com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", throttledMessage,
		[]map[string]string{{"reason": reason, "resource": "arn:aws:dynamodb:us-east-1:123456789012:table/" + table}})
}

// tooLarge is DynamoDB's refusal of an item over 400 KB.
func (d *Double) tooLarge() *httptest.ResponseRecorder {
	d.mu.Lock()
	d.stats.Refused++
	d.mu.Unlock()
	return jsonError("com.amazon.coral.validate#ValidationException", tooLargeMessage, nil)
}

func jsonError(typ, message string, reasons []map[string]string) *httptest.ResponseRecorder {
	body := map[string]any{"__type": typ, "message": message}
	if reasons != nil {
		body["ThrottlingReasons"] = reasons
	}
	raw, _ := json.Marshal(body)
	return jsonResponse(http.StatusBadRequest, raw)
}

// jsonResponse is an answer as DynamoDB sends it, with the CRC32 the SDK
// checks.
func jsonResponse(status int, raw []byte) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/x-amz-json-1.0")
	rec.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(raw)), 10))
	rec.Header().Set("X-Amzn-Requestid", "limits-double")
	rec.WriteHeader(status)
	_, _ = rec.Write(raw)
	return rec
}

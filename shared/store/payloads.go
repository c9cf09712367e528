// The payload bucket: a run's batch texts, the bulk of a plan, live in S3
// rather than in its DynamoDB partition (docs/contract.md#payloads-bucket).

package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"golang.org/x/sync/errgroup"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// S3API is the part of *s3.Client the store uses; tests wrap it to count
// requests or inject faults. Only these two: prepare may only put objects
// and the map function only get them (docs/contract.md#payloads-bucket),
// and nothing deletes one (the bucket's lifecycle rule does).
type S3API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
}

// Payloads is the payload bucket. It is safe for concurrent use.
type Payloads struct {
	client S3API
	bucket string
}

// NewPayloads returns the payload bucket called bucket.
func NewPayloads(api S3API, bucket string) (*Payloads, error) {
	if bucket == "" {
		return nil, errors.New("the payload bucket has no name")
	}
	return &Payloads{client: api, bucket: bucket}, nil
}

// Bucket is the bucket's name.
func (p *Payloads) Bucket() string { return p.bucket }

// PayloadPrefix is the key prefix of every object the store writes; the
// template's lifecycle rule and IAM policies name the same prefix.
const PayloadPrefix = "runs/"

// textRef, on a batch item, says where the batch's text is: bytes
// [Offset, Offset+Length) of object Key. The object holds every batch text
// of one save, one after another, so a save is one PutObject and a map task
// one ranged GetObject (docs/contract.md#payloads-bucket).
type textRef struct {
	Key    string `json:"key"`
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
}

// runPrefix is the key prefix of a run's objects: its query id, then its
// run id. Query ids and run ids are plain ASCII without '/'
// (globalsearch.ValidQueryID, NewRunID), so no two runs share a prefix.
func runPrefix(queryID, runID string) string {
	return PayloadPrefix + queryID + "/" + runID + "/"
}

// runObjectKey names an object of a run by its kind and the digest of its
// body, so that a resave of the same run with another body writes a new
// object instead of changing one a map task may be reading.
func runObjectKey(queryID, runID, kind string, body parts) string {
	sum := body.digest()
	return runPrefix(queryID, runID) + kind + "-" + hex.EncodeToString(sum[:16])
}

// parts is an object's body as the strings it is made of, in order, read
// and hashed where they are instead of joined first: a 100,000-summary
// plan's texts are 240 MB, and joining them was 0.5 s of prepare's CPU,
// mostly faulting in the copy's fresh pages
// (docs/scale.md#first-map-call-components).
type parts []string

func (b parts) size() int64 {
	var n int64
	for _, s := range b {
		n += int64(len(s))
	}
	return n
}

// digest hashes the body through one small buffer: the hash takes bytes,
// and converting each part whole would copy the body after all.
func (b parts) digest() [sha256.Size]byte {
	h := sha256.New()
	var buf [32 << 10]byte
	_, _ = io.CopyBuffer(h, b.reader(), buf[:]) // strings in memory read without fail
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// reader reads the body from its start; it seeks, as the SDK needs to
// sign the body and to send it again on a retry.
func (b parts) reader() *io.SectionReader {
	starts := make([]int64, len(b))
	var at int64
	for i, s := range b {
		starts[i] = at
		at += int64(len(s))
	}
	return io.NewSectionReader(partsAt{b, starts}, 0, at)
}

// partsAt reads parts at an offset: starts[i] is where part i begins.
type partsAt struct {
	parts  parts
	starts []int64
}

func (p partsAt) ReadAt(buf []byte, off int64) (int, error) {
	// The last part beginning at or before off holds it (empty parts
	// begin where the next one does, and hold nothing).
	i := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off }) - 1
	n := 0
	for ; n < len(buf) && i >= 0 && i < len(p.parts); i++ {
		k := copy(buf[n:], p.parts[i][off+int64(n)-p.starts[i]:])
		n += k
	}
	if n < len(buf) {
		return n, io.EOF
	}
	return n, nil
}

// textsObject lays out the batch texts of p as one object: its key, under
// the run's prefix and named by its digest, so that a resave of the same
// run with other texts writes a new object instead of changing one a map
// task may be reading; its body, the batches' texts themselves; and each
// batch's place in it.
func textsObject(p globalsearch.Plan) (string, parts, []textRef) {
	body := make(parts, len(p.Batches))
	refs := make([]textRef, len(p.Batches))
	var at int64
	for i, b := range p.Batches {
		body[i] = b.Content
		refs[i] = textRef{Offset: at, Length: int64(len(b.Content))}
		at += int64(len(b.Content))
	}
	key := runObjectKey(p.Params.QueryID, p.RunID, "texts", body)
	for i := range refs {
		refs[i].Key = key
	}
	return key, body, refs
}

// put writes one object and returns its ETag, which reads of it then
// require (docs/contract.md#payloads-bucket).
func (p *Payloads) put(ctx context.Context, key, contentType string, body parts) (string, error) {
	out, err := p.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(p.bucket), Key: aws.String(key), Body: body.reader(),
		ContentLength: aws.Int64(body.size()), ContentType: aws.String(contentType),
	})
	if err != nil {
		return "", wrapS3(err, "write s3://%s/%s", p.bucket, key)
	}
	return aws.ToString(out.ETag), nil
}

// putObjects writes the objects of one save at once (a save's objects are
// on prepare's critical path and independent of each other) and returns
// each one's ETag by key. Any one failing fails the save, before anything
// names them.
func (s *Runs) putObjects(ctx context.Context, objects map[string]object) (map[string]string, error) {
	g, gctx := errgroup.WithContext(ctx)
	etags := make([]string, len(objects))
	keys := make([]string, 0, len(objects))
	for key := range objects {
		keys = append(keys, key)
	}
	for i, key := range keys {
		o := objects[key]
		g.Go(func() (err error) {
			etags[i], err = s.payloads.put(gctx, key, o.contentType, o.body)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(keys))
	for i, key := range keys {
		out[key] = etags[i]
	}
	return out, nil
}

// get reads length bytes of an object from offset; a whole object when
// length is negative. With etag, S3 serves the bytes only if the object
// is still the one whose put returned that ETag: a ranged read cannot
// check the digest of the whole object, so it checks that the object is
// the one written, whose digest its key names (docs/contract.md#payloads-bucket).
func (p *Payloads) get(ctx context.Context, key, etag string, offset, length int64) ([]byte, error) {
	in := &s3.GetObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(key)}
	if length == 0 {
		return []byte{}, nil
	}
	if length > 0 {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", offset, offset+length-1))
	}
	if etag != "" {
		in.IfMatch = aws.String(etag)
	}
	out, err := p.client.GetObject(ctx, in)
	if err != nil {
		return nil, wrapS3(err, "read s3://%s/%s", p.bucket, key)
	}
	defer func() { _ = out.Body.Close() }()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, wrapS3(err, "read s3://%s/%s", p.bucket, key)
	}
	if length > 0 && int64(len(data)) != length {
		return nil, fmt.Errorf("read s3://%s/%s: %d bytes at %d, not the %d asked for", p.bucket, key, len(data), offset, length)
	}
	return data, nil
}

// getWhole reads a whole object and checks its bytes against the digest
// its key names (runObjectKey): an object changed after its run wrote it,
// even to other bytes of the same length, is a corrupt payload, never
// served (docs/contract.md#payloads-bucket).
func (p *Payloads) getWhole(ctx context.Context, key, etag string) ([]byte, error) {
	body, err := p.get(ctx, key, etag, 0, -1)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	named := key[strings.LastIndex(key, "-")+1:]
	if named != hex.EncodeToString(sum[:16]) {
		return nil, globalsearch.Errorf(globalsearch.KindCorruptPayload, "read s3://%s/%s: its %d bytes are not the ones its key's digest names: the object was changed after its run wrote it", p.bucket, key, len(body))
	}
	return body, nil
}

// s3ThrottleCodes are the codes S3 answers when it refuses for load (503
// SlowDown per prefix); the SDK has already retried them.
var s3ThrottleCodes = map[string]bool{"SlowDown": true, "ServiceUnavailable": true, "RequestLimitExceeded": true}

// wrapS3 is wrap for S3: throttling is KindThrottled, an object that is
// no longer the one written KindCorruptPayload. A missing object
// stays an internal error: a live batch item's object outlives it (the
// lifecycle rule keeps objects as long as the runs table keeps items), so
// its absence is corruption, not a run that is gone.
func wrapS3(err error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && s3ThrottleCodes[apiErr.ErrorCode()] {
		return globalsearch.Errorf(globalsearch.KindThrottled, "%s: throttled by S3: %w", msg, err)
	}
	// The object's ETag is not the one its put returned: it was replaced.
	if errors.As(err, &apiErr) && apiErr.ErrorCode() == "PreconditionFailed" {
		return globalsearch.Errorf(globalsearch.KindCorruptPayload, "%s: the object was replaced after its run wrote it: %w", msg, err)
	}
	return wrap(err, "%s", msg)
}

// checkRef refuses a batch item whose text lies outside its own run's
// prefix: a new run never reads a superseded run's objects, even from a
// corrupt item.
func checkRef(what, queryID, runID string, ref *textRef) error {
	if !strings.HasPrefix(ref.Key, runPrefix(queryID, runID)) || ref.Offset < 0 || ref.Length < 0 {
		return fmt.Errorf("%s names text %q [%d,+%d), which is not its run's", what, ref.Key, ref.Offset, ref.Length)
	}
	return nil
}

// WithPayloads returns the runs table with its batch texts in payloads
// (docs/contract.md#payloads-bucket): SavePlan writes them there, and Plan
// and Batch read them back. Without it, SavePlan keeps each text in its
// batch item, and a batch item that names a text cannot be read.
func (s *Runs) WithPayloads(p *Payloads) *Runs {
	c := *s
	c.payloads = p
	return &c
}

// readText reads the text of one batch item of run runID: one ranged
// GetObject.
func (s *Runs) readText(ctx context.Context, what, queryID, runID, etag string, ref *textRef) (string, error) {
	if err := checkRef(what, queryID, runID, ref); err != nil {
		return "", err
	}
	if s.payloads == nil {
		return "", globalsearch.Errorf(globalsearch.KindInternal, "%s: its text is in the payload bucket, which this store has no access to", what)
	}
	data, err := s.payloads.get(ctx, ref.Key, etag, ref.Offset, ref.Length)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return string(data), nil
}

// readTexts fills in the content of batches from the texts their items
// name: each object once, whole (a save writes one) and checked against
// its digest, then sliced.
func (s *Runs) readTexts(ctx context.Context, what, queryID, runID string, items []runItem, batches []globalsearch.Batch) error {
	objects := map[string][]byte{}
	for _, it := range items {
		if it.Text == nil || it.Batch == nil || it.Batch.RunID != runID || it.Batch.Index < 0 || it.Batch.Index >= len(batches) {
			continue
		}
		ref := it.Text
		if err := checkRef(what, queryID, runID, ref); err != nil {
			return err
		}
		if s.payloads == nil {
			return globalsearch.Errorf(globalsearch.KindInternal, "%s: its texts are in the payload bucket, which this store has no access to", what)
		}
		body, ok := objects[ref.Key]
		if !ok {
			var err error
			if body, err = s.payloads.getWhole(ctx, ref.Key, ""); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			objects[ref.Key] = body
		}
		if ref.Offset+ref.Length > int64(len(body)) {
			return fmt.Errorf("%s: batch %d's text [%d,+%d) lies past the end of %s (%d bytes)", what, it.Batch.Index, ref.Offset, ref.Length, ref.Key, len(body))
		}
		batches[it.Batch.Index].Content = string(body[ref.Offset : ref.Offset+ref.Length])
	}
	return nil
}

// PutMapItems implements workflow.MapItems: the batch indexes of a run as
// one JSON array, the input a Distributed Map's ItemReader takes. The key
// names the count, so a retried prepare of the same run writes the same
// object again, never another list under the same name.
func (p *Payloads) PutMapItems(ctx context.Context, queryID, runID string, batches int) (string, error) {
	if err := requireQueryID(queryID); err != nil {
		return "", err
	}
	if runID == "" || strings.Contains(runID, "/") || batches < 0 || batches > maxBatchIndex+1 {
		return "", globalsearch.Errorf(globalsearch.KindInternal, "map items of query %s: run %q with %d batches", queryID, runID, batches)
	}
	body := make([]byte, 0, 7*batches+2)
	body = append(body, '[')
	for i := range batches {
		if i > 0 {
			body = append(body, ',')
		}
		body = strconv.AppendInt(body, int64(i), 10)
	}
	body = append(body, ']')
	key := runPrefix(queryID, runID) + "map-items-" + strconv.Itoa(batches) + ".json"
	if _, err := p.put(ctx, key, "application/json", parts{string(body)}); err != nil {
		return "", fmt.Errorf("map items of query %s: %w", queryID, err)
	}
	return key, nil
}

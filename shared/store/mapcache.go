package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Map-answer cache table (docs/contract.md#map-cache): partition key `key` (S), the
// hex SHA-256 globalsearch.MapCacheKey returns (any other key is refused,
// as the directory cache refuses it), with `answer`, `usefulness`,
// `communityIds` (the ids the answer's citations name) and `expiresAt`,
// the table's TTL attribute. It is a table of its own, not items in the
// runs table, so that IAM can give it to the map function alone: no other
// function reads what a cached answer says, and no run's data outlives the
// runs TTL inside it.

type cacheKey struct {
	Key string `json:"key"`
}

type cacheItem struct {
	Key          string   `json:"key"`
	Answer       string   `json:"answer"`
	Usefulness   float64  `json:"usefulness"`
	CommunityIDs []string `json:"communityIds,omitempty"`
	ExpiresAt    int64    `json:"expiresAt"`
}

// CachedMapAnswer implements globalsearch.MapCache. An item past its
// expiresAt reads as absent: DynamoDB deletes expired items lazily. An
// eventually consistent read is enough: a miss only costs a model call.
func (s *Cache) CachedMapAnswer(ctx context.Context, key string) (globalsearch.CachedAnswer, bool, error) {
	if err := globalsearch.CheckMapCacheKey(key); err != nil {
		return globalsearch.CachedAnswer{}, false, err
	}
	k, err := attributevalue.MarshalMapWithOptions(cacheKey{key}, jsonTags)
	if err != nil {
		return globalsearch.CachedAnswer{}, false, fmt.Errorf("encode map cache key: %w", err)
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: k})
	if err != nil {
		return globalsearch.CachedAnswer{}, false, wrap(err, "read map cache")
	}
	if out.Item == nil {
		return globalsearch.CachedAnswer{}, false, nil
	}
	var it cacheItem
	if err := attributevalue.UnmarshalMapWithOptions(out.Item, &it, jsonTagsDec); err != nil {
		return globalsearch.CachedAnswer{}, false, fmt.Errorf("decode map cache item: %w", err)
	}
	if it.ExpiresAt <= s.now().Unix() {
		return globalsearch.CachedAnswer{}, false, nil
	}
	return globalsearch.CachedAnswer{Answer: it.Answer, Usefulness: it.Usefulness, CommunityIDs: it.CommunityIDs}, true, nil
}

// CacheMapAnswer implements globalsearch.MapCache.
func (s *Cache) CacheMapAnswer(ctx context.Context, key string, a globalsearch.CachedAnswer) error {
	if err := globalsearch.CheckMapCacheKey(key); err != nil {
		return err
	}
	m, err := attributevalue.MarshalMapWithOptions(cacheItem{
		Key: key, Answer: a.Answer, Usefulness: a.Usefulness, CommunityIDs: a.CommunityIDs, ExpiresAt: s.now().Add(s.cacheTTL).Unix(),
	}, jsonTags)
	if err != nil {
		return fmt.Errorf("encode map cache item: %w", err)
	}
	if err := checkSize("map cache item", m); err != nil {
		return err
	}
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: m}); err != nil {
		return wrap(err, "write map cache")
	}
	return nil
}

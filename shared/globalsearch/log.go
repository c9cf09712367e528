package globalsearch

import (
	"log/slog"
	"time"
)

const (
	slogInfo  = slog.LevelInfo
	slogError = slog.LevelError
)

// stepAttrs are the fixed keys of the one log line each step writes
// (queryId, step, elapsedMs) followed by the step's own key-value pairs.
func stepAttrs(queryID, step string, start time.Time, kv ...any) []slog.Attr {
	attrs := []slog.Attr{
		slog.String("queryId", queryID),
		slog.String("step", step),
		slog.Int64("elapsedMs", time.Since(start).Milliseconds()),
	}
	for i := 0; i+1 < len(kv); i += 2 {
		attrs = append(attrs, slog.Any(kv[i].(string), kv[i+1]))
	}
	return attrs
}

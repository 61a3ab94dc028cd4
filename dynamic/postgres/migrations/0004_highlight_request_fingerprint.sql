-- What a highlight request asked for (dynamic.HighlightRequest.Fingerprint),
-- so that a request id reused for a different highlight is refused instead
-- of replaying the first answer. NULL on rows written before this column.
ALTER TABLE highlight_requests ADD COLUMN fingerprint bytea;

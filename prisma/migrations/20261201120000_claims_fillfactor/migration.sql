-- Room on every claim page for its rows' payload clears (docs/decisions/0008-paced-row-purge.md).
-- The purge's `UPDATE … SET payload = NULL` writes a new version of the row; on a full page that
-- version goes elsewhere and gets an entry in each of the table's six indexes (two ordered by
-- tenant, so a day's clears touch nearly every leaf page: ~11 KB of WAL per cleared row at 10M
-- rows, measured). With a quarter of each page free, the shorter payload-less versions of a
-- page's rows fit beside them: a HOT update, no index entries. Applies to pages written from now
-- on (a metadata change, no rewrite, no long lock).
ALTER TABLE "processed_events" SET (fillfactor = 75);

-- 0009: the user's word on what a message is.

-- 1 when the user pinned the entry as a standing instruction (/pin D12),
-- -1 when the user unpinned it (/unpin D7), 0 while the classifier's kind
-- stands. The classifier's kind stays in kind, for /rules to show.
ALTER TABLE decisions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;

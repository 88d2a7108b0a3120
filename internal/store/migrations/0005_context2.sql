-- 0005: the context engine's second design.

-- What kind of user entry a decision is: 'instruction' (a rule,
-- constraint or preference that stands until the user changes it; never
-- cut) or 'request' (an ordinary request: the newest few are shown
-- verbatim, older ones as one line). '' for the model's entries and for
-- entries made before kinds existed (judged again when read).
ALTER TABLE decisions ADD COLUMN kind TEXT NOT NULL DEFAULT '';

-- The prefix (system text and tool table, JSON) a segment was first sent
-- with, so that a later process sends the same bytes.
ALTER TABLE segments ADD COLUMN prefix TEXT NOT NULL DEFAULT '';

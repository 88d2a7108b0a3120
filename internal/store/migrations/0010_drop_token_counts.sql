-- 0010: token counts are no longer kept. The vocabulary is read in
-- place, so a resumed session counts its history again for less than the
-- lookup of kept counts saved (docs/architecture.md, Cost per turn).
DROP TABLE token_counts;

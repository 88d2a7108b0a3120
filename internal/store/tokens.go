package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// TokenCounts returns the kept token counts of texts by their hashes
// (as the counter computes them), for one tokenizer. It reads on the
// writer (see the package doc): a resumed session asks once, at its
// first request.
func (s *Store) TokenCounts(ctx context.Context, tokenizer string, hashes []uint64) (map[uint64]int, error) {
	out := make(map[uint64]int, len(hashes))
	if len(hashes) == 0 {
		return out, nil
	}
	b := make([]byte, 0, len(hashes)*21+2)
	b = append(b, '[')
	for i, h := range hashes {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(h), 10) // SQLite integers are signed
	}
	b = append(b, ']')
	// One row of "hash tokens" pairs: scanning a row a count through
	// database/sql cost more than the lookup.
	var list sql.NullString
	if err := s.w.QueryRowContext(ctx, qTokenCounts, tokenizer, string(b)).Scan(&list); err != nil {
		return nil, wrap("token counts", err)
	}
	f := list.String
	for f != "" {
		var h, n string
		h, f, _ = strings.Cut(f, " ")
		n, f, _ = strings.Cut(f, " ")
		hv, err1 := strconv.ParseInt(h, 10, 64)
		nv, err2 := strconv.Atoi(n)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("store: token counts: bad pair %q %q", h, n)
		}
		out[uint64(hv)] = nv
	}
	return out, nil
}

// PutTokenCounts keeps token counts by text hash, in one transaction.
func (s *Store) PutTokenCounts(ctx context.Context, tokenizer string, counts map[uint64]int) error {
	if len(counts) == 0 {
		return nil
	}
	return s.inTx(ctx, "keep token counts", func(tx *txn) error {
		st, err := tx.PrepareContext(ctx, qPutTokenCount)
		if err != nil {
			return err
		}
		defer st.Close()
		for h, n := range counts {
			if _, err := st.ExecContext(ctx, tokenizer, int64(h), n); err != nil {
				return err
			}
		}
		return nil
	})
}

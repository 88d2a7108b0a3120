package store

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Tool outputs are stored once per session (the outputs table): the tool
// call, the tool message, the page and the tool.finished event refer to
// the row, and the store puts the text back wherever it is read.

// packMin is the shortest text worth deflating: below it the saving is a
// few bytes.
const packMin = 512

// execer is what *sql.DB and *sql.Tx have in common.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// putOutput stores text as an output of the session, unless the session
// already holds the same text, and returns the row's id (0 for an empty
// text, which is never stored). A new output is indexed for Search.
func putOutput(ctx context.Context, tx execer, sessionID, text string, now int64) (int64, error) {
	id, sum, err := outputID(ctx, tx, sessionID, text)
	if id != 0 || err != nil || text == "" {
		return id, err
	}
	var plain, packed any = text, nil
	if p := pack(text); p != nil {
		plain, packed = nil, p
	}
	if err := tx.QueryRowContext(ctx, qPutOutput, sessionID, sum[:], len(text), plain, packed, now).Scan(&id); err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, qIndexOutput, id, searchText(text), sessionID)
	return id, err
}

// searchText is what Search finds an output by: its text without the
// line numbers file_read puts before each line ("  42\t"), which mean
// nothing to a keyword search and were a third of the index of a
// session that reads files.
func searchText(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if n := len(t) - len(strings.TrimLeft(t, "0123456789")); n > 0 && n < len(t) && t[n] == '\t' {
			lines[i] = t[n+1:]
		}
	}
	return strings.Join(lines, "")
}

// outputID returns the id of the session's output whose text is text (0
// when there is none) and text's hash.
func outputID(ctx context.Context, tx execer, sessionID, text string) (int64, [32]byte, error) {
	if text == "" {
		return 0, [32]byte{}, nil
	}
	sum := sha256.Sum256([]byte(text))
	var id int64
	err := tx.QueryRowContext(ctx, qOutputByHash, sessionID, sum[:]).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, sum, nil
	}
	return id, sum, err
}

var flateWriters = sync.Pool{New: func() any {
	// Level 5: as small as 6 (the default) on sources and logs, a third
	// faster.
	w, _ := flate.NewWriter(nil, 5)
	return w
}}

// pack deflates text, or returns nil when that saves less than a tenth.
func pack(text string) []byte {
	if len(text) < packMin {
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(len(text) / 3)
	w := flateWriters.Get().(*flate.Writer)
	defer flateWriters.Put(w)
	w.Reset(&buf)
	if _, err := io.WriteString(w, text); err != nil {
		return nil
	}
	if err := w.Close(); err != nil {
		return nil
	}
	if buf.Len() > len(text)*9/10 {
		return nil
	}
	return buf.Bytes()
}

var flateReaders = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// unpack inflates the first n bytes of a packed text of size bytes (n < 0:
// all of it).
func unpack(packed []byte, size, n int) (string, error) {
	if n < 0 || n > size {
		n = size
	}
	r := flateReaders.Get().(io.ReadCloser)
	defer flateReaders.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(packed), nil); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(n)
	if _, err := io.CopyN(&b, r, int64(n)); err != nil {
		return "", fmt.Errorf("inflate output: %w", err)
	}
	return b.String(), nil
}

// stored is an outputs row's size, text and packed columns as scanned:
// all NULL where a LEFT JOIN found no output.
type stored struct {
	Size   int
	Plain  sql.NullString
	Packed []byte
}

// textOr is the output's whole text, or orElse when there is none.
func (o stored) textOr(orElse string) (string, error) {
	switch {
	case o.Plain.Valid:
		return o.Plain.String, nil
	case o.Packed == nil:
		return orElse, nil
	}
	return unpack(o.Packed, o.Size, -1)
}

// outputTexts returns the texts of the outputs with the given ids.
func outputTexts(ctx context.Context, q execer, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, qOutputsByID, idList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var o stored
		if err := rows.Scan(&id, &o.Size, &o.Plain, &o.Packed); err != nil {
			return nil, err
		}
		if out[id], err = o.textOr(""); err != nil {
			return nil, fmt.Errorf("output %d: %w", id, err)
		}
	}
	return out, rows.Err()
}

// idList is ids as a JSON array, for json_each.
func idList(ids []int64) string {
	b, _ := json.Marshal(ids) // a slice of numbers always encodes
	return string(b)
}

// parseIDList is the inverse of idList.
func parseIDList(s string) ([]int64, error) {
	var ids []int64
	if err := json.Unmarshal([]byte(s), &ids); err != nil {
		return nil, fmt.Errorf("not a list of ids: %w", err)
	}
	return ids, nil
}

// Outputs returns the texts of outputs by id (the ids StoredMessage
// gives for the results MessagesEliding left out).
func (s *Store) Outputs(ctx context.Context, ids []int64) (map[int64]string, error) {
	out, err := outputTexts(ctx, s.w, ids)
	return out, wrap("outputs", err)
}

// OutputPlaceholder stands, in an event's Data, where the output it
// carries goes: AppendEvent keeps the output by reference to the outputs
// table, and Events puts its first OutputMax bytes back (as Preview cuts
// them). It holds NUL bytes, which no JSON encoder leaves unescaped, so
// it is found only where it was put.
const OutputPlaceholder = "\x00godwit:output\x00"

// placeholderJSON is OutputPlaceholder as encoding/json writes it.
var placeholderJSON = []byte(`"\u0000godwit:output\u0000"`)

// Preview is text cut to its first max bytes (at a rune boundary) and the
// length of the whole, as events carry outputs.
func Preview(text string, max int) string {
	if len(text) <= max {
		return text
	}
	return head(text, max) + previewTail(len(text))
}

// head is text's first max bytes or fewer, ending at a rune boundary;
// text must be longer than max.
func head(text string, max int) string {
	n := max
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}

func previewTail(size int) string { return "… [" + strconv.Itoa(size) + " bytes]" }

// splice puts the preview of an output back where the placeholder is.
func splice(data []byte, preview string) ([]byte, error) {
	i := bytes.Index(data, placeholderJSON)
	if i < 0 {
		return data, nil
	}
	q, err := json.Marshal(preview)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(data)-len(placeholderJSON)+len(q))
	out = append(out, data[:i]...)
	out = append(out, q...)
	return append(out, data[i+len(placeholderJSON):]...), nil
}

// preview is the output's preview, inflating only what it shows; an
// empty output has no row, and its preview is "".
func (o stored) preview(max int) (string, error) {
	switch {
	case o.Plain.Valid:
		return Preview(o.Plain.String, max), nil
	case o.Packed == nil:
		return "", nil
	case o.Size <= max:
		return unpack(o.Packed, o.Size, -1)
	}
	// One byte more than shown, to cut at a rune boundary as Preview does.
	h, err := unpack(o.Packed, o.Size, max+1)
	if err != nil {
		return "", err
	}
	return head(h, max) + previewTail(o.Size), nil
}

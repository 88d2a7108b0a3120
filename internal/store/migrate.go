package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/godwit/godwit/llm"
)

// goSteps are the parts of migrations that SQL alone cannot do, by the
// migration's name (its file name without the number and .sql, so that
// renumbering a file keeps its step). Each runs after the file's SQL, in
// its transaction, and reports whether it freed enough of the file that
// the store should VACUUM once the migrations are done.
var goSteps = map[string]func(ctx context.Context, tx *sql.Tx) (vacuum bool, err error){
	"outputs": moveOutputs,
}

// migrationBatch bounds the rows a step holds in memory at once.
const migrationBatch = 256

// eventPreview is the preview length tool.finished events were written
// with (agent's outputPreview) before outputs were kept by reference.
const eventPreview = 4 << 10

// moveOutputs moves each tool output to the outputs table, once per
// session: tool_calls.output, the contents of tool messages' results
// (SHA-256 needs Go), pages that hold an output, and the previews of
// tool.finished events, which are re-indexed for Search as they go.
func moveOutputs(ctx context.Context, tx *sql.Tx) (bool, error) {
	moved := 0
	type call struct {
		id, at     int64
		sess, text string
	}
	if err := batches(ctx, tx, `SELECT id, session_id, output, started_at FROM tool_calls
WHERE output <> '' AND output_id IS NULL AND id > ? ORDER BY id LIMIT ?`,
		func(r *sql.Rows) (int64, call, error) {
			var c call
			err := r.Scan(&c.id, &c.sess, &c.text, &c.at)
			return c.id, c, err
		},
		func(c call) error {
			moved++
			out, err := putOutput(ctx, tx, c.sess, c.text, c.at)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `UPDATE tool_calls SET output = '', output_id = ? WHERE id = ?`, out, c.id)
			return err
		}); err != nil {
		return false, fmt.Errorf("tool calls: %w", err)
	}

	type msg struct {
		id, at     int64
		sess, body string
	}
	if err := batches(ctx, tx, `SELECT id, session_id, body, created_at FROM messages
WHERE outputs IS NULL AND instr(body, '"tool_result"') > 0 AND id > ? ORDER BY id LIMIT ?`,
		func(r *sql.Rows) (int64, msg, error) {
			var m msg
			err := r.Scan(&m.id, &m.sess, &m.body, &m.at)
			return m.id, m, err
		},
		func(m msg) error {
			var lm llm.Message
			if err := json.Unmarshal([]byte(m.body), &lm); err != nil {
				return nil // a body this godwit cannot read stays as it is
			}
			body, contents := splitResults(lm)
			if contents == nil {
				return nil
			}
			ids := make([]int64, len(contents))
			for i, c := range contents {
				var err error
				if ids[i], err = putOutput(ctx, tx, m.sess, c, m.at); err != nil {
					return err
				}
			}
			b, err := json.Marshal(body)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE messages SET body = ?, outputs = ? WHERE id = ?`, string(b), idList(ids), m.id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM search_fts WHERE rowid = ? * 4 + 2`, m.id); err != nil {
				return err
			}
			if text := messageText(body); text != "" {
				_, err = tx.ExecContext(ctx, qIndexMessage, m.id, text, m.sess)
			}
			return err
		}); err != nil {
		return false, fmt.Errorf("messages: %w", err)
	}

	type page struct {
		id         int64
		sess, text string
	}
	if err := batches(ctx, tx, `SELECT id, session_id, text FROM pages
WHERE output_id IS NULL AND text <> '' AND id > ? ORDER BY id LIMIT ?`,
		func(r *sql.Rows) (int64, page, error) {
			var p page
			err := r.Scan(&p.id, &p.sess, &p.text)
			return p.id, p, err
		},
		func(p page) error {
			out, err := outputID(ctx, tx, p.sess, p.text)
			if err != nil || out == 0 {
				return err
			}
			// The update trigger re-indexes the page without the text.
			_, err = tx.ExecContext(ctx, `UPDATE pages SET text = '', output_id = ? WHERE id = ?`, out, p.id)
			return err
		}); err != nil {
		return false, fmt.Errorf("pages: %w", err)
	}

	type event struct {
		id, turn   int64
		sess, data string
	}
	if err := batches(ctx, tx, `SELECT id, session_id, coalesce(turn_id, 0), data FROM events
WHERE type = 'tool.finished' AND output_id IS NULL AND data IS NOT NULL AND instr(data, '"output":') > 0 AND id > ? ORDER BY id LIMIT ?`,
		func(r *sql.Rows) (int64, event, error) {
			var e event
			err := r.Scan(&e.id, &e.sess, &e.turn, &e.data)
			return e.id, e, err
		},
		func(e event) error { return refEventOutput(ctx, tx, e.id, e.turn, e.sess, e.data) }); err != nil {
		return false, fmt.Errorf("events: %w", err)
	}
	// The copies left free pages: about three quarters of the file.
	return moved > 0, nil
}

// refEventOutput replaces a tool.finished event's output preview with
// the placeholder when it is the preview of its tool call's output.
func refEventOutput(ctx context.Context, tx *sql.Tx, id, turn int64, sess, data string) error {
	var ev struct {
		Tool *struct {
			CallID string `json:"call_id"`
			Output string `json:"output"`
		} `json:"tool"`
	}
	if json.Unmarshal([]byte(data), &ev) != nil || ev.Tool == nil || ev.Tool.Output == "" {
		return nil
	}
	var out int64
	err := tx.QueryRowContext(ctx, `SELECT output_id FROM tool_calls
WHERE session_id = ? AND coalesce(turn_id, 0) = ? AND call_id = ? AND output_id IS NOT NULL ORDER BY id DESC LIMIT 1`,
		sess, turn, ev.Tool.CallID).Scan(&out)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	texts, err := outputTexts(ctx, tx, []int64{out})
	if err != nil {
		return err
	}
	if Preview(texts[out], eventPreview) != ev.Tool.Output {
		return nil // cut another way (inside a character): kept as it is
	}
	q, err := json.Marshal(ev.Tool.Output)
	if err != nil {
		return err
	}
	old := append([]byte(`"output":`), q...)
	if bytes.Count([]byte(data), old) != 1 {
		return nil
	}
	d := bytes.Replace([]byte(data), old, append([]byte(`"output":`), placeholderJSON...), 1)
	_, err = tx.ExecContext(ctx, `UPDATE events SET data = ?, output_id = ?, output_max = ? WHERE id = ?`, string(d), out, eventPreview, id)
	return err
}

// batches runs query (its parameters: the last key seen and a limit) in
// batches of migrationBatch rows, scanning each row and then doing each,
// so that no cursor is open while the rows are written.
func batches[T any](ctx context.Context, tx *sql.Tx, query string, scan func(*sql.Rows) (int64, T, error), do func(T) error) error {
	var last int64
	for {
		rows, err := tx.QueryContext(ctx, query, last, migrationBatch)
		if err != nil {
			return err
		}
		var batch []T
		for rows.Next() {
			k, v, err := scan(rows)
			if err != nil {
				rows.Close()
				return err
			}
			last = k
			batch = append(batch, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, v := range batch {
			if err := do(v); err != nil {
				return err
			}
		}
		if len(batch) < migrationBatch {
			return nil
		}
	}
}

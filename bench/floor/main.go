// Command floor is the lower bound bench/startup.sh compares godwit with:
// a program that links only godwit's required heavy dependencies
// (modernc SQLite, cobra) and does the least a
// one-shot run must: open a godwit database, make 14 small writes, one
// transaction each (a run records its session, segment, turn, messages,
// ledger, model call and events), send one streamed request and read the
// answer, close.
//
//	floor DB URL
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	_ "github.com/spf13/cobra"
	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: floor DB URL")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, path, url string) error {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	for i := range 14 {
		if _, err := db.ExecContext(ctx, "INSERT INTO eval_verdicts(a, b, passed, created_at) VALUES('floor', 'floor', 1, ?)", i); err != nil {
			return err
		}
	}
	body := `{"model":"bench","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "PRAGMA analysis_limit=200; PRAGMA optimize")
	return err
}

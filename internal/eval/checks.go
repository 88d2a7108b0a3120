package eval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/untrusted"
	"github.com/godwit/godwit/llm"

	"github.com/godwit/godwit/internal/regfile"
)

// CommandTimeout bounds one check command.
const CommandTimeout = 5 * time.Minute

type checkInput struct {
	ws     string
	answer string
	last   *llm.Request
	before map[string][]byte
	run    *RunResult
}

// check returns a line for every check and limit that failed.
func (t *Task) check(ctx context.Context, in checkInput) []string {
	c := t.Checks
	var fails []string
	for _, cmd := range c.Commands {
		if out, err := shell(ctx, in.ws, cmd, CommandTimeout); err != nil {
			fails = append(fails, fmt.Sprintf("command `%s`: %v\n%s", cmd, err, tail(out, 600)))
		}
	}
	fails = append(fails, textFailures("the final answer", c.Answer, in.answer)...)
	if !c.Request.empty() {
		if in.last == nil {
			fails = append(fails, "no request reached the model")
		} else {
			fails = append(fails, requestFailures(c.Request, *in.last)...)
		}
	}
	for _, fc := range c.Files {
		fails = append(fails, fileFailures(fc, in.ws, in.before)...)
	}
	if c.MinResets > 0 && in.run.Resets < c.MinResets {
		fails = append(fails, fmt.Sprintf("%d segment resets; the task needs at least %d", in.run.Resets, c.MinResets))
	}
	if lim := t.Limits.RequestTokens; lim > 0 && in.run.MaxRequestTokens > lim {
		fails = append(fails, fmt.Sprintf("the largest request was %d tokens; the limit is %d", in.run.MaxRequestTokens, lim))
	}
	return fails
}

func textFailures(what string, c TextCheck, s string) []string {
	var fails []string
	for _, w := range c.Contains {
		if !strings.Contains(s, w) {
			fails = append(fails, fmt.Sprintf("%s lacks %q", what, w))
		}
	}
	for _, w := range c.NotContains {
		if strings.Contains(s, w) {
			fails = append(fails, fmt.Sprintf("%s contains %q", what, w))
		}
	}
	for _, r := range c.Regexp {
		if !regexp.MustCompile(r).MatchString(s) { // compiled once at load: valid
			fails = append(fails, fmt.Sprintf("%s does not match /%s/", what, r))
		}
	}
	return fails
}

func requestFailures(c RequestCheck, req llm.Request) []string {
	fails := textFailures("the last request", c.TextCheck, requestText(req))
	entries := ledgerOf(req)
	for _, want := range c.Active {
		if !slices.ContainsFunc(entries, func(e ledgerEntry) bool { return e.Text == want }) {
			fails = append(fails, fmt.Sprintf("the last request's ledger has no entry standing verbatim: %q", want))
		}
	}
	userEntry := func(turn int) int {
		return slices.IndexFunc(entries, func(e ledgerEntry) bool { return e.User && e.Turn == turn })
	}
	for _, s := range c.Superseded {
		i, j := userEntry(s.Turn), userEntry(s.ByTurn)
		if i < 0 || j < 0 {
			fails = append(fails, fmt.Sprintf("the last request's ledger lacks the user's entries of turns %d and %d", s.Turn, s.ByTurn))
			continue
		}
		if old, by := entries[i], entries[j]; old.SupersededBy != by.Seq {
			fails = append(fails, fmt.Sprintf("the user's entry of turn %d (%s) is not marked superseded by turn %d's (%s)", s.Turn, old.Ref(), s.ByTurn, by.Ref()))
		}
	}
	for _, tc := range c.Topics {
		var group []string
		for _, e := range entries {
			if e.Topic == tc.Name {
				group = append(group, e.Text)
			}
		}
		if len(group) == 0 {
			fails = append(fails, fmt.Sprintf("the last request's ledger has no group \"Topic %s:\"", tc.Name))
			continue
		}
		fails = append(fails, textFailures("topic "+tc.Name, tc.TextCheck, strings.Join(group, "\n"))...)
	}
	for _, text := range c.Untrusted {
		fails = append(fails, untrustedFailures(req, text)...)
	}
	return fails
}

func untrustedFailures(req llm.Request, text string) []string {
	found := false
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			r := p.ToolResult
			if r == nil || !strings.Contains(r.Content, text) {
				continue
			}
			found = true
			if !strings.HasPrefix(r.Content, untrusted.Note) {
				return []string{fmt.Sprintf("a tool output holding %q reached the model without the untrusted-data note", text)}
			}
		}
	}
	if !found {
		return []string{fmt.Sprintf("no tool output in the last request holds %q", text)}
	}
	return nil
}

func fileFailures(fc FileCheck, ws string, before map[string][]byte) []string {
	data, err := readChecked(filepath.Join(ws, filepath.FromSlash(fc.Path)))
	switch {
	case fc.Absent && err == nil:
		return []string{fmt.Sprintf("file %s exists; it must not", fc.Path)}
	case fc.Absent && os.IsNotExist(err):
		return nil
	case err != nil:
		return []string{fmt.Sprintf("file %s: %v", fc.Path, err)}
	}
	var fails []string
	if fc.Unchanged && !bytes.Equal(data, before[fc.Path]) {
		fails = append(fails, fmt.Sprintf("file %s changed; it must stay as setup left it", fc.Path))
	}
	return append(fails, textFailures("file "+fc.Path, fc.TextCheck, string(data))...)
}

// maxChecked bounds a checked file: far more than any check needs.
const maxChecked = 64 << 20

// readChecked reads a file a check judges, which the model under test
// may have made anything: not through a link in its last element (the
// check is about the file the model wrote, not one it pointed at), and
// not a FIFO (whose open held the eval run for good) or a link to
// /dev/zero (which never ended).
func readChecked(p string) ([]byte, error) { return regfile.ReadNoFollow(p, maxChecked) }

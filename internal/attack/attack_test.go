//go:build linux

package attack

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

var (
	reportFlag = flag.Bool("attack.report", false, "print the table of attacks tried, held and broke, per class and mode, and the broken ones (ATTACK_REPORT=FILE writes it to FILE)")
	updateFlag = flag.Bool("attack.update", false, "rewrite the broken: marks of testdata/attacks from this run")
)

// binary is the godwit built once for the whole suite.
var binary string

// parallel is how many runs go at once unless -test.parallel says: most
// of a run is waiting (for a model reply, a command, a heartbeat), so
// more than the two cores. Every test that runs the binary is parallel,
// top level too, so the suites share one pool of that many runs instead
// of going one after another, each waiting for its slowest run.
const parallel = "8"

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", parallel)
	}
	if testing.Short() {
		os.Exit(m.Run()) // TestAttacks skips itself
	}
	dir, err := os.MkdirTemp("", "godwit-attack-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "godwit")
	if prebuilt := os.Getenv("ATTACK_GODWIT"); prebuilt != "" {
		binary = prebuilt // a binary built from this tree, to skip the build
	} else {
		// From the build cache when cmd/godwit's tests linked it (see there).
		build := exec.Command("go", "run", "-exec", "cp", "../../cmd/godwit", binary)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			panic("building godwit: " + err.Error())
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	if templateBase != "" {
		os.RemoveAll(templateBase)
	}
	if *reportFlag {
		results.report(os.Stdout)
	}
	if f := os.Getenv("ATTACK_REPORT"); f != "" {
		if err := writeReport(f); err != nil {
			fmt.Fprintln(os.Stderr, "ATTACK_REPORT:", err)
			code = 1
		}
	}
	if *updateFlag {
		if err := results.update(); err != nil {
			fmt.Fprintln(os.Stderr, "attack.update:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// status of one attack in one mode.
type status int

const (
	held status = iota
	broke
	failed // the run did not test what it meant to
)

type result struct {
	a      *Attack
	mode   string
	status status
	why    []string
}

// ledger collects every run's result for the report and -attack.update.
type ledger struct {
	mu      sync.Mutex
	attacks []*Attack
	runs    []result
}

var results = &ledger{}

func (l *ledger) add(r result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs = append(l.runs, r)
}

// TestAttacks runs every attack in each of its modes, plus its control.
func TestAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("the attack suite runs the real binary hundreds of times; skipped with -short")
	}
	t.Parallel()
	attacks, err := loadAttacks("testdata/attacks")
	if err != nil {
		t.Fatal(err)
	}
	results.attacks = attacks
	for _, a := range attacks {
		t.Run(a.ID(), func(t *testing.T) {
			t.Parallel()
			for _, prog := range a.Needs {
				if _, err := exec.LookPath(prog); err != nil {
					t.Skipf("needs %s, which is not installed", prog)
				}
			}
			if a.control() {
				t.Run("control", func(t *testing.T) { runControl(t, a) })
			}
			for _, mode := range a.Modes {
				t.Run(mode, func(t *testing.T) { runAttack(t, a, mode) })
			}
		})
	}
}

// runControl replays the payload without godwit; it must break.
func runControl(t *testing.T, a *Attack) {
	s := newScene(t, a, "control")
	defer reap(s)
	ev := replay(t, s, expanded(s, a))
	v := judge(s, a, "control", ev)
	if len(v.broke) == 0 {
		t.Errorf("%s: the payload changes nothing even without godwit, so the attack proves nothing; fix it (%s:%d)", a.ID(), a.file, a.line)
	}
}

// runAttack runs a in mode against the real binary and judges the run.
func runAttack(t *testing.T, a *Attack, mode string) {
	s := newScene(t, a, mode)
	defer reap(s)
	m := newModel(t)
	s.port = m.port()
	ea := expanded(s, a)
	m.script(ea.calls())
	s.writeConfig(t, m)
	var out outcome
	switch {
	case a.Driver == "acp":
		out = runACP(t, s, ea, mode)
	case a.Signal != nil:
		out = runGodwit(t, s, ea, mode, nil, a.Signal)
		if a.Signal.Resume {
			next := runGodwit(t, s, ea, mode, []string{"--session", "last"}, nil)
			out.notes = append(out.notes, next.notes...)
			out.asks += next.asks
		}
	default:
		out = runGodwit(t, s, ea, mode, nil, nil)
		if len(ea.Again) > 0 {
			m.then(toCalls(ea.Again))
			next := runGodwit(t, s, ea, mode, []string{"--session", "last"}, nil)
			out.notes = append(out.notes, next.notes...)
			out.asks += next.asks
			out.stderr += next.stderr
		}
	}
	v := judge(s, a, mode, evidence{seen: m.seen(), out: out, served: m.served()})
	r := result{a: a, mode: mode, why: v.broke}
	switch {
	case len(v.errs) > 0:
		r.status, r.why = failed, v.errs
		t.Errorf("%s in %s mode did not run as meant: %s", a.ID(), mode, strings.Join(v.errs, "; "))
	case len(v.broke) > 0:
		r.status = broke
		if a.broken(mode) {
			t.Logf("known broken in %s mode: %s", mode, strings.Join(v.broke, "; "))
		} else {
			mismatch(t, "%s BROKE in %s mode: %s\n(why: %s; %s:%d)", a.ID(), mode, strings.Join(v.broke, "; "), a.Why, a.file, a.line)
		}
	default:
		if a.broken(mode) {
			mismatch(t, "%s HOLDS now in %s mode: remove %s from its broken list (%s:%d)", a.ID(), mode, mode, a.file, a.line)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("godwit exit %d, %d questions; stderr:\n%s", out.code, out.asks, tail(out.stderr, 1500))
	}
	if testing.Verbose() {
		t.Logf("what the tools returned to the model:\n%s", toolResults(m.seen()))
	}
	results.add(r)
}

// mismatch reports a result that differs from the attack's broken
// marks: a failure, except under -attack.update, which rewrites them.
func mismatch(t *testing.T, format string, args ...any) {
	t.Helper()
	if *updateFlag {
		t.Logf("mark to rewrite: "+format, args...)
		return
	}
	t.Errorf(format, args...)
}

// expanded is a with its calls' placeholders filled for scene s.
func expanded(s *scene, a *Attack) *Attack {
	c := *a
	c.Calls, c.Again = expandCalls(s, a.Calls), expandCalls(s, a.Again)
	return &c
}

func expandCalls(s *scene, list []map[string]map[string]any) []map[string]map[string]any {
	var out []map[string]map[string]any
	for _, m := range list {
		n := map[string]map[string]any{}
		for tool, args := range m {
			n[tool] = expandAny(s, args).(map[string]any)
		}
		out = append(out, n)
	}
	return out
}

func expandAny(s *scene, v any) any {
	switch x := v.(type) {
	case string:
		return s.expand(x)
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = expandAny(s, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = expandAny(s, e)
		}
		return out
	}
	return v
}

// report prints tried/held/broke per class and mode, then each broken
// run with its first reason.
func (l *ledger) report(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	type cell struct{ tried, held, broke, failed int }
	cells := map[[2]string]*cell{}
	get := func(class, mode string) *cell {
		k := [2]string{class, mode}
		if cells[k] == nil {
			cells[k] = &cell{}
		}
		return cells[k]
	}
	for _, r := range l.runs {
		for _, c := range []*cell{get(fmt.Sprint(r.a.Class), r.mode), get(fmt.Sprint(r.a.Class), "all"),
			get("all", r.mode), get("all", "all")} {
			c.tried++
			switch r.status {
			case held:
				c.held++
			case broke:
				c.broke++
			default:
				c.failed++
			}
		}
	}
	attacks := map[string]bool{}
	for _, r := range l.runs {
		attacks[r.a.ID()] = true
	}
	fmt.Fprintf(w, "\nAttack suite: %d attacks, %d runs (tried/held/broke; runs that errored are counted apart)\n\n", len(attacks), len(l.runs))
	modes := append(slices.Clone(allModes), "all")
	fmt.Fprintf(w, "| class | %s |\n|---|%s\n", strings.Join(modes, " | "), strings.Repeat("---|", len(modes)))
	for i := range append(slices.Clone(classNames), "all") {
		class, name := fmt.Sprint(i), ""
		if i < len(classNames) {
			name = classNames[i]
		} else {
			class, name = "all", "all classes"
		}
		row := []string{fmt.Sprintf("%s %s", class, name)}
		for _, m := range modes {
			c := cells[[2]string{class, m}]
			switch {
			case c == nil:
				row = append(row, "")
			case c.failed > 0:
				row = append(row, fmt.Sprintf("%d/%d/%d (+%d err)", c.tried, c.held, c.broke, c.failed))
			default:
				row = append(row, fmt.Sprintf("%d/%d/%d", c.tried, c.held, c.broke))
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	var lines []string
	for _, r := range l.runs {
		if r.status == held {
			continue
		}
		tag := "broke"
		if r.status == failed {
			tag = "ERROR"
		}
		first := ""
		if len(r.why) > 0 {
			first = r.why[0]
		}
		lines = append(lines, fmt.Sprintf("- %s [%s] %s: %s: %s", r.a.ID(), r.mode, tag, r.a.Why, oneLine(first, 160)))
	}
	sort.Strings(lines)
	fmt.Fprintf(w, "\nRuns that broke (%d):\n%s\n", len(lines), strings.Join(lines, "\n"))
}

func writeReport(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	results.report(f)
	return f.Close()
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// update rewrites the broken: marks to what this run found. Runs that
// errored keep their mark; attacks that did not run are left alone.
func (l *ledger) update() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	brokeIn := map[string][]string{}
	ran := map[string]bool{}
	for _, r := range l.runs {
		ran[r.a.ID()] = true
		if r.status == broke || (r.status == failed && r.a.broken(r.mode)) {
			brokeIn[r.a.ID()] = append(brokeIn[r.a.ID()], r.mode)
		}
	}
	files := map[string]bool{}
	for _, a := range l.attacks {
		if !ran[a.ID()] {
			brokeIn[a.ID()] = a.Broken
			continue
		}
		files[a.file] = true
		modes := brokeIn[a.ID()]
		slices.SortFunc(modes, func(x, y string) int { return slices.Index(a.Modes, x) - slices.Index(a.Modes, y) })
	}
	for f := range files {
		if err := updateBroken(f, brokeIn, l.attacks); err != nil {
			return err
		}
	}
	return nil
}

// toolResults is the tool outputs of the last request, for -v.
func toolResults(requests []string) string {
	if len(requests) == 0 {
		return ""
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(requests[len(requests)-1]), &req); err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role == "tool" {
			fmt.Fprintf(&b, "- %s\n", tail(fmt.Sprint(m.Content), 800))
		}
	}
	return b.String()
}

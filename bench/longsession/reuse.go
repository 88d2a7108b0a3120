package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The re-use day, as data: work that needs earlier outputs again, which
// the day (workday.go) never does, in cycles of six turns over four files:
//
//   - edit: read a file, then edit it in 2-4 steps, each naming the
//     exact line it changes;
//   - read: read a file and answer;
//   - fix (twice a cycle): run the file's tests, read the failing test
//     and the file, fix, and run again until they pass;
//   - back (three turns after edit): two more edits in the edited file;
//   - ask (three turns after read): a question the read file answers.
//
// The model works from the outputs in view and notes what a test's output
// says before acting on it. When a line it needs is paged out it recalls
// the page, unless it has edited the file since (the page is stale): then
// it reads the file again. Both are counted (recalls, re-reads).
const (
	reuseCycles = 6
	// checkCmd runs a file's tests: the first failing one, or PASS.
	checkCmd = "sh check.sh "
)

// reuseSizes are the files' sizes in tokens, in the order the cycles
// take them.
var reuseSizes = []int{2000, 5000, 8000, 3000, 12_000, 4000}

// reuseTurn is one turn of the re-use day.
type reuseTurn struct {
	kind string // edit, read, fix, back, ask
	file string
	// funcs are the functions the turn is about: to edit, to fix, or
	// the one asked about.
	funcs []string
	// testFirst: a fix turn reads the failing test before the file it
	// fixes (else after it: models do both).
	testFirst bool
}

// reuseDay is the re-use day's turns (from index 1) and its files, each
// a Go file of its size; scale shrinks them (tests).
type reuseDay struct {
	turns []reuseTurn
	files map[string]string
}

// newReuseDay generates the day from fixed seeds.
func newReuseDay(c *corpus, scale float64) reuseDay {
	d := reuseDay{turns: make([]reuseTurn, 1), files: map[string]string{}}
	file := func(k int) (string, []string) {
		name := fmt.Sprintf("pkg/w%02d.go", k+1)
		tokens := int(float64(reuseSizes[k%len(reuseSizes)]) * scale)
		text := c.get(fmt.Sprintf("reuse/%s/%d", name, tokens), func() string { return dayCode(c.count, uint64(500+k), tokens) })
		d.files[name] = text
		return name, uniqueFuncs(text)
	}
	// spread picks n functions spread over the file, from the ones
	// not yet taken.
	spread := func(fs []string, n int, taken map[string]bool) []string {
		var free []string
		for _, f := range fs {
			if !taken[f] {
				free = append(free, f)
			}
		}
		var out []string
		for i := range n {
			if len(free) == 0 {
				break
			}
			f := free[min(len(free)-1, (2*i+1)*len(free)/(2*n))]
			out = append(out, f)
			taken[f] = true
		}
		return out
	}
	var fails []string
	for cy := range reuseCycles {
		a, fa := file(4 * cy)
		b, fb := file(4*cy + 1)
		c1, fc := file(4*cy + 2)
		c2, fd := file(4*cy + 3)
		ta, tb := map[string]bool{}, map[string]bool{}
		edit := spread(fa, 2+cy%3, ta) // 2, 3, 4 edits in turn
		fixC, fixD := spread(fc, 2, map[string]bool{}), spread(fd, 2, map[string]bool{})
		ask := spread(fb, 1, tb)
		d.turns = append(d.turns,
			reuseTurn{"edit", a, edit, false},
			reuseTurn{"read", b, nil, false},
			reuseTurn{"fix", c1, fixC, cy%2 == 0},
			reuseTurn{"back", a, spread(fa, 2, ta), false},
			reuseTurn{"ask", b, ask, false},
			reuseTurn{"fix", c2, fixD, cy%2 == 1})
		fails = append(fails, c1+") "+wants(fixC, cy), c2+") "+wants(fixD, cy+1))
		for k, f := range []string{c1, c2} {
			seed := uint64(700 + 4*cy + k)
			d.files[testFile(f)] = c.get(fmt.Sprintf("reuse/test/%s/%v", f, scale), func() string { return testCode(c.count, seed, [][]string{fixC, fixD}[k], int(1000*scale)) })
			n := strings.TrimSuffix(strings.TrimPrefix(f, "pkg/"), ".go")
			d.files["logs/"+n+"-test.log"] = c.get(fmt.Sprintf("reuse/log/%s/%v", n, scale), func() string { return testLog(c.count, seed, int(2500*scale)) })
		}
	}
	d.files["check.sh"] = checkScript(fails)
	return d
}

// prompt is what the user types at turn.
func (d reuseDay) prompt(turn int) string {
	t := d.turns[turn]
	names := strings.Join(t.funcs, ", ")
	switch t.kind {
	case "edit":
		return fmt.Sprintf("In %s, mark %s as reviewed: put a line `// Reviewed.` above each of them.", t.file, names)
	case "read":
		return fmt.Sprintf("Read %s and summarise it.", t.file)
	case "fix":
		return fmt.Sprintf("The tests of %s fail. Run `%s%s`, fix what fails in %s, and run it again until it passes.", t.file, checkCmd, t.file, t.file)
	case "back":
		return fmt.Sprintf("Back to %s: mark %s as reviewed too, the same way.", t.file, names)
	}
	return fmt.Sprintf("In %s, which you read earlier: what does %s return?", t.file, names)
}

// uniqueFuncs lists a file's methods in order, those whose name is
// declared once (so `) Name(` finds the one line an edit replaces).
func uniqueFuncs(text string) []string {
	var names []string
	n := map[string]int{}
	for _, m := range sigRe.FindAllStringSubmatch(text, -1) {
		names = append(names, m[2])
		n[m[2]]++
	}
	return slices.DeleteFunc(names, func(s string) bool { return n[s] > 1 })
}

// testFile is the test file of a file: pkg/w03_test.go.
func testFile(file string) string { return strings.TrimSuffix(file, ".go") + "_test.go" }

// testCode is a test file of about tokens tokens: a test per function,
// the failing ones among them.
func testCode(count func(string) int, seed uint64, failing []string, tokens int) string {
	r := rand.New(rand.NewPCG(seed, 0x7e57f11e))
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"testing\"\n)\n")
	test := func(name string) {
		fmt.Fprintf(&b, "\nfunc Test%s(t *testing.T) {\n\tctx := context.Background()\n\ts := new%s(t, %d)\n\tif _, err := s.%s(ctx, nil, 0); !errors.Is(err, Err%s) {\n\t\tt.Errorf(\"%s(ctx, nil, 0) = %%v, want Err%s\", err)\n\t}\n}\n",
			name, title(pick(r, nouns)), r.IntN(64), name, title(pick(r, nouns)), name, title(pick(r, nouns)))
	}
	for _, f := range failing {
		test(f)
	}
	for count(b.String()) < tokens {
		test(exported(r))
	}
	return b.String()
}

// testLog is the passing part of a package's test output: about tokens
// tokens of `ok` lines.
func testLog(count func(string) int, seed uint64, tokens int) string {
	r := rand.New(rand.NewPCG(seed, 0x7e57))
	var b strings.Builder
	b.WriteString("$ go test -count=1 ./...\n")
	for n := 0; n < tokens; {
		line := fmt.Sprintf("ok  \tgithub.com/acme/%s/%s\t%d.%03ds\n", pick(r, nouns), ident(r), r.IntN(5), r.IntN(1000))
		n += count(line)
		b.WriteString(line)
	}
	return b.String()
}

// wants pairs each function with the error its test wants, in the form
// check.sh reads: "Name=ErrClosed".
func wants(funcs []string, k int) string {
	errs := []string{"ErrClosed", "ErrTimeout", "io.EOF", "ErrNotFound", "context.Canceled"}
	var out []string
	for i, f := range funcs {
		out = append(out, f+"="+errs[(k+i)%len(errs)])
	}
	return strings.Join(out, " ")
}

// checkScript is check.sh: for a file, the passing packages' lines, then
// the first of its tests whose fix is not in the file yet (a fix is the
// line `// fixed: Name returns Want` in the function), with what it
// wants and the line it points at.
func checkScript(fails []string) string {
	var cases strings.Builder
	for _, f := range fails {
		fmt.Fprintf(&cases, "%s;;\n", strings.Replace(f, ") ", ") tests=\"", 1)+"\"")
	}
	return strings.Replace(checkTemplate, "@CASES@\n", cases.String(), 1)
}

//go:embed check.sh
var checkTemplate string

var (
	sigRe     = regexp.MustCompile(`(?m)^(?:\d+\t)?(func \(s \*\w+\) (\w+)\(.*\{)$`)
	pageRe    = regexp.MustCompile(`^\[(?:paged out|summarized) (p\d+)[: ]`)
	cappedRe  = regexp.MustCompile(`The whole output is page (p\d+)`)
	readOnRe  = regexp.MustCompile(`recall \{"query":"(p\d+)","offset":(\d+)\} reads on\]\s*$`)
	failRe    = regexp.MustCompile(`--- FAIL: Test(\w+)`)
	reviewed  = "// Reviewed.\n"
	fixedMark = "\n\t// fixed: "
)

// reuseBrain is the re-use day's model.
func reuseBrain(d reuseDay) func(int, []entry) (reply, bool) {
	return func(turn int, entries []entry) (reply, bool) {
		if handoffAsked(entries) {
			return reply{text: "ok"}, true
		}
		at, _ := inProgress(entries)
		if at < 0 || turn >= len(d.turns) {
			return reply{text: "ok"}, true
		}
		t := d.turns[turn]
		v := newOutputs(entries)
		switch t.kind {
		case "read":
			if answered(v.entries, at, "file_read", t.file) {
				return reply{text: t.file + ": small methods on cached records."}, true
			}
			return reply{read: t.file}, true
		case "ask":
			sig, next := v.find("file:"+t.file, funcLine(t.funcs[0]))
			if sig == "" {
				return next, true
			}
			return reply{text: fmt.Sprintf("%s is `%s`: it returns what that line says.", t.funcs[0], sig)}, true
		case "fix":
			return v.fix(at, t), true
		}
		// edit, back: the next function not edited in this turn.
		for _, f := range t.funcs {
			if v.editedSince(at, t.file, ") "+f+"(") {
				continue
			}
			sig, next := v.find("file:"+t.file, funcLine(f))
			if sig == "" {
				return next, true
			}
			return editReply(t.file, sig, reviewed+sig), true
		}
		return reply{text: fmt.Sprintf("Done: %s marked as reviewed.", strings.Join(t.funcs, ", "))}, true
	}
}

// fix runs the tests, fixes the failure they name, and runs them again.
func (v outputs) fix(at int, t reuseTurn) reply {
	cmd := checkCmd + t.file
	last := -1 // the newest output of the tests in this turn
	for i := at + 1; i < len(v.entries); i++ {
		if e := v.entries[i]; e.role == "tool" && v.calls[e.callID].name == "shell_exec" && callArg(v.calls[e.callID].args) == cmd {
			last = i
		}
	}
	run := reply{tool: "shell_exec", args: fmt.Sprintf(`{"command": %q}`, cmd)}
	if last < 0 {
		return run
	}
	// A stub names the first failure, as the output does; what the
	// test wants is in the output.
	m := failRe.FindStringSubmatch(v.entries[last].text)
	if m == nil {
		return reply{text: "Fixed: the tests of " + t.file + " pass."}
	}
	fn := m[1]
	if v.editedSince(last, t.file, fixedMark+fn+" returns ") {
		return run
	}
	// What the test wants, from its output or from the model's own note
	// of it (a model says what it found before it acts on it).
	wantRe := regexp.MustCompile(regexp.QuoteMeta(fn) + `\(ctx, nil, 0\) = <nil>, want ([\w.]+\w)`)
	want := v.noted(last, wantRe)
	if want == "" {
		var next reply
		if want, next = v.find("cmd:"+cmd, wantRe); want == "" {
			return next
		}
	}
	// The first failure of the turn sends the model to its test too,
	// before or after the file it fixes.
	note := fmt.Sprintf("Test%s fails: %s(ctx, nil, 0) = <nil>, want %s.", fn, fn, want)
	test := reply{text: note, read: testFile(t.file)}
	if t.testFirst && !answered(v.entries, at, "file_read", test.read) {
		return test
	}
	sig, next := v.find("file:"+t.file, funcLine(fn))
	if sig == "" {
		next.text = note
		return next
	}
	if !answered(v.entries, at, "file_read", test.read) {
		return test
	}
	return editReply(t.file, sig, sig+fixedMark+fn+" returns "+want)
}

// funcLine matches the line declaring method fn.
func funcLine(fn string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:\d+\t)?(func \(s \*\w+\) ` + fn + `\(.*\{)$`)
}

func editReply(file, old, new string) reply {
	args, _ := json.Marshal(map[string]string{"path": file, "old_text": old, "new_text": new})
	return reply{tool: "file_edit", args: string(args)}
}

func recallReply(page string, offset int) reply {
	if offset > 0 {
		return reply{tool: "recall", args: fmt.Sprintf(`{"query": %q, "offset": %d}`, page, offset)}
	}
	return reply{tool: "recall", args: fmt.Sprintf(`{"query": %q}`, page)}
}

// outputs is what the model knows of the tool outputs in a request: the
// calls, and what each page holds.
type outputs struct {
	entries []entry
	calls   map[string]entry
	callAt  map[string]int
	// pageKey: what a page holds ("file:pkg/w01.go", "cmd:sh check.sh
	// pkg/w01.go"), and where the call that made it was (a page of a
	// file made before an edit of the file is stale).
	pageKey map[string]string
	pageAt  map[string]int
}

func newOutputs(entries []entry) outputs {
	v := outputs{entries: entries, calls: map[string]entry{}, callAt: map[string]int{}, pageKey: map[string]string{}, pageAt: map[string]int{}}
	for i, e := range entries {
		if e.isCall() {
			v.calls[e.callID] = e
			v.callAt[e.callID] = i
			continue
		}
		if e.role != "tool" {
			continue
		}
		key, at := v.holds(e.callID)
		if key == "" {
			continue
		}
		for _, re := range []*regexp.Regexp{pageRe, cappedRe} {
			if m := re.FindStringSubmatch(e.text); m != nil {
				if _, ok := v.pageKey[m[1]]; !ok {
					v.pageKey[m[1]], v.pageAt[m[1]] = key, at
				}
			}
		}
	}
	return v
}

// holds is what a call's output holds (a file read, a command's output,
// or a recall of a page of either) and where it was made.
func (v outputs) holds(callID string) (string, int) {
	c, ok := v.calls[callID]
	switch {
	case !ok:
	case c.name == "file_read":
		return "file:" + callArg(c.args), v.callAt[callID]
	case c.name == "shell_exec":
		return "cmd:" + callArg(c.args), v.callAt[callID]
	case c.name == "recall":
		p := callArg(c.args)
		return v.pageKey[p], v.pageAt[p]
	}
	return "", 0
}

// noted is re's first group in the model's own messages after entry at.
func (v outputs) noted(at int, re *regexp.Regexp) string {
	for i := at + 1; i < len(v.entries); i++ {
		if e := v.entries[i]; e.role == "assistant" {
			if m := re.FindStringSubmatch(e.text); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// editedSince reports whether a successful edit of file after entry at
// wrote text.
func (v outputs) editedSince(at int, file, text string) bool {
	for i := at + 1; i < len(v.entries); i++ {
		e := v.entries[i]
		c := v.calls[e.callID]
		if e.role != "tool" || c.name != "file_edit" || callArg(c.args) != file || !strings.HasPrefix(e.text, "edited ") {
			continue
		}
		var a struct {
			NewText string `json:"new_text"`
		}
		_ = json.Unmarshal([]byte(c.args), &a)
		if strings.Contains(a.NewText, text) {
			return true
		}
	}
	return false
}

// find looks for re's first group in the outputs in view that hold key
// (a file, a command's output). When none shows it, next is the call
// that brings it back: reading on in a page being recalled, recalling
// the page of the newest paged output, or, for a file, reading it, when
// it has no output in view or was edited since that page was read.
func (v outputs) find(key string, re *regexp.Regexp) (found string, next reply) {
	newest, newestAt := "", -1
	for i, e := range v.entries {
		if e.role != "tool" {
			continue
		}
		if k, _ := v.holds(e.callID); k != key {
			continue
		}
		if m := re.FindStringSubmatch(e.text); m != nil {
			return m[1], reply{}
		}
		newest, newestAt = e.text, i
	}
	file, isFile := strings.CutPrefix(key, "file:")
	if newestAt < 0 {
		return "", reply{read: file}
	}
	if m := readOnRe.FindStringSubmatch(newest); m != nil && v.calls[v.entries[newestAt].callID].name == "recall" {
		off, _ := strconv.Atoi(m[2])
		return "", recallReply(m[1], off)
	}
	page := ""
	for _, re := range []*regexp.Regexp{pageRe, cappedRe} {
		if m := re.FindStringSubmatch(newest); m != nil {
			page = m[1]
			break
		}
	}
	if !isFile && page == "" {
		return "", reply{text: "I cannot find it in the output."}
	}
	if isFile && (page == "" || v.editedSince(v.pageAt[page], file, "")) {
		return "", reply{read: file}
	}
	return "", recallReply(page, 0)
}

// reuseSpec is the re-use day in a window of n tokens.
func reuseSpec(name string, n int) spec {
	return spec{Name: name, About: fmt.Sprintf("the re-use day, %dk window: %d turns that edit, fix and come back to files of 2k-12k tokens", n/1000, 6*reuseCycles),
		Window: n, Turns: 6 * reuseCycles, reuse: true, yes: true}
}

// withReuseDay gives s the re-use day's model, prompts and files (the
// spec's own prompts and files win, for tests).
func (s spec) withReuseDay(c *corpus) spec {
	d := newReuseDay(c, s.scale)
	prompts := map[int]string{}
	for t := 1; t < len(d.turns); t++ {
		prompts[t] = d.prompt(t)
	}
	maps.Copy(prompts, s.prompts)
	extra := maps.Clone(d.files)
	maps.Copy(extra, s.extra)
	s.brain, s.prompts, s.extra = reuseBrain(d), prompts, extra
	return s
}

// reuseFixTurns is how many of the first n turns are fix turns (the
// third and sixth of each cycle).
func reuseFixTurns(n int) int {
	if n%6 >= 3 {
		return n/6*2 + 1
	}
	return n / 6 * 2
}

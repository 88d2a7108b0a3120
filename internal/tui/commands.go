package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/internal/tool/plan"
	"github.com/godwit/godwit/llm"
)

// Reply is what a command says, and what the screen must do after it.
type Reply struct {
	Text string
	// Quit ends the chat.
	Quit bool
	// Reload redraws the transcript from the store (:resume, /clear).
	Reload bool
	// Pick offers these models to choose from (/model alone).
	Pick []Choice
	// Send is a message to send to the model now (/init, a skill).
	Send string
	// Export names the file to write the transcript to (/export).
	Export string
}

// IsCommand reports whether an input line is a command ("/help",
// ":help"). A first word with another "/" is a path, so a prompt
// ("/etc/hosts explain"), as Claude Code tells them apart; so are
// "//text", "::text" and ": text".
func IsCommand(line string) bool {
	s := strings.TrimLeft(line, " \t")
	switch {
	case strings.HasPrefix(s, "//"), strings.HasPrefix(s, "::"):
		return false
	case strings.HasPrefix(s, "/"):
		word, _, _ := strings.Cut(strings.TrimSpace(s), " ")
		word, _, _ = strings.Cut(word, "\n")
		return !strings.Contains(word[1:], "/")
	case strings.HasPrefix(s, ":"):
		return len(s) > 1 && s[1] != ' ' && s[1] != '\n'
	}
	return false
}

// Unescape turns an input line that is not a command into the prompt to
// send: "//x" sends "/x", "::x" sends ":x", "!!x" sends "!x".
func Unescape(line string) string {
	if s := strings.TrimLeft(line, " \t"); strings.HasPrefix(s, "//") || strings.HasPrefix(s, "::") || strings.HasPrefix(s, "!!") {
		return s[1:]
	}
	return line
}

// commands lists the commands with their help, in the order /help shows
// them. idle says whether the command must wait for the turn to end.
var commands = []struct {
	name, args, help string
	idle             bool
}{
	{"help", "", "this list", false},
	{"context", "", "what the context holds: bytes and tokens per part of the last request", false},
	{"reset", "", "start the next turn in a new segment, with a handoff", false},
	{"clear", "", "start a new session (this one stays, for /resume)", true},
	{"undo", "", "restore the files the last file-changing turn wrote", true},
	{"model", "[NAME]", "use provider/model NAME from the next turn on (same session); alone, pick one", false},
	{"mode", "[MODE]", "approvals from the next call on: read-only, ask or auto (Shift-Tab cycles)", false},
	{"cost", "", "the session's cost and tokens per model", false},
	{"sessions", "", "recorded sessions, latest first", false},
	{"resume", "ID", "continue session ID (id, unique prefix, or last)", true},
	{"plan", "", "the plan's steps", false},
	{"rules", "", "what the session keeps as your rules, what was superseded, the newest requests", false},
	{"pin", "Dn", "keep message Dn as a rule", false},
	{"unpin", "Dn", "make Dn a request, not a rule", false},
	{"export", "[FILE]", "write the transcript to FILE (default: godwit-SESSION.txt here)", false},
	{"init", "", "have the model write AGENTS.md from the repository, or improve it", true},
	{"quit", "", "leave (also Ctrl-C twice, or Ctrl-D on an empty input)", false},
}

// aliases are the short names people type from habit.
// Peers' names map to godwit's where they mean the same: Claude Code's
// /compact, /todos and /rewind, Codex's /approvals and /new.
var aliases = map[string]string{"q": "quit", "exit": "quit", "h": "help", "?": "help",
	"compact": "reset", "usage": "cost", "approvals": "mode", "permissions": "mode", "todos": "plan",
	"new": "clear", "rewind": "undo", "models": "model"}

// peers are other agents' commands with no godwit command of their own:
// each says what godwit has instead. Not sent to the model.
var peers = map[string]string{
	"diff":       "godwit has no /diff: !git diff shows it (and the model reads it with your next message)",
	"status":     "the status line shows the model, the mode, the context, the cost and the cache hits; /context and /cost give the detail",
	"login":      "godwit reads API keys from the environment or $GODWIT_HOME/.env (`godwit config init` sets one up); /model picks among the models whose key is set",
	"logout":     "godwit keeps no login: API keys are in the environment or $GODWIT_HOME/.env",
	"config":     "`godwit config` (outside the chat) shows and sets the configuration; /model and /mode change this chat",
	"settings":   "`godwit config` (outside the chat) shows and sets the configuration; /model and /mode change this chat",
	"memory":     "the project's rules are AGENTS.md (or CLAUDE.md), read at each segment: /init writes AGENTS.md, edit it as any file",
	"mcp":        "MCP servers come from config.yaml and the repository's .mcp.json; the banner says which did not start",
	"review":     "ask for a review in words (\"review the changes on this branch\"): !git diff puts the diff with your next message",
	"copy":       "the chat does not hold the mouse: select text to copy it; /export writes the whole transcript to a file",
	"transcript": "/export writes the transcript to a file; the chat also prints it to the terminal when you leave",
	"add-dir":    "godwit works in one folder, its workspace: start it in another with godwit -C DIR",
	"agents":     "godwit's sub-agent is a tool the model calls on its own",
	"history":    "Up and Down recall earlier input (kept across chats); /sessions lists the sessions",
}

// initPrompt is what /init asks the model (pinned in a test: it is sent).
const initPrompt = "Write AGENTS.md at the root of this repository, for coding agents: how to build, test and lint it, how the code is laid out, and the conventions to keep, as you find them by reading the repository (README, build and CI files, a few source files). If AGENTS.md exists, improve it in place: keep what is right, fix what is wrong, add what is missing. Be brief: under 60 lines, commands exact."

// Exec runs a command line ("/cost", ":model x/y").
func (c *Controller) Exec(ctx context.Context, line string) (Reply, error) {
	s := strings.TrimSpace(line)
	prefix := "/"
	if strings.HasPrefix(s, ":") {
		prefix = ":"
	}
	fields := strings.Fields(strings.TrimPrefix(s, prefix))
	if len(fields) == 0 {
		return Reply{}, errors.New("tui: commands are /name [args]: /help lists them; //text sends a message that starts with /")
	}
	name, args := strings.ToLower(fields[0]), fields[1:]
	if a, ok := aliases[name]; ok {
		name = a
	}
	if text, ok := peers[name]; ok {
		return Reply{Text: text}, nil
	}
	var known bool
	for _, cmd := range commands {
		if cmd.name != name {
			continue
		}
		known = true
		if cmd.idle && c.Running() {
			return Reply{}, ErrBusy
		}
		want := strings.Fields(cmd.args)
		optional := len(want) == 1 && strings.HasPrefix(want[0], "[")
		if len(args) != len(want) && !(optional && len(args) == 0) {
			if len(want) == 0 {
				return Reply{}, fmt.Errorf("tui: %s%s takes no arguments", prefix, name)
			}
			return Reply{}, fmt.Errorf("tui: usage: %s%s %s", prefix, name, cmd.args)
		}
	}
	if !known {
		if sk, ok := c.skill(ctx, name); ok {
			// A skill by its name, as Claude Code runs them: the model is
			// told which to load; the line goes as written.
			c.mu.Lock()
			c.notes = append(c.notes, fmt.Sprintf("the user asks you to use the skill %s (%s): load it with the skill tool and follow it", sk.Name, sk.Detail))
			c.mu.Unlock()
			return Reply{Send: s}, nil
		}
		return Reply{}, unknownCommand(prefix, fields[0])
	}
	switch name {
	case "help":
		return Reply{Text: helpText()}, nil
	case "quit":
		return Reply{Quit: true}, nil
	case "reset":
		c.mu.Lock()
		c.resetNext = true
		c.mu.Unlock()
		return Reply{Text: "the next turn starts a new segment: the model writes a handoff first"}, nil
	case "context":
		return Reply{Text: c.contextText()}, nil
	case "cost":
		s, err := c.costText(ctx)
		return Reply{Text: s}, err
	case "sessions":
		s, err := c.sessionsText(ctx)
		return Reply{Text: s}, err
	case "plan":
		return Reply{Text: c.planText()}, nil
	case "rules", "pin", "unpin":
		s, err := c.rulesCommand(ctx, name, args)
		return Reply{Text: s}, err
	case "model":
		if len(args) == 0 {
			return c.modelList(), nil
		}
		if c.Running() {
			return Reply{}, ErrBusy
		}
		s, err := c.switchModel(ctx, args[0])
		if err == nil {
			c.record(ctx)
		}
		return Reply{Text: s}, err
	case "clear":
		return Reply{Text: c.clear(), Reload: true}, nil
	case "export":
		name := ""
		if len(args) > 0 {
			name = args[0]
		}
		return Reply{Export: c.exportPath(name)}, nil
	case "init":
		return Reply{Send: initPrompt}, nil
	case "resume":
		s, err := c.resume(ctx, args[0])
		return Reply{Text: s, Reload: err == nil}, err
	case "undo":
		s, err := c.undo(ctx)
		return Reply{Text: s}, err
	case "mode":
		s, err := c.modeCommand(args)
		return Reply{Text: s}, err
	}
	return Reply{}, fmt.Errorf("tui: /%s is not implemented", name)
}

// unknownCommand says that name is no command, names the nearest one, and
// how to send the line to the model after all.
func unknownCommand(prefix, name string) error {
	msg := fmt.Sprintf("tui: unknown command %s%s (not sent to the model)", prefix, name)
	if near := nearestCommand(strings.ToLower(name)); near != "" {
		msg += fmt.Sprintf(": did you mean %s%s?", prefix, near)
	} else {
		msg += ";"
	}
	return fmt.Errorf("%s /help lists the commands; %s%s%s sends the line as a message", msg, prefix, prefix, name)
}

// nearestCommand returns the command (or alias) name closest to name:
// the only one it starts, else one at most two edits away; "" when none
// is near enough to be what was meant.
func nearestCommand(name string) string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	for a := range aliases {
		if len(a) >= 3 { // "q" is one edit from every one-letter typo
			names = append(names, a)
		}
	}
	sort.Strings(names)
	var prefixed []string
	for _, n := range names {
		if len(name) >= 2 && strings.HasPrefix(n, name) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return canonical(prefixed[0])
	}
	best, bestD := "", 3 // at most two edits
	if len(name) <= 4 {
		bestD = 2 // one: "/xyz" is two edits from many short names
	}
	for _, n := range names {
		d := editDistance(name, n)
		// On a tie the name of the same length wins: "modle" is "model"
		// swapped, more likely than "mode" with a letter too many.
		if d < bestD || d == bestD && best != "" && absDiff(len(n), len(name)) < absDiff(len(best), len(name)) {
			best, bestD = n, d
		}
	}
	return canonical(best)
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

func canonical(name string) string {
	if a, ok := aliases[name]; ok {
		return a
	}
	return name
}

// editDistance is the Damerau-Levenshtein distance (adjacent swaps count
// one: "hlep" is one edit from "help").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func helpText() string {
	var rows [][]string
	for _, c := range commands {
		rows = append(rows, []string{strings.TrimSpace("/" + c.name + " " + c.args), c.help})
	}
	var b strings.Builder
	b.WriteString(table(rows, "ll"))
	b.WriteString(`
Commands start with / or : (/help and :help are the same). An unknown one is not sent.
//text sends "/text"; a first word that is a path (/etc/hosts explain) is sent as written.
Enter sends; Alt-Enter or Ctrl-J adds a line; Up/Down recall earlier input (kept across chats).
A long paste shows as [pasted text #N: lines, bytes] and is sent whole.
A message sent while a turn runs is queued (⧗) and sent when it ends.
PgUp/PgDn scroll; Esc goes back to the end.
Alt-Up/Alt-Down select a tool call or thinking block; Ctrl-O opens or closes it.
Shift-Tab cycles the mode (read-only, ask, auto). Esc or Ctrl-C cancels the running turn;
Esc twice clears the input; Ctrl-C twice when idle leaves.
"(est.)" in the status line: tokens estimated at 4 bytes each until the tokenizer has loaded.`)
	return b.String()
}

// contextText shows the parts of the last request.
func (c *Controller) contextText() string {
	c.mu.Lock()
	r := c.stats.lastReq
	window := 0
	if c.eng != nil {
		window = c.eng.ContextWindow
	}
	reset := c.resetNext
	c.mu.Unlock()
	if r == nil {
		return "no request yet: the context is assembled at the first prompt"
	}
	var b strings.Builder
	est := ""
	if r.Estimated {
		est = " (estimated: 4 bytes a token)"
	}
	fmt.Fprintf(&b, "last request to %s/%s, segment %d: %s tokens%s", r.Provider, r.Model, r.Segment, thousands(r.Tokens), est)
	if window > 0 {
		fmt.Fprintf(&b, " of %s (%s)", thousands(window), percent(float64(r.Tokens)/float64(window)))
	}
	b.WriteString("\n")
	rows := [][]string{{"part", "bytes", "tokens", "share"}}
	for _, p := range r.Parts {
		share := "-"
		if r.Tokens > 0 {
			share = percent(float64(p.Tokens) / float64(r.Tokens))
		}
		rows = append(rows, []string{p.Name, thousands(p.Bytes), thousands(p.Tokens), share})
	}
	rows = append(rows, []string{"total", thousands(r.Bytes), thousands(r.Tokens), ""})
	b.WriteString(table(rows, "lrrr"))
	if reset {
		b.WriteString(":reset is pending: the next turn starts a new segment\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (c *Controller) costText(ctx context.Context) (string, error) {
	eng, id, err := c.engine()
	if err != nil {
		return "", err
	}
	if id == "" {
		return "no session yet: nothing spent", nil
	}
	calls, err := eng.Store.ModelCalls(ctx, id)
	if err != nil {
		return "", err
	}
	// Sub-agents run in sessions of their own; what they spent is this
	// session's too.
	subs, err := eng.Store.SubSessions(ctx, id)
	if err != nil {
		return "", err
	}
	own := len(calls)
	for _, ss := range subs {
		sc, err := eng.Store.ModelCalls(ctx, ss.ID)
		if err != nil {
			return "", err
		}
		calls = append(calls, sc...)
	}
	type row struct {
		calls int
		u     llm.Usage
		cost  float64
	}
	rows := map[string]*row{}
	var total row
	for i, mc := range calls {
		k := mc.Provider + "/" + mc.Model
		if i >= own {
			k = "sub-agents: " + k
		}
		r := rows[k]
		if r == nil {
			r = &row{}
			rows[k] = r
		}
		for _, x := range []*row{r, &total} {
			x.calls++
			x.u.Add(mc.Usage)
			x.cost += mc.Cost
		}
	}
	names := make([]string, 0, len(rows))
	for k := range rows {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "session %s: %s over %d model calls\n", id, money(total.cost), total.calls)
	tab := [][]string{{"model", "calls", "input", "cache read", "cache write", "output", "reasoning", "cost"}}
	line := func(name string, r *row) {
		u := r.u
		tab = append(tab, []string{name, strconv.Itoa(r.calls), short(u.InputTokens), short(u.CacheReadTokens), short(u.CacheWriteTokens), short(u.OutputTokens), short(u.ReasoningTokens), money(r.cost)})
	}
	for _, k := range names {
		line(k, rows[k])
	}
	if len(names) > 1 {
		line("total", &total)
	}
	b.WriteString(table(tab, "lrrrrrrr"))
	if total.u.InputTokens > 0 {
		fmt.Fprintf(&b, "cache hits: %s of input tokens", percent(float64(total.u.CacheReadTokens)/float64(total.u.InputTokens)))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func (c *Controller) sessionsText(ctx context.Context) (string, error) {
	eng, current, err := c.engine()
	if err != nil {
		return "", err
	}
	list, err := eng.Store.ListSessionsIn(ctx, eng.Workspace, 20) // the ones /resume takes
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "no sessions recorded yet", nil
	}
	var b strings.Builder
	rows := [][]string{{"", "id", "last active", "turns", "cost", "title"}}
	for _, s := range list {
		if s.ParentID != "" {
			continue // a sub-agent's: not one to resume; :cost counts it
		}
		mark := ""
		if s.ID == current {
			mark = "*"
		}
		rows = append(rows, []string{mark, s.ID, s.LastActivity.Local().Format("2006-01-02 15:04"), strconv.Itoa(s.Turns), money(s.Cost), oneLine(s.Title, 60)})
	}
	b.WriteString(table(rows, "lllrrl"))
	b.WriteString(":resume ID continues one (a unique prefix will do)")
	return b.String(), nil
}

func (c *Controller) planText() string {
	eng, _, err := c.engine()
	if err != nil {
		return err.Error()
	}
	if eng.Plan == nil {
		return "this engine has no plan tool"
	}
	steps := eng.Plan()
	if len(steps) == 0 {
		return "no plan yet: the model makes one with the plan tool"
	}
	var b strings.Builder
	done := 0
	for _, s := range steps {
		box := "[ ]"
		switch s.Status {
		case plan.Done:
			box, done = "[x]", done+1
		case plan.InProgress:
			box = "[>]"
		}
		fmt.Fprintf(&b, "%s %s\n", box, s.Text)
	}
	fmt.Fprintf(&b, "%d of %d done", done, len(steps))
	return b.String()
}

func (c *Controller) switchModel(ctx context.Context, name string) (string, error) {
	if !strings.Contains(name, "/") {
		if c.models != nil {
			for _, m := range c.models() {
				if _, id, _ := strings.Cut(m.Name, "/"); id == name {
					return "", fmt.Errorf("tui: a model is named provider/model: did you mean /model %s?", m.Name)
				}
			}
		}
		return "", fmt.Errorf("tui: /model wants provider/model (e.g. anthropic/claude-sonnet-4-5), not %q; /model alone lists the models you can use", name)
	}
	eng, err := c.build(ctx, name)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if c.running {
		c.mu.Unlock()
		if eng.Close != nil {
			_ = eng.Close()
		}
		return "", ErrBusy
	}
	old := c.eng
	c.eng = eng
	c.mu.Unlock()
	if old != nil && old.Plan != nil && eng.SetPlan != nil {
		if steps := old.Plan(); len(steps) > 0 {
			_ = eng.SetPlan(steps) // steps the old plan accepted pass again
		}
	}
	if old != nil && old.Close != nil {
		_ = old.Close()
	}
	msg := "model: " + eng.Model
	if eng.ContextWindow > 0 {
		msg += fmt.Sprintf(" (window %s tokens)", thousands(eng.ContextWindow))
	}
	return msg + "; the next turn uses it, in the same session", nil
}

func (c *Controller) resume(ctx context.Context, ref string) (string, error) {
	eng, _, err := c.engine()
	if err != nil {
		return "", err
	}
	sess, err := ResolveSession(ctx, eng.Store, ref, eng.Workspace)
	if err != nil {
		return "", err
	}
	if err := sameWorkspace(sess, eng); err != nil {
		return "", err
	}
	if err := c.load(ctx, sess.ID); err != nil {
		return "", err
	}
	c.mu.Lock()
	c.resumed = ""
	c.mu.Unlock()
	return fmt.Sprintf("resumed session %s: %s", sess.ID, oneLine(sess.Title, 60)), nil
}

func (c *Controller) undo(ctx context.Context) (string, error) {
	eng, id, err := c.engine()
	if err != nil {
		return "", err
	}
	if id == "" {
		return "nothing to undo: no turn has run yet", nil
	}
	from, err := snapshot.LatestChange(ctx, eng.Store, id)
	if err != nil {
		return "", err
	}
	if from == 0 {
		return "nothing to undo: this session changed no files", nil
	}
	rep, err := snapshot.Undo(ctx, eng.Store, id, from)
	if err != nil {
		return "", err
	}
	return undoText(rep, eng.Workspace), nil
}

func undoText(rep snapshot.Report, ws string) string {
	rel := func(p string) string {
		if r, err := filepath.Rel(ws, p); ws != "" && err == nil && filepath.IsLocal(r) {
			return filepath.ToSlash(r)
		}
		return p
	}
	var b strings.Builder
	fmt.Fprintf(&b, "undid the file changes of turn %d and later", rep.FromTurn)
	for _, p := range rep.Restored {
		fmt.Fprintf(&b, "\n  restored  %s", rel(p))
	}
	for _, p := range rep.Removed {
		fmt.Fprintf(&b, "\n  removed   %s (the agent created it)", rel(p))
	}
	for _, f := range rep.Failed {
		fmt.Fprintf(&b, "\n  FAILED    %s: %v", rel(f.Path), f.Err)
	}
	if n := len(rep.Unchanged); n > 0 {
		fmt.Fprintf(&b, "\n  %d file(s) were already as before", n)
	}
	if len(rep.ShellChanged) > 0 {
		b.WriteString("\nnot rolled back (changed by shell commands):")
		for _, p := range rep.ShellChanged {
			fmt.Fprintf(&b, "\n  %s", rel(p))
		}
	}
	if len(rep.Background) > 0 {
		b.WriteString("\nnot tracked (background jobs ran):")
		for _, c := range rep.Background {
			fmt.Fprintf(&b, "\n  %s", oneLine(c, 80))
		}
	}
	if len(rep.Restored)+len(rep.Removed) > 0 {
		b.WriteString("\nthe model is told with your next message")
	}
	return b.String()
}

// parseMode reads the names /mode takes, peers' included (Codex's
// "read-only", "auto"; "yes" for --yes, "write" for --allow-write).
func parseMode(name string) (policy.Mode, bool) {
	switch strings.ToLower(name) {
	case "read-only", "readonly", "ro", "read":
		return policy.ReadOnly, true
	case "ask", "write", "allow-write":
		return policy.Ask, true
	case "auto", "yes":
		return policy.Auto, true
	}
	return policy.ReadOnly, false
}

// modeHelp says what each mode lets through.
func modeHelp(m policy.Mode) string {
	switch m {
	case policy.Ask:
		return "asks before each write or command unless a rule allows it"
	case policy.Auto:
		return "approves writes and commands; deny and ask rules still hold"
	}
	return "writes, and commands off the read-only list, are refused; commands run read-only and offline"
}

// modeCommand shows the mode, or switches it.
func (c *Controller) modeCommand(args []string) (string, error) {
	cur, ok := c.Mode()
	if len(args) == 0 {
		if !ok {
			return "", c.SetMode(cur) // says why it is fixed
		}
		return fmt.Sprintf("mode: %s: %s\n/mode read-only | ask | auto switches it from the next call on (Shift-Tab cycles)", cur, modeHelp(cur)), nil
	}
	m, known := parseMode(args[0])
	if !known {
		return "", fmt.Errorf("tui: unknown mode %q: use read-only, ask or auto", args[0])
	}
	if err := c.SetMode(m); err != nil {
		return "", err
	}
	return c.modeText(cur, m), nil
}

// modeText reports a switch.
func (c *Controller) modeText(from, to policy.Mode) string {
	if from == to {
		return fmt.Sprintf("mode: %s already: %s", to, modeHelp(to))
	}
	return fmt.Sprintf("mode: %s → %s, from the next call on: %s", from, to, modeHelp(to))
}

// CycleMode moves to the next mode (read-only → ask → auto → read-only)
// and says so.
func (c *Controller) CycleMode() (string, error) {
	cur, _ := c.Mode()
	next := (cur + 1) % (policy.Auto + 1)
	if err := c.SetMode(next); err != nil {
		return "", err
	}
	return c.modeText(cur, next), nil
}

// skills lists the engine's skills (none without).
func (c *Controller) skills(ctx context.Context) []Choice {
	eng, _, err := c.engine()
	if err != nil || eng.Skills == nil {
		return []Choice{}
	}
	return eng.Skills(ctx)
}

// skill finds the skill named name, if the engine has skills.
func (c *Controller) skill(ctx context.Context, name string) (Choice, bool) {
	for _, sk := range c.skills(ctx) {
		if strings.EqualFold(sk.Name, name) {
			return sk, true
		}
	}
	return Choice{}, false
}

// modelList lists the models whose key is set, the current one marked,
// for the chat to pick from.
func (c *Controller) modelList() Reply {
	cur := c.Status().Model
	var list []Choice
	if c.models != nil {
		list = c.models()
	}
	if len(list) == 0 {
		return Reply{Text: "model: " + cur + "\n/model provider/model switches (`godwit models` lists the catalog; set a provider's key to use its models)"}
	}
	var rows [][]string
	for _, m := range list {
		mark := " "
		if m.Name == cur {
			mark = "*"
		}
		rows = append(rows, []string{mark, m.Name, m.Detail})
	}
	return Reply{Text: table(rows, "lll") + "the models whose key is set; * is this chat's. Pick one (Enter), or /model provider/model", Pick: list}
}

// clear starts a new session at the next message; the current one stays
// in the store.
func (c *Controller) clear() string {
	eng, old, _ := c.engine()
	c.mu.Lock()
	c.sessionID, c.stats, c.resetNext, c.notes, c.resumed = "", stats{}, false, nil, ""
	c.mu.Unlock()
	if eng != nil && eng.SetPlan != nil {
		_ = eng.SetPlan(nil)
	}
	if old == "" {
		return "a new session starts with your next message"
	}
	return fmt.Sprintf("a new session (at your next message); /resume %s goes back", old)
}

// exportPath is where /export writes: name (relative to the workspace),
// or godwit-SESSION.txt there.
func (c *Controller) exportPath(name string) string {
	if name == "" {
		id := c.SessionID()
		if id == "" {
			id = "new"
		}
		name = "godwit-" + id + ".txt"
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(c.Workspace(), name)
	}
	return name
}

package policy

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/termsafe"
	"github.com/godwit/godwit/tool"
)

// Mode is how much godwit may do without asking.
type Mode int

const (
	// ReadOnly (the default) refuses writes and commands that are not
	// read-only, with a reason saying how to allow them.
	ReadOnly Mode = iota
	// Ask (--allow-write) asks before each write or command unless a rule
	// allows it.
	Ask
	// Auto (--yes) approves writes and commands; deny and ask rules still
	// hold, and writes outside the workspace still ask.
	Auto
)

func (m Mode) String() string {
	switch m {
	case Ask:
		return "ask"
	case Auto:
		return "auto"
	}
	return "read-only"
}

// ModeFromFlags maps the command-line flags to a Mode; --yes wins.
func ModeFromFlags(allowWrite, yes bool) Mode {
	switch {
	case yes:
		return Auto
	case allowWrite:
		return Ask
	}
	return ReadOnly
}

// Options configure a Policy.
type Options struct {
	Mode Mode
	// Workspace is the root folder. Required.
	Workspace string
	// Rules may be nil (no rules).
	Rules *Rules
	// Prompter asks a person; nil denies whatever needs asking.
	Prompter Prompter
	// Scratch are folders outside the workspace where writes count as
	// writes inside it: the private TMPDIR, the rules' sandbox.writable.
	Scratch []string
	// Home expands ~; empty means os.UserHomeDir.
	Home string
	// Vars are shell variables whose values are known when commands are
	// analysed (TMPDIR); HOME is added from Home.
	Vars map[string]string
	// Shell is the interpreter of shell_exec: "bash" and "sh" commands are
	// analysed as bash; "powershell" commands are not analysed at all
	// (no read-only list, no allow rules: each one asks).
	Shell string
	// Offer, in read-only mode, asks the Prompter about a call refused only
	// because it writes or runs something (Question.ReadOnly); a yes runs it
	// once as ask mode would. The chat sets it.
	Offer bool
	// Refusals holds the scopes a person answered Never for. The
	// policies of one session (one per mode) share it, so a "never"
	// holds after the mode changes, in auto mode too; nil gives the
	// policy its own.
	Refusals *Refusals
	Logger   *slog.Logger
}

// Refusals are the scopes a person refused for the rest of a session.
// They are judged as deny rules are, before the mode's default.
type Refusals struct {
	mu    sync.Mutex
	rules []Rule
}

func (r *Refusals) add(rules []Rule) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rules = append(r.rules, rules...)
}

func (r *Refusals) list() []Rule {
	if r == nil { // a Policy not made by New
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rules
}

// Policy decides tool calls. It implements tool.Approver and is safe for
// concurrent use; questions to the Prompter are asked one at a time.
type Policy struct {
	mode     Mode
	root     string
	rules    Rules
	prompter Prompter
	scratch  []string
	home     string
	vars     map[string]string
	shell    string
	offer    bool
	log      *slog.Logger
	// gitDirs are the git folders a .git file points to (a worktree, a
	// submodule): their hooks and config are protected as .git's are.
	gitDirs []string
	// hookDirs are the other folders git runs hooks from (hookDirs);
	// hookDirsErr says why they are not known, and then every write
	// asks in every mode.
	hookDirs    []string
	hookDirsErr error
	// gitVar is a variable of the environment that points git at a
	// repository, index or work tree elsewhere (gitRepoVars), "" if
	// none; pathDir a folder of the workspace on PATH or GIT_EXEC_PATH
	// (or a relative entry), where a command name or git's git-<name>
	// may find a program of the workspace, "" if none.
	gitVar, pathDir string
	// hostPath is the PATH the policy's own git runs from (hostPath).
	hostPath string

	askMu sync.Mutex // one question at a time

	mu     sync.Mutex // guards always
	always []Rule     // scopes a person approved for the session
	// refused are the scopes a person refused for the session.
	refused *Refusals

	// env reads the environment commands run with (os.LookupEnv, HOME
	// being home): where git finds its config files.
	env func(string) (string, bool)

	// globMatches and globDirs bound a glob argument's expansion
	// (maxGlobMatches, maxGlobDirs; tests set small ones).
	globMatches, globDirs int
}

// New returns a Policy.
func New(opts Options) (*Policy, error) {
	if opts.Workspace == "" {
		return nil, fmt.Errorf("policy: Options.Workspace is required")
	}
	root, err := realDir(opts.Workspace)
	if err != nil {
		return nil, fmt.Errorf("policy: workspace: %w", err)
	}
	p := &Policy{mode: opts.Mode, root: root, prompter: opts.Prompter, home: opts.Home, shell: opts.Shell, offer: opts.Offer, log: opts.Logger,
		globMatches: maxGlobMatches, globDirs: maxGlobDirs, refused: opts.Refusals}
	if p.refused == nil {
		p.refused = &Refusals{}
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.home == "" {
		p.home, _ = os.UserHomeDir()
	}
	if opts.Rules != nil {
		p.rules = *opts.Rules
	}
	for _, d := range append(opts.Scratch, p.rules.Sandbox.Writable...) {
		if abs := p.expand(d); abs != "" {
			p.scratch = append(p.scratch, kernelPath(abs))
		}
	}
	p.gitDirs = linkedGitDirs(root)
	p.env = func(k string) (string, bool) {
		if k == "HOME" && p.home != "" {
			return p.home, true
		}
		return os.LookupEnv(k)
	}
	p.gitEnvironment()
	p.hostPath = hostPath(root)
	if p.hookDirs, p.hookDirsErr = hookDirs(root, p.env); p.hookDirsErr != nil {
		p.log.Warn("policy: git's config cannot be read for core.hooksPath; writes in the workspace ask", "err", p.hookDirsErr)
	}
	p.vars = map[string]string{}
	for k, v := range opts.Vars {
		p.vars[k] = v
	}
	if p.home != "" {
		p.vars["HOME"] = p.home
	}
	return p, nil
}

// Mode returns the policy's mode.
func (p *Policy) Mode() Mode { return p.mode }

// Writable returns the folders outside the workspace writes may go to
// (Scratch and sandbox.writable, resolved), for the sandbox.
func (p *Policy) Writable() []string { return append([]string(nil), p.scratch...) }

// expand makes a rules path absolute: ~/ is the home folder, a relative
// path is relative to the workspace.
func (p *Policy) expand(d string) string {
	switch {
	case d == "":
		return ""
	case d == "~" || strings.HasPrefix(d, "~/"):
		if p.home == "" {
			return ""
		}
		return filepath.Join(p.home, d[1:])
	case filepath.IsAbs(d):
		return filepath.Clean(d)
	}
	return filepath.Join(p.root, d)
}

func realDir(d string) (string, error) {
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// verdict is the outcome for one item.
type verdict int

const (
	allow verdict = iota
	ask
	deny
)

// Approve implements tool.Approver.
func (p *Policy) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	var denied, readOnly, asked []string
	var allowed string
	var scopes []*Rule
	// A call that only reads runs confined to reading, in every mode, so
	// a mistake in the read-only list cannot write or reach the network.
	confine := tool.ConfineReadOnly
	for _, it := range p.items(req.Tool, req.Access) {
		if it.level >= levelWrite {
			confine = tool.ConfineSession
		}
		j := p.judge(req.Tool, it)
		switch {
		case j.readOnly:
			readOnly = append(readOnly, it.what)
		case j.verdict == deny:
			denied = append(denied, j.reason)
		case j.verdict == ask:
			asked = append(asked, j.reason)
			scopes = append(scopes, it.scope)
		case allowed == "":
			allowed = j.reason
		}
	}
	if len(readOnly) > 0 {
		what := "read-only mode: this call " + strings.Join(dedupe(readOnly), ", ")
		if len(denied) == 0 && p.offer && p.prompter != nil {
			return p.offerOnce(ctx, req, what, dedupe(asked))
		}
		advice := RestartAdvice
		if p.offer {
			advice = SwitchAdvice
		}
		denied = append(denied, what+". "+advice)
	}
	switch {
	case len(denied) > 0:
		return tool.Decision{Reason: strings.Join(dedupe(denied), "; ")}, nil
	case len(asked) > 0:
		d, err := p.ask(ctx, req, dedupe(asked), scopes)
		if d.Allow {
			d.Confine = confine
		}
		return d, err
	}
	if allowed == "" {
		allowed = "nothing in it needs approval"
	}
	return tool.Decision{Allow: true, Reason: allowed, Confine: confine}, nil
}

// How a refusal by read-only mode tells the model what the user can do:
// restart godwit with a flag, or switch the mode where the front end can
// (Options.Offer).
const (
	RestartAdvice = "The user can restart godwit with --allow-write to approve writes and commands one by one, or with --yes to approve them all"
	SwitchAdvice  = "The user can switch the chat to ask mode (Shift-Tab) to approve writes and commands one by one"
)

// offerOnce asks the person about a call read-only mode refuses; a yes
// allows it once, in ask mode's sandbox (tool.ConfineWrite). reasons are
// the other items' reasons to ask. Read-only mode remembers no Always.
func (p *Policy) offerOnce(ctx context.Context, req tool.ApprovalRequest, what string, reasons []string) (tool.Decision, error) {
	q := question(req, append([]string{what}, reasons...))
	q.ReadOnly = true
	switch a, err := p.put(ctx, req, q); {
	case err != nil:
		return tool.Decision{}, err
	case a.Choice == No || a.Choice == Never:
		return tool.Decision{Manual: true, Reason: said(what+"; the user was asked and said no", a)}, nil
	}
	return tool.Decision{Allow: true, Manual: true, Reason: "approved by the user in read-only mode", Confine: tool.ConfineWrite}, nil
}

// put asks the Prompter q, one question at a time.
func (p *Policy) put(ctx context.Context, req tool.ApprovalRequest, q Question) (Answer, error) {
	p.askMu.Lock()
	defer p.askMu.Unlock()
	a, err := p.prompter.Ask(ctx, q)
	if err != nil {
		return a, fmt.Errorf("policy: asking about %s: %w", req.Tool, err)
	}
	return a, nil
}

// said is a refusal's reason with the person's note.
func said(reason string, a Answer) string {
	if a.Note != "" {
		reason += ": " + a.Note
	}
	return reason
}

// NeedsApproval reports whether a read must still be approved (a secret,
// outside the workspace, an ask or deny rule): it implements
// tool.ReadScreener.
func (p *Policy) NeedsApproval(toolName string, acc tool.Access) bool {
	for _, it := range p.items(toolName, acc) {
		if p.judge(toolName, it).verdict != allow {
			return true
		}
	}
	return false
}

// judgement is the outcome for one item.
type judgement struct {
	verdict verdict
	reason  string
	// readOnly marks a denial by read-only mode, reported together.
	readOnly bool
}

// judge decides one item: deny rules and the session's Never answers
// first, then read-only mode for
// writes, then the session's Always answers, then ask and allow rules,
// then the mode's default.
func (p *Policy) judge(toolName string, it item) judgement {
	if r, ok := p.match(p.rules.Deny, toolName, it, true); ok {
		return judgement{deny, fmt.Sprintf("%s: denied by rule %s (%s)", it.what, r.source, r), false}
	}
	if r, ok := p.match(p.refused.list(), toolName, it, true); ok {
		return judgement{deny, fmt.Sprintf("%s: the user refused %s for this session", it.what, r), false}
	}
	if p.mode == ReadOnly && it.level >= levelWrite {
		return judgement{deny, it.what, true}
	}
	if it.hidden != "" && p.commandRules() {
		return judgement{ask, fmt.Sprintf("%s: %s, so the deny and ask rules cannot be checked on it", it.what, it.hidden), false}
	}
	if r, code, ok := p.codeRule(toolName, it.code); ok {
		if strings.HasSuffix(code.what, ")") && strings.Contains(code.what, " can start programs (") {
			return judgement{ask, fmt.Sprintf("%s: %s, which godwit cannot follow, so the deny and ask rules cannot be checked on it", it.what, code.what), false}
		}
		return judgement{ask, fmt.Sprintf("%s: %s mentions %s, which rule %s (%s) names, and godwit cannot tell whether it runs it",
			it.what, code.what, r.literalWords(), r.source, r), false}
	}
	if it.unlisted != "" && p.pathRules(toolName) {
		return judgement{ask, fmt.Sprintf("%s: %s, so the path rules cannot be checked on it", it.what, it.unlisted), false}
	}
	if p.pathRules(toolName) {
		for _, c := range it.code {
			if why := readReason(c.lang, c.interp, c.text); why != "" {
				return judgement{ask, fmt.Sprintf("%s: %s can read files on its own (%s), so the path rules cannot be checked on it", it.what, c.what, why), false}
			}
		}
	}
	if !it.pinned && p.remembered(toolName, it) {
		return judgement{allow, "approved for this session", false}
	}
	if r, ok := p.match(p.rules.Ask, toolName, it, true); ok {
		return judgement{ask, fmt.Sprintf("%s (rule %s)", it.what, r.source), false}
	}
	if it.kind != kindRaw {
		if r, ok := p.match(p.rules.Allow, toolName, it, false); ok {
			return judgement{allow, "allowed by rule " + r.source, false}
		}
	}
	switch {
	case it.level == levelRead:
		return judgement{allow, it.why, false}
	case it.level == levelEscape:
		return judgement{ask, it.what, false} // in every mode
	case p.mode == Auto:
		return judgement{allow, "auto mode", false}
	}
	return judgement{ask, it.what, false}
}

// commandRules reports whether a deny or ask rule looks at commands.
func (p *Policy) commandRules() bool {
	for _, r := range p.guards() {
		if (r.Command != "" || r.Path != "" || r.Tool == "") && r.matchTool("shell_exec") {
			return true
		}
	}
	return false
}

// pathRules reports whether a deny or ask rule names paths for toolName.
func (p *Policy) pathRules(toolName string) bool {
	for _, r := range p.guards() {
		if r.Path != "" && r.matchTool(toolName) {
			return true
		}
	}
	return false
}

// pathRuled reports whether a deny or ask path rule for toolName covers
// abs (absolute, symlinks resolved).
func (p *Policy) pathRuled(toolName, abs string) bool {
	if abs == "" || !p.pathRules(toolName) {
		return false
	}
	it := item{kind: kindPath, abs: abs, rel: relTo(p.root, abs)}
	_, deny := p.match(p.rules.Deny, toolName, it, true)
	_, ask := p.match(p.rules.Ask, toolName, it, true)
	return deny || ask
}

// Hidden reports whether a tool that walks folders (grep, file_list)
// must pass over abs: a deny or ask rule names it. Such a tool cannot
// ask about each file, so it leaves them out and says so.
func (p *Policy) Hidden(toolName, abs string) bool {
	return p.pathRules(toolName) && p.pathRuled(toolName, kernelPath(abs))
}

// codeRule finds a deny or ask command rule whose words appear in code.
func (p *Policy) codeRule(toolName string, code []codeText) (Rule, codeText, bool) {
	if len(code) == 0 {
		return Rule{}, codeText{}, false
	}
	var first *Rule
	for _, r := range p.guards() {
		if r.Command == "" || !r.matchTool(toolName) {
			continue
		}
		if first == nil {
			first = &r
		}
		for _, c := range code {
			if r.mentionedIn(c.text) {
				return r, c, true
			}
		}
	}
	if first == nil {
		return Rule{}, codeText{}, false
	}
	for _, c := range code {
		if api := spawnReason(c.lang, c.text); api != "" {
			c.what += " can start programs (" + api + ")"
			return *first, c, true
		}
	}
	return Rule{}, codeText{}, false
}

func (p *Policy) match(rules []Rule, toolName string, it item, pessimistic bool) (Rule, bool) {
	for _, r := range rules {
		if r.matches(toolName, it, p.root, p.home, pessimistic) {
			return r, true
		}
	}
	return Rule{}, false
}

// matches reports whether r covers it.
func (r Rule) matches(toolName string, it item, root, home string, pessimistic bool) bool {
	// A deny or ask rule naming the tool the model called (tool_call)
	// holds too.
	if !r.matchTool(toolName) && !(pessimistic && it.via != "" && r.matchTool(it.via)) {
		return false
	}
	switch {
	case r.raw != "":
		return it.kind == kindRaw && it.raw == r.raw
	case r.Path != "":
		if it.kind == kindCommand && pessimistic {
			// A deny or ask path rule also holds for a command's
			// arguments: rm secrets/x.
			for _, a := range it.args {
				if r.matchPath(a, relTo(root, a), home, true) {
					return true
				}
			}
			return false
		}
		return it.kind == kindPath && r.matchPath(it.abs, it.rel, home, pessimistic)
	case r.Command != "":
		switch it.kind {
		case kindCommand:
			if !pessimistic {
				return r.matchCommand(it.words, false)
			}
			for _, v := range it.variants {
				if r.matchCommand(v, true) {
					return true
				}
			}
			return false
		case kindRaw:
			// A line we could not analyse might hold anything; a deny or
			// ask rule holds when its program appears in it.
			return pessimistic && r.mentioned(it.raw)
		}
		return false
	}
	return true // a tool-only rule covers every item of the tool
}

func (p *Policy) remembered(toolName string, it item) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.always {
		if r.matches(toolName, it, p.root, p.home, false) {
			return true
		}
	}
	return false
}

// ask puts the question to the Prompter.
func (p *Policy) ask(ctx context.Context, req tool.ApprovalRequest, reasons []string, scopes []*Rule) (tool.Decision, error) {
	if p.prompter == nil {
		return tool.Decision{Reason: "needs the user's approval (" + strings.Join(reasons, "; ") +
			"), but no one can be asked here. The user can allow it with a rule in $GODWIT_HOME/rules.yaml (~/.godwit/rules.yaml), or run godwit interactively with --allow-write"}, nil
	}
	q := question(req, reasons)
	// Always is offered only when every item asked about has a scope to
	// remember (not for a path computed at run time).
	var remember []Rule
	for _, s := range scopes {
		if s == nil {
			remember = nil
			break
		}
		remember = append(remember, *s)
	}
	remember = dedupeRules(remember)
	for _, s := range remember {
		q.Always = append(q.Always, s.String())
	}
	a, err := p.put(ctx, req, q)
	if err != nil {
		return tool.Decision{}, err
	}
	switch a.Choice {
	case Yes:
		return tool.Decision{Allow: true, Manual: true, Reason: "approved by the user"}, nil
	case Always:
		if len(remember) == 0 {
			return tool.Decision{Allow: true, Manual: true, Reason: "approved by the user"}, nil
		}
		p.mu.Lock()
		p.always = append(p.always, remember...)
		p.mu.Unlock()
		p.log.Info("policy: approved for the session", "tool", req.Tool, "scope", strings.Join(q.Always, "; "))
		return tool.Decision{Allow: true, Manual: true, Reason: "approved by the user for the session: " + strings.Join(q.Always, "; ")}, nil
	case Never:
		if len(remember) > 0 {
			p.refused.add(remember)
			p.log.Info("policy: refused for the session", "tool", req.Tool, "scope", strings.Join(q.Always, "; "))
			return tool.Decision{Manual: true, Reason: said("the user said no, for the rest of the session, to "+strings.Join(q.Always, "; "), a)}, nil
		}
	}
	return tool.Decision{Manual: true, Reason: said("the user said no", a)}, nil
}

// question is what the person is asked about req.
func question(req tool.ApprovalRequest, reasons []string) Question {
	q := Question{Tool: req.Tool, Summary: req.Access.Summary, Preview: req.Access.Preview, Reasons: lookalikes(req.Access, reasons)}
	if q.Summary == "" {
		q.Summary = "run " + req.Tool
	}
	if q.Preview == "" && req.Access.Command != "" && req.Access.Command != strings.TrimPrefix(q.Summary, "run: ") {
		q.Preview = req.Access.Command
	}
	return q
}

// guards are the deny and ask rules, and the scopes the user refused
// for the session: a refusal is a deny rule, so what hides a command
// from the rules hides it from a refusal too.
func (p *Policy) guards() []Rule {
	g := append(p.rules.Deny[:len(p.rules.Deny):len(p.rules.Deny)], p.rules.Ask...)
	return append(g, p.refused.list()...)
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func dedupeRules(rs []Rule) []Rule {
	seen := map[string]bool{}
	var out []Rule
	for _, r := range rs {
		k := r.Tool + "\x00" + r.Path + "\x00" + r.Command + "\x00" + r.raw
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// lookalikes adds a reason when the command or the call's summary holds letters
// outside ASCII: a Cyrillic о reads as an o in `git push оrigin`, so the
// person is told which characters are not what they seem.
func lookalikes(acc tool.Access, reasons []string) []string {
	text := acc.Command // else the summary, which names paths as the workspace has them
	if text == "" {
		text = acc.Summary
	}
	if na := termsafe.NonASCII(text, 6); len(na) > 0 {
		reasons = append(append([]string(nil), reasons...), "has characters that are not ASCII (a look-alike reads as another letter): "+strings.Join(na, ", "))
	}
	return reasons
}

// lazyRE compiles expr at its first use, not at start-up.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// wordSet is a set of words, built at first use: a package-level map is
// built at every start of every command (TestInitStaysSmall).
type wordSet struct{ set func() map[string]bool }

// nameSet is the set of s's space-separated words.
func nameSet(s string) wordSet {
	return wordSet{sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, n := range strings.Fields(s) {
			m[n] = true
		}
		return m
	})}
}

func (n wordSet) has(w string) bool { return n.set()[w] }

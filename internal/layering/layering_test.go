package layering

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/godwit/godwit/"

// allowed lists, for every package, the godwit packages its non-test files
// may import, and why. A package missing from this table fails the test:
// a new package must take a deliberate place in the layers; so does an
// allowance the package no longer uses, since it would let the layers
// drift back unnoticed. The core's own bans are in check_test.go.
var allowed = map[string]rule{
	"llm":                     {nil, "the shared vocabulary: depends on nothing"},
	"llm/fake":                {[]string{"llm"}, "a scripted provider speaks only llm"},
	"llm/llmtest":             {[]string{"llm/internal/sse"}, "the wire harness speaks the vendors' wire, so it depends on no adapter it tests, nor on llm; it reads events as they do"},
	"llm/openai":              {[]string{"llm", "llm/internal/retryafter", "llm/internal/sse"}, "adapters translate llm to one vendor's wire"},
	"llm/anthropic":           {[]string{"llm", "llm/internal/retryafter", "llm/internal/sse"}, "adapters translate llm to one vendor's wire"},
	"llm/internal/retryafter": {nil, "the adapters' reading of the wait a provider asks for"},
	"llm/internal/sse":        {nil, "the adapters' reading of server-sent events"},
	"llm/retry":               {[]string{"llm"}, "wraps any llm.Provider"},
	"llm/catalog":             {[]string{"llm"}, "model facts and prices over llm.Usage"},
	"internal/prompt":         {nil, "model-facing text, measured on its own"},
	"internal/untrusted":      {nil, "the injection judge is a pure function of text"},
	"tool":                    {[]string{"llm"}, "the tool contract and runner speak llm tool calls"},
	"event":                   {[]string{"llm", "tool"}, "the session's events, public so that an embedder can name every field"},
	"internal/tool/workspace": {[]string{"tool", "internal/atomicfile"}, "path resolution returns tool errors; every file operation on the workspace goes through its root"},
	"internal/tool/fs":        {[]string{"llm", "tool", "internal/tool/workspace", "internal/ignore"}, "file tools"},
	"internal/tool/shell":     {[]string{"llm", "tool", "internal/hostpath"}, "the shell tool"},
	"internal/tool/plan":      {[]string{"llm", "tool"}, "the plan tool"},
	"internal/store":          {[]string{"llm"}, "persistence knows messages and usage, nothing of the engine"},
	"internal/window":         {[]string{"internal/o200k", "llm", "internal/untrusted"}, "request assembly: pure functions over messages; pages through an interface, so no store"},
	"internal/agent":          {[]string{"event", "internal/handoff", "llm", "internal/store", "tool", "internal/untrusted", "internal/window"}, "the turn loop sits on the core only"},
	"internal/handoff":        {[]string{"llm", "internal/untrusted"}, "handoffs and the ledger rules are pure functions over messages and text"},
	"internal/mcp":            {[]string{"llm", "tool", "internal/tool/workspace"}, "MCP servers' tools as tool.Tool values over the go-sdk; nothing of the engine"},
	"internal/subagent":       {[]string{"internal/agent", "llm", "internal/store", "tool"}, "a read-only child agent; the caller builds its runtime"},
	"internal/tool/deferred":  {[]string{"llm", "tool"}, "splits the tool table and proxies deferred tools"},
	"internal/mail":           {[]string{"internal/agent", "llm", "internal/store", "tool"}, "mail between sessions over the store: residents, claims, receipts, the send_message tool"},
	".":                       {[]string{"event", "internal/agent", "internal/wiring", "llm", "internal/mail", "internal/policy", "internal/store", "tool"}, "the embeddable SDK (experimental), a thin layer over wiring"},
	"internal/policy":         {[]string{"tool", "internal/regfile", "internal/termsafe", "internal/tool/workspace", "internal/gitconfig"}, "approval: modes, rules, shell-command analysis over tool.Access"},
	"internal/sandbox":        {[]string{"internal/atomicfile", "internal/regfile", "internal/gitconfig", "internal/hostpath"}, "Landlock and namespaces for commands; knows nothing of godwit but the whole-file writer, git config's reader and the host's PATH"},
	"internal/snapshot":       {[]string{"internal/store", "tool", "internal/ignore", "internal/tool/workspace"}, "snapshots before writes, undo, watching shell changes"},
	"internal/gitguard":       {[]string{"tool", "internal/atomicfile", "internal/gitconfig"}, "git hooks and config restored around shell commands; wraps the tool only"},
	"internal/memory":         {[]string{"llm", "internal/store", "tool", "internal/tool/workspace"}, "rules, memory files, skills, long-term search; the search_memory and skill tools"},
	"internal/tool/recall":    {[]string{"llm", "internal/store", "tool"}, "recall reads pages and handoffs from the store"},
	"internal/demo":           {[]string{"llm", "llm/fake"}, "the demo's sample and script"},
	"internal/wiring": {[]string{"internal/agent", "llm", "llm/anthropic", "llm/catalog", "llm/openai", "llm/retry", "internal/prompt", "internal/store", "tool", "internal/tool/fs", "internal/tool/plan", "internal/tool/recall", "internal/tool/shell", "internal/tool/workspace", "internal/window", "internal/config", "internal/suggest", "internal/memory", "internal/policy", "internal/sandbox", "internal/snapshot", "internal/gitguard", "internal/mcp", "internal/subagent", "internal/tool/deferred", "internal/mail"},
		"config to engine; shared by cli, acp and eval"},
	"internal/config":     {[]string{"internal/suggest", "llm/catalog", "internal/mcp"}, "config file and defaults"},
	"internal/suggest":    {nil, "did-you-mean: the nearest known word"},
	"internal/hostpath":   {nil, "the programs godwit itself runs, found on PATH outside the folders commands may write"},
	"internal/ignore":     {[]string{"internal/regfile"}, "gitignore files read and matched as git does, for the file tools' and the watcher's walks"},
	"internal/gitconfig":  {[]string{"internal/regfile"}, "git's config files read as git reads them, for policy and gitguard"},
	"internal/digits":     {nil, "counts for people: digits grouped by thousands"},
	"internal/termsafe":   {nil, "untrusted text made safe for a terminal: a pure function of text"},
	"internal/regfile":    {nil, "bounded, non-waiting reads of regular files godwit opens on its own from paths a repository controls"},
	"internal/atomicfile": {nil, "files replaced whole (temp file, fsync, rename), for every writer of a file a reader or a crash must not see half of"},
	"internal/o200k":      {nil, "o200k_base token counts: an embedded vocabulary, a hand-written pre-tokenizer"},
	"internal/cli":        {[]string{"internal/regfile", "internal/agent", "internal/demo", "internal/wiring", "internal/config", "internal/suggest", "llm", "llm/catalog", "internal/store", "tool", "internal/tool/workspace", "internal/trace", "internal/acp", "internal/policy", "internal/snapshot", "internal/tui", "internal/eval", "internal/mail", "internal/termsafe", "internal/atomicfile"}, "commands"},
	"internal/layering":   {nil, "this test"},
	"internal/attack":     {nil, "the attack suite: all in test files, which drive the built binary; the package itself imports nothing"},
	"internal/acp":        {[]string{"internal/agent", "llm", "internal/policy", "internal/store", "tool", "internal/tool/fs", "internal/tool/plan", "internal/tool/shell"}, "the ACP server drives the core and is the policy's Prompter; internal/cli builds its engines with wiring"},
	"internal/tui":        {[]string{"internal/agent", "internal/digits", "llm", "internal/policy", "internal/snapshot", "internal/store", "internal/termsafe", "internal/tool/plan", "internal/atomicfile"}, "the chat UI over the agent's events; the CLI builds its engines"},
	"internal/eval":       {[]string{"internal/regfile", "internal/agent", "internal/digits", "internal/handoff", "internal/config", "internal/wiring", "llm", "llm/fake", "internal/policy", "internal/store", "internal/untrusted", "internal/atomicfile"}, "evals: the real engine via wiring, scripted or real models, judged by checks"},
	"internal/trace":      {[]string{"internal/agent", "internal/digits", "llm", "internal/store"}, "analysis and views of recorded sessions, over the store and agent events"},
	"cmd/godwit":          {[]string{"internal/cli", "internal/sandbox", "internal/tool/shell"}, "main calls the CLI, and first the re-exec entries of the command supervisor and the sandbox"},
	"bench/okserver":      {nil, "a stand-alone endpoint for benchmarks"},
	"bench/floor":         {nil, "start-up's lower bound: links godwit's heavy dependencies, none of godwit"},
	"bench/fsgrep":        {[]string{"internal/tool/fs", "internal/tool/workspace"}, "runs the grep tool from the command line for bench/grep.sh"},
	"bench/longsession":   {[]string{"event", "llm/llmtest"}, "drives the godwit binary against a fake endpoint; speaks only the CLI, --json events and the wire formats"},

	// Test harnesses, named like net/http/httptest: imported by tests only.
	"internal/store/storetest": {[]string{"internal/store"}, "opens stores for tests; a harness over store alone"},
	"internal/peertest":        {nil, "skip or fail for a missing peer program"},
	"internal/goldentest":      {nil, "the golden files' -update convention"},
	"bench/turncost":           {[]string{"llm/llmtest"}, "measures godwit's own CPU per request and per turn, and the database's growth, with the real binary (acp and run) against a fake endpoint"},
}

// TestLayering checks every package's non-test files against the table,
// the core's bans and excuses (check_test.go).
func TestLayering(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := scan(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range check(root, pkgs, allowed, excused) {
		t.Error(p)
	}
}

// TestPackageDocsSayTheirImports checks the import claim of every package
// doc against the table: one sentence, the table's list.
func TestPackageDocsSayTheirImports(t *testing.T) {
	pkgs, err := scan("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range docClaims(pkgs, allowed) {
		t.Error(p)
	}
}

// TestArchitectureDocIsTrue checks what docs/architecture.md says that a
// test can: every package its table names exists and is in the layering
// table, with the same imports ("may import" is the table's allowance,
// "—" none); every Go file or folder it names in backquotes exists. The
// guide must not name packages or files that are gone, nor drift from
// the rules this test enforces.
func TestArchitectureDocIsTrue(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z0-9/.]+)`(?: \\(package `godwit`\\))? \\| .* \\| ([^|]*) \\|$").FindAllStringSubmatch(string(doc), -1)
	if len(rows) < 10 {
		t.Fatalf("found only %d packages in the doc's table; has its format changed?", len(rows))
	}
	for _, m := range rows {
		name := m[1]
		if _, err := os.Stat(filepath.Join("../..", name)); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", name)
		}
		r, ok := allowed[name]
		if !ok {
			t.Errorf("docs/architecture.md names %s, which the layering table lacks", name)
			continue
		}
		var says []string
		if deps := strings.TrimSpace(m[2]); deps != "—" {
			for _, d := range strings.Split(deps, ",") {
				says = append(says, strings.TrimSpace(d))
			}
		}
		want := slices.Clone(r.imports)
		slices.Sort(says)
		slices.Sort(want)
		if !slices.Equal(says, want) {
			t.Errorf("docs/architecture.md says %s may import %v; the layering table allows %v", name, says, want)
		}
	}
	paths := regexp.MustCompile("`((?:internal|llm|tool|cmd|bench|evals|docs)/[a-z0-9_/.-]*[a-z0-9_])`").FindAllStringSubmatch(string(doc), -1)
	for _, m := range paths {
		p := m[1]
		if strings.ContainsAny(p, "*") {
			continue
		}
		if _, err := os.Stat(filepath.Join("../..", p)); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", p)
		}
	}
}

package layering

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

const module = "github.com/godwit/godwit/"

// allowed lists, for every package, the godwit packages its non-test files
// may import, and why. A package missing from this table fails the test:
// a new package must take a deliberate place in the layers; so does an
// allowance the package no longer uses, since it would let the layers
// drift back unnoticed. The core's own bans are in check_test.go.
var allowed = map[string]rule{
	"llm":            {nil, "the shared vocabulary: depends on nothing"},
	"llm/fake":       {[]string{"llm"}, "a scripted provider speaks only llm"},
	"llm/llmtest":    {nil, "the wire harness speaks the vendors' wire, so it depends on no adapter it tests, nor on llm"},
	"llm/openai":     {[]string{"llm"}, "adapters translate llm to one vendor's wire"},
	"llm/anthropic":  {[]string{"llm"}, "adapters translate llm to one vendor's wire"},
	"llm/retry":      {[]string{"llm"}, "wraps any llm.Provider"},
	"llm/catalog":    {[]string{"llm"}, "model facts and prices over llm.Usage"},
	"prompt":         {nil, "model-facing text, measured on its own"},
	"untrusted":      {nil, "the injection judge is a pure function of text"},
	"tool":           {[]string{"llm"}, "the tool contract and runner speak llm tool calls"},
	"tool/workspace": {[]string{"tool"}, "path resolution returns tool errors"},
	"tool/fs":        {[]string{"llm", "tool", "tool/workspace"}, "file tools"},
	"tool/shell":     {[]string{"llm", "tool"}, "the shell tool"},
	"tool/plan":      {[]string{"llm", "tool"}, "the plan tool"},
	"store":          {[]string{"llm"}, "persistence knows messages and usage, nothing of the engine"},
	"window":         {[]string{"llm", "untrusted"}, "request assembly: pure functions over messages; pages through an interface, so no store"},
	"agent":          {[]string{"handoff", "llm", "store", "tool", "untrusted", "window"}, "the turn loop sits on the core only"},
	"handoff":        {[]string{"llm", "untrusted"}, "handoffs and the ledger rules are pure functions over messages and text"},
	"mcp":            {[]string{"llm", "tool"}, "MCP servers' tools as tool.Tool values over the go-sdk; nothing of the engine"},
	"subagent":       {[]string{"agent", "llm", "store", "tool"}, "a read-only child agent; the caller builds its runtime"},
	"tool/deferred":  {[]string{"llm", "tool"}, "splits the tool table and proxies deferred tools"},
	"mail":           {[]string{"agent", "llm", "store", "tool"}, "mail between sessions over the store: residents, claims, receipts, the send_message tool"},
	".":              {[]string{"agent", "internal/wiring", "llm", "mail", "policy", "store", "tool"}, "the embeddable SDK (experimental), a thin layer over wiring"},
	"policy":         {[]string{"tool"}, "approval: modes, rules, shell-command analysis over tool.Access"},
	"sandbox":        {nil, "Landlock for commands; knows nothing of godwit"},
	"snapshot":       {[]string{"store", "tool"}, "snapshots before writes, undo, watching shell changes"},
	"gitguard":       {[]string{"tool"}, "git hooks and config restored around shell commands; wraps the tool only"},
	"memory":         {[]string{"llm", "store", "tool"}, "rules, memory files, skills, long-term search; the search_memory and skill tools"},
	"tool/recall":    {[]string{"llm", "store", "tool"}, "recall reads pages and handoffs from the store"},
	"internal/demo":  {[]string{"llm", "llm/fake"}, "the demo's sample and script"},
	"internal/wiring": {[]string{"agent", "llm", "llm/anthropic", "llm/catalog", "llm/openai", "llm/retry", "prompt", "store", "tool", "tool/fs", "tool/plan", "tool/recall", "tool/shell", "tool/workspace", "window", "internal/config", "internal/suggest", "memory", "policy", "sandbox", "snapshot", "gitguard", "mcp", "subagent", "tool/deferred", "mail"},
		"config to engine; shared by cli, acp and eval"},
	"internal/config":   {[]string{"internal/suggest", "llm/catalog", "mcp"}, "config file and defaults"},
	"internal/suggest":  {nil, "did-you-mean: the nearest known word"},
	"internal/cli":      {[]string{"agent", "internal/demo", "internal/wiring", "internal/config", "internal/suggest", "llm", "llm/catalog", "store", "tool", "tool/workspace", "trace", "acp", "policy", "snapshot", "internal/tui", "eval", "mail"}, "commands"},
	"internal/layering": {nil, "this test"},
	"internal/attack":   {nil, "the attack suite: all in test files, which drive the built binary; the package itself imports nothing"},
	"acp":               {[]string{"agent", "llm", "policy", "store", "tool", "tool/fs", "tool/plan", "tool/shell"}, "the ACP server drives the core and is the policy's Prompter; internal/cli builds its engines with wiring"},
	"internal/tui":      {[]string{"agent", "llm", "policy", "snapshot", "store", "tool/plan"}, "the chat UI over the agent's events; the CLI builds its engines"},
	"eval":              {[]string{"agent", "handoff", "internal/config", "internal/wiring", "llm", "llm/fake", "policy", "store", "untrusted"}, "evals: the real engine via wiring, scripted or real models, judged by checks"},
	"trace":             {[]string{"agent", "llm", "store"}, "analysis and views of recorded sessions, over the store and agent events"},
	"cmd/godwit":        {[]string{"internal/cli", "sandbox", "tool/shell"}, "main calls the CLI, and first the re-exec entries of the command supervisor and the sandbox"},
	"bench/okserver":    {nil, "a stand-alone endpoint for benchmarks"},
	"bench/floor":       {nil, "start-up's lower bound: links godwit's heavy dependencies, none of godwit"},
	"bench/fsgrep":      {[]string{"tool/fs", "tool/workspace"}, "runs the grep tool from the command line for bench/grep.sh"},
	"bench/longsession": {[]string{"llm/llmtest"}, "drives the godwit binary against a fake endpoint; speaks only the CLI, --json events and the wire formats"},

	// Test harnesses, named like net/http/httptest: imported by tests only.
	"store/storetest":     {[]string{"store"}, "opens stores for tests; a harness over store alone"},
	"internal/peertest":   {nil, "skip or fail for a missing peer program"},
	"internal/goldentest": {nil, "the golden files' -update convention"},
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

// TestArchitectureDocIsTrue checks that every package docs/architecture.md
// names in its package table exists, and that every package exists in the
// table: the guide must not name packages that are gone.
func TestArchitectureDocIsTrue(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\|").FindAllStringSubmatch(string(doc), -1)
	if len(named) < 10 {
		t.Fatalf("found only %d packages in the doc's table; has its format changed?", len(named))
	}
	for _, m := range named {
		if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", m[1])
		}
		if _, ok := allowed[m[1]]; !ok {
			t.Errorf("docs/architecture.md names %s, which the layering table lacks", m[1])
		}
	}
}

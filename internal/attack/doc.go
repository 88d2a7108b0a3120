// Package attack is the red team's suite: attacks on godwit's safety,
// kept as data in testdata/attacks, each run against the real binary by
// a scripted model in a fresh git workspace, home and store.
//
// An attack names its class (0 for the gates that held before issue 15,
// 1-8 for the classes of that issue), the modes it runs in, the
// workspace it starts from, the user's rules, and the tool calls the
// model makes. After the run the suite reads what the fake endpoint
// received and what changed on disk: no secret marker in any request, no
// file outside the workspace changed, no marker a payload would create,
// .git/hooks, .git/config and .godwit unchanged, no process left behind,
// and what each attack adds. Attacks that break on today's code are
// marked broken per mode, so the suite passes while reporting them, and
// fails when one of them starts to hold (remove the mark) or when a
// holding attack breaks. A control run replays each shell attack with
// plain bash, with no godwit in the way, and must break: an attack that
// holds only because its payload does not work proves nothing.
//
// In internal/attack (go test shows a passing package's output only in
// its own folder, or with -v):
//
//	go test -attack.report                   # the table: tried, held, broke
//	go test -run 'TestAttacks/6-'            # one class
//	go test -attack.update                   # rewrite the broken marks
//	ATTACK_REPORT=f.md go test               # the table into f.md
//	ATTACK_GODWIT=/path/to/godwit go test    # skip building the binary
//	go test -v -run 'TestAttacks/3-diff-rn'  # what the tools returned
//
// All of it lives in test files; the package itself has no code. It
// imports none of godwit's packages.
package attack

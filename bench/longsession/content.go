package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// The text the sessions read and paste: code-like files and CI logs,
// generated from a seed so every run of the bench sees the same bytes,
// and distinct per file so no two outputs share a cache prefix.

var (
	nouns = []string{"cache", "ledger", "segment", "parser", "buffer", "index", "token", "window", "client", "server",
		"queue", "worker", "router", "session", "record", "page", "budget", "snapshot", "policy", "handler",
		"stream", "frame", "header", "cursor", "schema", "column", "tenant", "quota", "lease", "shard"}
	verbs = []string{"load", "store", "merge", "split", "count", "flush", "parse", "render", "check", "apply",
		"resolve", "fetch", "encode", "decode", "trim", "scan", "drain", "lock", "watch", "retry"}
	types = []string{"int", "string", "[]byte", "error", "bool", "uint64", "time.Duration", "map[string]int", "*Entry", "[]Item"}
	notes = []string{"keeps the order stable across restarts", "must not block the caller", "is safe for concurrent use",
		"returns ErrClosed after Close", "counts bytes, not runes", "is rebuilt on the next flush",
		"was measured at 3 allocations per call", "trims trailing spaces before hashing", "never holds the lock across I/O",
		"drops entries older than the lease", "reports a partial result on timeout", "is sorted by key, then by sequence"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func title(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

func ident(r *rand.Rand) string {
	n := pick(r, nouns)
	if r.IntN(3) == 0 {
		n += title(pick(r, nouns))
	}
	return n
}

func exported(r *rand.Rand) string { return title(pick(r, verbs)) + title(pick(r, nouns)) }

// tableRow is a line of numbers, which tokenize densely.
func tableRow(r *rand.Rand) string {
	return fmt.Sprintf("\t\t{0x%04x, 0x%04x, %d, %d, 0x%05x, %d, 0x%02x, %d}, // %s %d",
		r.IntN(1<<16), r.IntN(1<<16), r.IntN(99999), r.IntN(9999), r.IntN(1<<20), r.IntN(999), r.IntN(256), r.IntN(9999), pick(r, nouns), r.IntN(64))
}

// codeBlock is one function of plausible Go with a doc comment, about
// 10 to 40 lines. Dense blocks carry tables of numbers.
func codeBlock(r *rand.Rand, dense bool) []string {
	name := exported(r)
	a, b, recv := ident(r), ident(r), exported(r)
	lines := []string{
		fmt.Sprintf("// %s %ss the %s of a %s and returns the %s; it %s.", name, pick(r, verbs), pick(r, nouns), pick(r, nouns), pick(r, nouns), pick(r, notes)),
		fmt.Sprintf("// The caller holds no lock; %s %s.", ident(r), pick(r, notes)),
		fmt.Sprintf("func (s *%s) %s(ctx context.Context, %s %s, %s %s) (%s, error) {", recv, name, a, pick(r, types), b, pick(r, types), pick(r, types)),
	}
	for i, n := 0, 4+r.IntN(8); i < n; i++ {
		k := r.IntN(7)
		if dense && r.IntN(3) > 0 {
			k = 5
		}
		switch k {
		case 0:
			lines = append(lines, fmt.Sprintf("\tif %s == nil || len(s.%s) > %d {", a, ident(r), r.IntN(4096)),
				fmt.Sprintf("\t\treturn nil, fmt.Errorf(\"%s: %s %%w\", ErrClosed)", strings.ToLower(name), pick(r, notes)), "\t}")
		case 1:
			lines = append(lines, fmt.Sprintf("\tfor i, %s := range s.%s[%d:] {", ident(r), b, r.IntN(64)),
				fmt.Sprintf("\t\ts.%s += len(%s[i]) * %d // %s", ident(r), a, 1+r.IntN(16), pick(r, notes)), "\t}")
		case 2:
			lines = append(lines, fmt.Sprintf("\t%s, %s := s.%s(ctx, %s, %d, %q)", b, ident(r), strings.ToLower(exported(r)), a, r.IntN(4096), ident(r)))
		case 3:
			lines = append(lines, fmt.Sprintf("\t// %s: the %s %s, and the %s %s.", ident(r), pick(r, nouns), pick(r, notes), pick(r, nouns), pick(r, notes)))
		case 4:
			lines = append(lines, "\ts.mu.Lock()", fmt.Sprintf("\ts.%s[%q] = append(s.%s[%q], %s)", ident(r), ident(r), ident(r), ident(r), b), "\ts.mu.Unlock()")
		case 5:
			lines = append(lines, fmt.Sprintf("\t%s := [][8]uint32{", ident(r)))
			rows := 1 + r.IntN(2)
			if dense {
				rows = 2 + r.IntN(5)
			}
			for range rows {
				lines = append(lines, tableRow(r))
			}
			lines = append(lines, "\t}")
		default:
			lines = append(lines, fmt.Sprintf("\tif err := s.%s.%s(ctx, %s); err != nil {", ident(r), exported(r), a),
				fmt.Sprintf("\t\treturn nil, fmt.Errorf(\"%s %s: %%w\", err)", strings.ToLower(name), ident(r)), "\t}")
		}
	}
	return append(lines, fmt.Sprintf("\treturn %s, nil", b), "}", "")
}

// codeFile returns a file of at least tokens o200k tokens. dense files
// carry more numbers, so a window-sized file stays under file_read's
// byte cap. inject, when set, is a paragraph placed in a comment a fifth
// of the way into the file, as ordinary text among the rest: early enough
// that a model shown only a file's head (a small window's share) sees it.
func codeFile(count func(string) int, seed uint64, tokens int, dense bool, inject string) string {
	r := rand.New(rand.NewPCG(seed, 0x10c5e55))
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pick(r, nouns))
	injected := inject == ""
	// Add functions until the file reaches tokens; a function that would
	// pass it by much is skipped for a shorter one.
	for tries := 0; tries < 50; {
		n := count(b.String())
		if n >= tokens {
			break
		}
		block := strings.Join(codeBlock(r, dense), "\n") + "\n"
		if m := count(block); injected && n > tokens*9/10 && n+m > tokens+tokens/50 {
			tries++
			continue
		}
		if !injected && n > tokens/5 {
			block = "// Notes for maintainers: the " + pick(r, nouns) + " layer was rewritten last spring. " + inject +
				" The old API stays until v3.\n" + block
			injected = true
		}
		b.WriteString(block)
	}
	return b.String()
}

// ciLog returns a realistic build and test log of about tokens tokens,
// with one or two failures; like real logs it carries lines that read
// like instructions ("must", "never", "don't").
func ciLog(count func(string) int, seed uint64, tokens int) string {
	r := rand.New(rand.NewPCG(seed, 0xc1109))
	pkg := func() string { return "github.com/acme/" + pick(r, nouns) + "/" + pick(r, nouns) }
	test := "Test" + exported(r)
	failPkg := pkg()
	head := []string{
		fmt.Sprintf("$ make ci  # run %d, commit %07x", 4000+r.IntN(999), r.Uint32()>>4),
		"go vet ./...",
		fmt.Sprintf("go build -o bin/%s ./cmd/%s", pick(r, nouns), pick(r, nouns)),
		"go test -race -count=1 ./...",
	}
	fails := []string{
		fmt.Sprintf("--- FAIL: %s (%d.%02ds)", test, r.IntN(3), r.IntN(100)),
		fmt.Sprintf("    %s_test.go:%d: %s(%q) = %d, want %d", pick(r, nouns), 20+r.IntN(400), exported(r), ident(r), r.IntN(50), r.IntN(50)),
		fmt.Sprintf("    %s_test.go:%d: the %s must be flushed before Close; got %d pending", pick(r, nouns), 20+r.IntN(400), pick(r, nouns), 1+r.IntN(9)),
		"FAIL",
		fmt.Sprintf("FAIL\t%s\t%d.%03ds", failPkg, r.IntN(9), r.IntN(1000)),
	}
	warn := []string{
		"warning: never call t.Fatal from a goroutine other than the test's (" + pick(r, nouns) + "_test.go:" + fmt.Sprint(10+r.IntN(300)) + ")",
		"hint: don't forget to run `go mod tidy` after changing go.mod",
		fmt.Sprintf("level=WARN msg=\"%s lease expired\" %s=%d must_retry=true", pick(r, nouns), ident(r), r.IntN(999)),
	}
	tail := []string{"make: *** [Makefile:" + fmt.Sprint(10+r.IntN(80)) + ": test] Error 1", fmt.Sprintf("CI finished in %dm%02ds: FAILED", 1+r.IntN(9), r.IntN(60))}
	// Sixty lines of passing packages (a few more for a long log: the
	// first sixty, and so the shorter logs, stay the same).
	var okLines []string
	for range max(60, tokens/12) {
		okLines = append(okLines, fmt.Sprintf("ok  \t%s\t%d.%03ds", pkg(), r.IntN(5), r.IntN(1000)))
	}
	build := func(k int) string {
		var lines []string
		lines = append(lines, head...)
		half := k / 2
		lines = append(lines, okLines[:half]...)
		lines = append(lines, warn[:2]...)
		lines = append(lines, fails...)
		lines = append(lines, warn[2])
		lines = append(lines, okLines[half:k]...)
		lines = append(lines, tail...)
		return strings.Join(lines, "\n")
	}
	// The fewest passing lines that reach tokens (a search: counting
	// each length of a long log in turn took seconds).
	k := sort.Search(len(okLines), func(k int) bool { return count(build(k)) >= tokens })
	return build(k)
}

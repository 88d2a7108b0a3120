package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Start-up is budgeted (bench/startup.sh: 30 ms, 25 MiB for a one-shot
// run), and Go runs every linked package's init on every command, so
// what init does is pinned here by what it allocates: a count that does
// not vary with the machine's load, unlike a timing.

// heavyInit are packages whose init alone cost a one-shot run tens of
// milliseconds (chroma parsed ~250 embedded XML lexers at init), pulled
// in by glamour; internal/tui renders goldmark's tree itself instead
// (goldmark's inits allocate about 550 KB, within initBudget).
var heavyInit = []string{
	"github.com/alecthomas/chroma",
	"charm.land/glamour",
	"github.com/microcosm-cc/bluemonday",
}

const (
	// initBudget bounds what all package inits allocate together (890 KB
	// with goldmark; 5.2 MB with glamour linked).
	initBudget = 1 << 20
	// ownInitBudget bounds each of godwit's own packages: a package-level
	// regexp or table costs every command, so build it on first use.
	ownInitBudget = 16 << 10
)

func TestInitStaysSmall(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "version")
	cmd.Env = append(baseEnv(), "GODEBUG=inittrace=1", "GODWIT_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("godwit version: %v\n%s", err, stderr.String())
	}
	total, n := 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkg := f[1]
		bytes, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unexpected inittrace line %q", sc.Text())
		}
		n++
		total += bytes
		for _, h := range heavyInit {
			if strings.HasPrefix(pkg, h) {
				t.Errorf("%s is linked: its init costs every command tens of ms (see heavyInit)", pkg)
			}
		}
		if strings.HasPrefix(pkg, "github.com/godwit/godwit") && bytes > ownInitBudget {
			t.Errorf("%s allocates %d bytes at init (budget %d): build it on first use (sync.OnceValue)", pkg, bytes, ownInitBudget)
		}
	}
	if n == 0 {
		t.Fatalf("no inittrace lines in:\n%s", stderr.String())
	}
	if total > initBudget {
		t.Errorf("package inits allocate %d bytes together (budget %d); find the new one with: GODEBUG=inittrace=1 godwit version 2>&1 | sort -k7 -n", total, initBudget)
	}
	t.Logf("%d package inits allocate %d bytes", n, total)
}

// TestLinkerDropsUnusedMethods: a reachable call of reflect's Method or
// MethodByName (text/template's Execute makes one) forces the linker to
// keep every exported method of every type. With the provider SDKs that
// was 22 MB of binary and ~7 MB of resident memory on every run.
func TestLinkerDropsUnusedMethods(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("links the binary once more")
	}
	cmd := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", os.DevNull, ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -ldflags=-dumpdep: %v\n%.2000s", err, out)
	}
	var chains []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "<ReflectMethod>") {
			chains = append(chains, l)
		}
	}
	if len(chains) > 0 {
		if len(chains) > 20 {
			chains = chains[:20]
		}
		t.Errorf("dead-method elimination is off; what reaches reflect's Method lookup (go build -ldflags=-dumpdep ./cmd/godwit 2>&1 | grep ReflectMethod):\n%s",
			strings.Join(chains, "\n"))
	}
}

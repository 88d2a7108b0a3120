//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// devices may be written even in read-only mode.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// Status reports the Landlock ABI version the kernel offers, or
// ErrUnsupported.
func Status() (abi int, err error) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%w on this kernel (%v)", ErrUnsupported, err)
	}
	return v, nil
}

// Wrap returns the function tool/shell calls on every command before it
// starts (shell.Options.Wrap). Where Landlock is missing it logs one
// warning and returns a function that only sets TMPDIR.
func Wrap(cfg Config) func(*exec.Cmd) error {
	log := logger(cfg.Logger)
	noSandbox := tempOnly(cfg.TempDir)
	abi, err := Status()
	if err != nil {
		log.Warn("sandbox: Landlock is not available, so shell commands run without a sandbox, behind the approval gates only", "err", err)
		return noSandbox
	}
	if !cfg.Network && abi < 4 {
		log.Warn("sandbox: this kernel's Landlock cannot restrict the network (needs ABI 4, Linux 6.7); commands keep network access", "abi", abi)
	}
	exe, err := os.Executable()
	if err != nil {
		log.Warn("sandbox: cannot find godwit's own executable, so shell commands run without a sandbox", "err", err)
		return noSandbox
	}
	p := payload{Writable: cfg.Writable, ReadOnly: cfg.ReadOnly, Network: cfg.Network, Limits: cfg.Limits}
	caches := cfg.Caches
	if p.ReadOnly {
		p.Writable, caches = nil, nil
	}
	if caches != nil {
		p.Writable = append(p.Writable[:len(p.Writable):len(p.Writable)], caches.Dir())
	}
	return func(cmd *exec.Cmd) error {
		var extra []string
		if caches != nil {
			extra = caches.Env() // also makes the folder, which Landlock needs to exist
		}
		p := p
		if ns := cfg.View.namespaces(exe); ns != nil {
			vp, err := cfg.View.payload(cfg.TempDir, p.Writable)
			if err != nil {
				return err
			}
			p.View, p.UserNS = vp, ns.user
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			ns.apply(cmd.SysProcAttr)
		}
		return rewrite(cmd, exe, p, cfg.TempDir, extra)
	}
}

// MaybeRunChild is the sandbox side of Wrap: when the process was started
// as a sandbox child it applies the Landlock ruleset and execs the real
// command, and never returns; started as a GOCACHEPROG (Caches) it serves
// the go command and exits. Otherwise it returns at once. Call it first
// thing in main (and in TestMain of tests that sandbox commands).
func MaybeRunChild() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case childArg:
		os.Exit(runChild(os.Args[2:]))
	case goCacheArg:
		os.Exit(runGoCache(os.Args[2:]))
	case probeArg:
		os.Exit(runProbe())
	}
}

// runChild returns only on failure, with the exit status bash uses for
// a command that cannot run. Its messages go to stderr: that is the
// command's output, which the model reads.
func runChild(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "godwit sandbox: no command to run")
		return 126
	}
	var p payload
	if err := json.Unmarshal([]byte(os.Getenv(envVar)), &p); err != nil {
		fmt.Fprintf(os.Stderr, "godwit sandbox: bad %s: %v\n", envVar, err)
		return 126
	}
	if p.View != nil {
		if err := enterView(p.View); err != nil {
			fmt.Fprintf(os.Stderr, "godwit sandbox: %v; the command did not run\n", err)
			return 126
		}
	}
	if err := limit(p.Limits, p.UserNS); err != nil {
		fmt.Fprintf(os.Stderr, "godwit sandbox: %v; the command did not run\n", err)
		return 126
	}
	if err := restrict(p); err != nil {
		fmt.Fprintf(os.Stderr, "godwit sandbox: %v; the command did not run\n", err)
		return 126
	}
	err := syscall.Exec(args[0], args[1:], childEnv())
	fmt.Fprintf(os.Stderr, "godwit sandbox: exec %s: %v\n", args[0], err)
	return 127
}

// limit sets the rlimits of l on this process (the command inherits
// them), soft and hard, never above the hard limit in force. The
// process count only binds in a user namespace of the command's own:
// elsewhere the kernel counts every process of the user, and none of
// root's.
func limit(l Limits, userNS bool) error {
	set := func(what int, v uint64) error {
		var cur unix.Rlimit
		if err := unix.Getrlimit(what, &cur); err != nil {
			return err
		}
		v = min(v, cur.Max)
		return unix.Setrlimit(what, &unix.Rlimit{Cur: v, Max: v})
	}
	if l.FileSize > 0 {
		if err := set(unix.RLIMIT_FSIZE, uint64(l.FileSize)); err != nil {
			return fmt.Errorf("limiting file size: %w", err)
		}
	}
	if l.Processes > 0 && userNS && os.Getuid() != 0 {
		if err := set(unix.RLIMIT_NPROC, uint64(l.Processes)); err != nil {
			return fmt.Errorf("limiting processes: %w", err)
		}
	}
	return nil
}

// restrict applies the ruleset to this process.
func restrict(p payload) error {
	abi, _ := Status()
	read := landlock.RODirs("/")
	if p.Network {
		read = read.WithResolveUnix()
	}
	rules := []landlock.Rule{read, landlock.RWFiles(devices...).IgnoreIfMissing()}
	var dirs, files []string
	for _, w := range p.Writable {
		fi, err := os.Stat(w)
		switch {
		case err != nil:
			continue // a folder from rules that does not exist yet
		case fi.IsDir():
			dirs = append(dirs, w)
		default:
			files = append(files, w)
		}
	}
	if len(dirs) > 0 {
		rw := landlock.RWDirs(dirs...).IgnoreIfMissing()
		if abi >= 2 { // moving files between folders needs "refer"; asking for it on ABI 1 would disable Landlock
			rw = rw.WithRefer()
		}
		if p.Network {
			rw = rw.WithResolveUnix()
		}
		rules = append(rules, rw)
	}
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...).IgnoreIfMissing())
	}
	cfg := landlock.V11
	if p.Network {
		cfg.HandledAccessNet = 0
		cfg.Scoped &^= landlock.ScopedSet(llsys.ScopeAbstractUnixSocket)
	}
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		return fmt.Errorf("applying Landlock: %w", err)
	}
	return nil
}

//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/godwit/godwit/internal/regfile"
)

// apply asks for the namespaces. The process the command starts with
// (its supervisor, or the sandbox child) is created in new mount and PID
// namespaces; with a.user in a new user namespace too, mapping only
// godwit's own ids, where that process has CAP_SYS_ADMIN as an ambient
// capability for the child's mounts. The sandbox child clears it before
// the exec, and a process whose uid is not 0 keeps no capability across
// an exec.
func (a nsAttr) apply(sys *syscall.SysProcAttr) {
	sys.Cloneflags |= syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
	if a.user {
		sys.Cloneflags |= syscall.CLONE_NEWUSER
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		sys.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
}

// probeArg marks the re-executed binary as the probe: can namespaces be
// made, and /proc mounted in them?
const probeArg = "__godwit_sandbox_probe"

// refuseEnv, set to 1, makes the probe fail as a kernel that forbids
// namespaces would: the tests' knob for the fallback. Only the probe
// reads it.
const refuseEnv = "GODWIT_TEST_REFUSE_NAMESPACES"

// namespaces is the View's nsAttr, found by a probe at the first call;
// nil when none can be made (Refused is told once).
func (v *View) namespaces(exe string) *nsAttr {
	if v == nil {
		return nil
	}
	v.once.Do(func() {
		tries := []nsAttr{{user: true}}
		if os.Geteuid() == 0 {
			tries = []nsAttr{{}, {user: true}} // root without CAP_SYS_ADMIN still has user namespaces
		}
		var errs []string
		for _, a := range tries {
			cmd := exec.Command(exe, probeArg)
			cmd.SysProcAttr = &syscall.SysProcAttr{}
			a.apply(cmd.SysProcAttr)
			out, err := cmd.CombinedOutput()
			if err == nil {
				v.ns = &a
				return
			}
			msg := strings.TrimSpace(string(out))
			if msg == "" {
				msg = err.Error()
			}
			if !slices.Contains(errs, msg) {
				errs = append(errs, msg)
			}
		}
		if v.Refused != nil {
			v.Refused(fmt.Errorf("sandbox: namespaces cannot be made here (%s)", strings.Join(errs, "; ")))
		}
	})
	return v.ns
}

// payload is the child's part of v for one command. Keep gains the
// workspace, the folders commands may write and the temp folder, which
// a hidden folder must not take away.
func (v *View) payload(tmp string, writable []string) (*viewPayload, error) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/mnt", &st); err != nil {
		return nil, fmt.Errorf("sandbox: godwit's mount namespace: %w", err)
	}
	p := &viewPayload{Hidden: v.Hidden, GitConfigs: v.GitConfigs, Stage: tmp, HostMnt: st.Ino}
	if p.Stage == "" {
		p.Stage = os.TempDir()
	}
	p.Keep = append(slices.Concat(v.Keep, writable), p.Stage)
	if v.Workspace != "" {
		p.Keep = append(p.Keep, v.Workspace)
		p.GitDir = filepath.Join(v.Workspace, ".git")
	}
	if v.Secrets != nil {
		p.Secrets = cover(v.Secrets(), v.Workspace, maxSecrets)
	}
	return p, nil
}

// runProbe is the probe child: it does what every command's child will
// (new namespaces, a private mount tree, a fresh /proc) and exits.
func runProbe() int {
	if os.Getenv(refuseEnv) == "1" {
		fmt.Fprintln(os.Stderr, refuseEnv+"=1")
		return 1
	}
	if err := privateProc(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// privateProc makes this mount namespace's mounts private (nothing
// mounted here reaches godwit's) and mounts a /proc of this PID
// namespace over the old one.
func privateProc() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}

// enterView makes the view in this process's own mount namespace, before
// Landlock and the exec: a fresh /proc; a scratch tmpfs on v.Stage holds
// an empty file, an empty folder and the git configs without
// credentials, is made read-only, and each is bound over what it hides,
// then the real folder is bound back over the scratch; the workspace's git
// folder is pinned (bound on itself, so it cannot be renamed away), its
// hooks bound read-only on themselves; hidden folders holding a Keep
// path get a read-only tmpfs with the kept folders bound back in.
func enterView(v *viewPayload) error {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/mnt", &st); err != nil || st.Ino == v.HostMnt {
		return fmt.Errorf("not in a mount namespace of its own (%v): nothing is mounted", err)
	}
	if err := privateProc(); err != nil {
		return err
	}
	keeps := map[string]int{} // kept folder -> an O_PATH descriptor, opened before anything covers it
	for _, k := range v.Keep {
		if fd, err := unix.Open(k, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
			keeps[k] = fd
		}
	}
	git := findGit(v.GitDir)
	configs := append(git.configs, v.GitConfigs...)

	stage, err := unix.Open(v.Stage, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("the scratch's folder: %w", err)
	}
	defer unix.Close(stage)
	const scratchFlags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if err := unix.Mount("tmpfs", v.Stage, "tmpfs", scratchFlags, "size=16m,mode=0755"); err != nil {
		return fmt.Errorf("scratch tmpfs on %s: %w", v.Stage, err)
	}
	empty, emptyDir := filepath.Join(v.Stage, "empty"), filepath.Join(v.Stage, "dir")
	if err := os.WriteFile(empty, nil, 0o444); err != nil {
		return err
	}
	if err := os.Mkdir(emptyDir, 0o555); err != nil {
		return err
	}
	clean := map[string]string{} // git config -> its copy without credentials
	for i, c := range configs {
		b, err := readGitFile(c)
		if errors.Is(err, os.ErrNotExist) {
			continue // absent
		}
		if err != nil {
			clean[c] = empty // not a file read here (a FIFO, over 1 MiB): hidden whole
			continue
		}
		copyPath := filepath.Join(v.Stage, "git"+strconv.Itoa(i))
		if err := os.WriteFile(copyPath, cleanGitConfig(b), 0o644); err != nil {
			return err
		}
		clean[c] = copyPath
	}
	if err := unix.Mount("", v.Stage, "", unix.MS_REMOUNT|unix.MS_RDONLY|scratchFlags, ""); err != nil {
		return fmt.Errorf("scratch read-only: %w", err)
	}

	if git.pin != "" {
		if err := bind(git.pin, git.pin, git.pinReadOnly); err != nil {
			return err
		}
	}
	for c, copyPath := range clean {
		if err := bind(copyPath, c, false); err != nil {
			return err
		}
	}
	for _, h := range git.hooks {
		if err := bind(h, h, true); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	for _, s := range v.Secrets { // files, or folders of them (cover)
		real, err := filepath.EvalSymlinks(s)
		if err != nil {
			continue
		}
		fi, err := os.Stat(real)
		switch {
		case err != nil:
		case fi.IsDir():
			err = bind(emptyDir, real, false)
		case fi.Mode().IsRegular():
			err = bind(empty, real, false)
		}
		if err != nil {
			return err
		}
	}
	var withKeeps []string
	for _, h := range v.Hidden {
		real, err := filepath.EvalSymlinks(h)
		if err != nil {
			continue // not there anyway
		}
		fi, err := os.Stat(real)
		switch {
		case err != nil:
		case !fi.IsDir():
			err = bind(empty, real, false)
		case holdsAny(real, keeps):
			withKeeps = append(withKeeps, real)
		default:
			err = bind(emptyDir, real, false)
		}
		if err != nil {
			return err
		}
	}
	// The real folder goes back on top of the scratch: cheaper than an
	// unmount, which waits for an RCU grace period.
	if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(stage), v.Stage, "", unix.MS_BIND, ""); err != nil { // not MS_REC: that would bring the scratch along
		return fmt.Errorf("covering the scratch: %w", err)
	}
	for _, h := range withKeeps {
		if err := coverKeeping(h, keeps); err != nil {
			return err
		}
	}
	for _, fd := range keeps {
		unix.Close(fd)
	}
	// Nothing the command runs may undo these mounts. Landlock already
	// forbids mount changes; besides, root (in a user namespace too)
	// loses CAP_SYS_ADMIN (and CAP_SYS_RESOURCE, which would lift the
	// rlimits) for good, and any other user's ambient capability goes,
	// so the exec drops the rest.
	if os.Getuid() == 0 {
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_ADMIN, 0, 0, 0)
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_RESOURCE, 0, 0, 0)
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	return nil
}

// bind mounts src over dst, read-only when ro (a bind's flags change
// only by a remount).
func bind(src, dst string, ro bool) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("hiding %s: %w", dst, err)
	}
	if ro {
		if err := unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("making %s read-only: %w", dst, err)
		}
	}
	return nil
}

// coverKeeping mounts a read-only tmpfs over the folder h with the kept
// folders under it bound back in place.
func coverKeeping(h string, keeps map[string]int) error {
	if err := unix.Mount("tmpfs", h, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=64k,mode=0755"); err != nil {
		return fmt.Errorf("hiding %s: %w", h, err)
	}
	for k, fd := range keeps {
		if !within(h, k) || k == h {
			continue
		}
		if err := os.MkdirAll(k, 0o755); err != nil {
			return err
		}
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fd), k, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("keeping %s: %w", k, err)
		}
	}
	if err := unix.Mount("", h, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("hiding %s read-only: %w", h, err)
	}
	return nil
}

func holdsAny(dir string, keeps map[string]int) bool {
	for k := range keeps {
		if within(dir, k) {
			return true
		}
	}
	return false
}

func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// gitView is what the view changes of a repository: the folder (or
// .git file) pinned in place, its config files, its hooks folders.
type gitView struct {
	pin         string
	pinReadOnly bool // a .git file: nothing in it may change
	configs     []string
	hooks       []string
}

// gitData are git's folders that hold no config or hooks.
var gitData = map[string]bool{"objects": true, "refs": true, "logs": true, "lfs": true, "info": true, "rr-cache": true}

// findGit finds the git folders of the repository whose .git is at
// dotGit: the folder itself, or the one a .git file names and its common
// folder (a linked worktree), and the submodules' under modules/.
func findGit(dotGit string) gitView {
	var g gitView
	fi, err := os.Lstat(dotGit)
	if err != nil {
		return g
	}
	dirs := []string{dotGit}
	g.pin = dotGit
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return gitView{} // a link: git follows it, and so may the binds; leave it to the screen
		}
		g.pinReadOnly = true
		b, err := readGitFile(dotGit)
		gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if err != nil || !ok {
			return g
		}
		gd = strings.TrimSpace(gd)
		if !filepath.IsAbs(gd) {
			gd = filepath.Join(filepath.Dir(dotGit), gd)
		}
		dirs = []string{gd}
		if c, err := readGitFile(filepath.Join(gd, "commondir")); err == nil {
			common := strings.TrimSpace(string(c))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gd, common)
			}
			dirs = append(dirs, filepath.Clean(common))
		}
	}
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(d, p)
			top, _, _ := strings.Cut(rel, string(filepath.Separator))
			switch {
			case rel == ".":
			case e.IsDir() && e.Name() == "hooks":
				g.hooks = append(g.hooks, p)
				return filepath.SkipDir
			case !e.IsDir() && (e.Name() == "config" || e.Name() == "config.worktree"):
				g.configs = append(g.configs, p)
			case e.IsDir() && (top != "modules" && top != "worktrees" || gitData[e.Name()]):
				return filepath.SkipDir // nothing of git's config
			}
			return nil
		})
	}
	return g
}

// readGitFile reads a file of git's (.git, commondir, a config) for the
// view: a regular file of at most 1 MiB, opened without waiting. A
// workspace that was no repository may get its .git from a command, with
// a commondir or config that is a FIFO (the open waited for a writer,
// and the next command never started) or a link to /dev/zero.
func readGitFile(p string) ([]byte, error) {
	if fi, err := os.Stat(p); err == nil && regfile.IsNull(fi) {
		// ~/.gitconfig -> /dev/null: nothing to clean, and a copy bound
		// there would cover the command's /dev/null.
		return nil, os.ErrNotExist
	}
	return regfile.Read(p, maxGitFile)
}

// maxGitFile bounds readGitFile, as gitconfig.MaxSize bounds a config.
const maxGitFile = 1 << 20

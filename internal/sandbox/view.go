package sandbox

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/gitconfig"
)

// View is what a command sees of the machine in mount and PID namespaces
// of its own (Linux; a user namespace too where godwit is not root; see
// the package doc). One View serves every Wrap of a session and probes
// once, at the first command, whether namespaces can be made; where they
// cannot, commands run under Landlock only and Refused hears why, once.
type View struct {
	// Workspace is the repository whose git config and hooks are shown
	// read-only, its config without credentials.
	Workspace string
	// Secrets returns the files that must appear empty (the workspace's
	// secrets files, absolute); it is called at each command.
	Secrets func() []string
	// Hidden are folders and files that must not be there: see
	// HomeSecrets, and GODWIT_HOME.
	Hidden []string
	// Keep are folders under Hidden that stay (godwit's caches, the
	// user's skills): mounted back in place.
	Keep []string
	// GitConfigs are more git config files shown without credentials
	// (the user's ~/.gitconfig); the workspace's own are found.
	GitConfigs []string
	// Refused, when set, is told once why commands run without the view.
	Refused func(error)

	once sync.Once
	ns   *nsAttr // nil: no namespaces here
}

// nsAttr is how a command gets namespaces of its own: with user, a
// user namespace too (where godwit is not root).
type nsAttr struct{ user bool }

// HomeSecrets are the credential folders and files under the user's home
// that commands must not see: tools' own (a file alone where its folder
// holds caches or programs), and the shell's rc files and histories,
// where API keys are exported and typed.
func HomeSecrets(home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for _, p := range []string{".ssh", ".aws", ".netrc", ".config/gh", ".docker", ".git-credentials",
		".config/git/credentials", ".gnupg", ".kube", ".npmrc", ".pypirc", ".pgpass", ".vault-token",
		".config/gcloud", ".azure", ".cargo/credentials.toml", ".cargo/credentials", ".terraform.d/credentials.tfrc.json",
		".gem/credentials", ".config/hub", ".m2/settings.xml", ".gradle/gradle.properties", ".config/rclone",
		".config/composer/auth.json", ".composer/auth.json", ".config/pip/pip.conf", ".pip/pip.conf", ".yarnrc.yml", ".yarnrc",
		".config/containers/auth.json", ".password-store", ".local/share/keyrings", ".config/op",
		".cache/huggingface/token", ".huggingface/token",
		".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile",
		".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history", ".node_repl_history"} {
		out = append(out, filepath.Join(home, filepath.FromSlash(p)))
	}
	return out
}

// GitConfigs are the user's own git config files under home.
func GitConfigs(home string) []string {
	if home == "" {
		return nil
	}
	return []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")}
}

// viewPayload is what the sandbox child needs of a View.
type viewPayload struct {
	Secrets    []string `json:"secrets,omitempty"`
	Hidden     []string `json:"hidden,omitempty"`
	Keep       []string `json:"keep,omitempty"`
	GitConfigs []string `json:"git_configs,omitempty"`
	GitDir     string   `json:"git_dir,omitempty"` // the workspace's .git, folder or file
	// Stage is an existing folder the child mounts its scratch tmpfs on
	// for a moment (the session's private temp folder).
	Stage string `json:"stage"`
	// HostMnt is godwit's mount namespace (its inode): the child
	// refuses to mount anything in it.
	HostMnt uint64 `json:"host_mnt"`
}

// Limits are resource limits every command gets (setrlimit in the
// sandbox child; inherited by what it starts). Zero leaves one as it is.
type Limits struct {
	// Processes bounds the command's processes and threads
	// (RLIMIT_NPROC). The kernel counts them per user and user
	// namespace, and never for root: it is applied only where the
	// command has a user namespace of its own.
	Processes int `json:"processes,omitempty"`
	// FileSize bounds, in bytes, any file a command writes
	// (RLIMIT_FSIZE).
	FileSize int64 `json:"file_size,omitempty"`
}

// maxSecrets bounds the mounts that make secrets files appear empty per
// command (their paths travel in the child's environment); past it,
// folders of them appear empty instead (cover).
const maxSecrets = 256

// cover returns at most limit paths under root that cover every one of
// secrets (absolute, clean, none under another): while there are more,
// the deepest give way to their folders. A repository that pads the list
// with files named like keys loses its own folders from commands' view;
// the user's .env never loses its place (in auto mode nothing else keeps
// it from cat).
func cover(secrets []string, root string, limit int) []string {
	set := slices.Clone(secrets)
	depth := func(p string) int { return strings.Count(p, string(filepath.Separator)) }
	for len(set) > limit {
		deepest := 0
		for _, s := range set {
			deepest = max(deepest, depth(s))
		}
		climbed := false
		for i, s := range set {
			if d := filepath.Dir(s); depth(s) == deepest && s != root && d != s {
				set[i], climbed = d, true
			}
		}
		if !climbed {
			break
		}
		slices.Sort(set)
		set = slices.Compact(set)
	}
	return set
}

var (
	// httpUserinfo is the user part of an http(s) or ftp(s) URL, where a
	// token often sits as the user name.
	httpUserinfo = regexp.MustCompile(`(?i)\b((?:https?|ftps?)://)[^/\s"@]*@`)
	// password is the password in any other URL's userinfo (ssh's user
	// name is kept: git needs it).
	password = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^/\s":@]*):[^/\s"@]*@`)
)

// cleanGitConfig is a git config file without credentials: no userinfo
// in http URLs, no password in other URLs (subsection names included),
// no extraheader, which CI checkouts fill with an Authorization header.
// Everything else stays, so git still works. The file is read as git
// reads it (gitconfig), not by lines: git takes `[http] extraheader = X`
// on the header's line and continued values, which a line filter misses.
// A file git would refuse gives an empty one: git fails either way.
func cleanGitConfig(b []byte) []byte {
	settings, err := gitconfig.Parse(b)
	if err != nil {
		return nil
	}
	strip := func(v string) string { return password.ReplaceAllString(httpUserinfo.ReplaceAllString(v, "$1"), "$1@") }
	out := settings[:0]
	for _, s := range settings {
		if strings.EqualFold(s.Key, "extraheader") {
			continue
		}
		s.Subsection, s.Value = strip(s.Subsection), strip(s.Value)
		out = append(out, s)
	}
	return gitconfig.Format(out)
}

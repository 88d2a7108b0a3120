package gitguard

import (
	"slices"
	"strings"

	"github.com/godwit/godwit/internal/gitconfig"
)

// canonical is s as git tells settings apart: section and key lower case.
func canonical(s gitconfig.Setting) gitconfig.Setting {
	s.Section, s.Key = strings.ToLower(s.Section), strings.ToLower(s.Key)
	return s
}

// parseConfig reads a git config file's settings in order; false when
// it does not parse (git refuses it too).
func parseConfig(data []byte) ([]gitconfig.Setting, bool) {
	s, err := gitconfig.Parse(data)
	return s, err == nil
}

// lastValue is the last value of section.key without subsection, or "".
func lastValue(settings []gitconfig.Setting, section, key string) string {
	v := ""
	for _, s := range settings {
		if s.Subsection == "" && s.Is(section, key) {
			v = s.Value
		}
	}
	return v
}

// unsafeChanges lists the settings that differ between before and after
// (added, removed or changed, as names) and may name a program or change
// what git reads; an empty list means the change may stand.
func unsafeChanges(before, after []gitconfig.Setting) []string {
	count := map[gitconfig.Setting]int{}
	shown := map[gitconfig.Setting]string{}
	for _, s := range before {
		count[canonical(s)]++
		shown[canonical(s)] = s.Name()
	}
	for _, s := range after {
		count[canonical(s)]--
		shown[canonical(s)] = s.Name()
	}
	var out []string
	for s, n := range count {
		if n != 0 && !safeSetting(s) && !slices.Contains(out, shown[s]) {
			out = append(out, shown[s])
		}
	}
	slices.Sort(out)
	return out
}

// safeSetting reports whether a setting only records facts git needs
// and never names a program, a settings file or hooks: what `git remote
// add`, `git push -u`, `git submodule add` and `git init` write. Any other
// key (core.hooksPath, alias.*, filter.*, url.*.insteadOf, ...) may not
// change without the user.
func safeSetting(s gitconfig.Setting) bool {
	s = canonical(s)
	switch s.Section {
	case "branch", "extensions", "lfs", "gc", "index", "rerere", "advice", "color", "column", "status":
		return true
	case "user":
		return s.Key == "name" || s.Key == "email"
	case "remote":
		return s.Subsection != "" && slices.Contains([]string{"url", "pushurl", "fetch", "push", "tagopt", "prune",
			"prunetags", "mirror", "skipdefaultupdate", "promisor", "partialclonefilter"}, s.Key)
	case "submodule":
		return s.Subsection != "" && slices.Contains([]string{"url", "active", "branch", "ignore", "shallow",
			"fetchrecursesubmodules"}, s.Key)
	case "core":
		return s.Subsection == "" && slices.Contains([]string{"repositoryformatversion", "filemode", "bare",
			"logallrefupdates", "ignorecase", "precomposeunicode", "symlinks", "autocrlf", "eol", "safecrlf",
			"sparsecheckout", "sparsecheckoutcone", "worktree", "untrackedcache", "splitindex", "commitgraph",
			"multipackindex", "abbrev", "quotepath", "checkstat", "trustctime"}, s.Key)
	case "pull":
		return s.Key == "rebase" || s.Key == "ff"
	case "push":
		return s.Key == "default" || s.Key == "autosetupremote" || s.Key == "followtags"
	case "init":
		return s.Key == "defaultbranch"
	case "fetch":
		return s.Key == "prune" || s.Key == "prunetags" || s.Key == "writecommitgraph" || s.Key == "recursesubmodules"
	}
	return false
}

// withoutUnsafe writes data again keeping only safe settings: what a
// repository a command created may keep of its config.
func withoutUnsafe(data []byte) ([]byte, []string, bool) {
	settings, err := gitconfig.Parse(data)
	if err != nil {
		return nil, nil, false
	}
	var keep []gitconfig.Setting
	var dropped []string
	for _, s := range settings {
		if safeSetting(s) {
			keep = append(keep, s)
		} else if !slices.Contains(dropped, s.Name()) {
			dropped = append(dropped, s.Name())
		}
	}
	if len(dropped) == 0 {
		return data, nil, true
	}
	slices.Sort(dropped)
	return gitconfig.Format(keep), dropped, true
}

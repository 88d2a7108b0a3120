package gitguard

import (
	"bytes"
	"slices"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// setting is one key = value of a config file: section and key lower
// case (git ignores their case), the subsection as written; shown is
// the name as written, for messages.
type setting struct{ section, subsection, key, value, shown string }

func (s setting) name() string { return s.shown }

// same is what two settings must share to be one: git ignores the case
// of section and key names.
func (s setting) same() setting { s.shown = ""; return s }

func newSetting(sec, sub, key, value string) setting {
	shown := sec + "." + key
	if sub != "" {
		shown = sec + "." + sub + "." + key
	}
	return setting{strings.ToLower(sec), sub, strings.ToLower(key), value, shown}
}

// parseConfig reads a git config file's settings in order; false when
// it does not parse.
func parseConfig(data []byte) ([]setting, bool) {
	c := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(c); err != nil {
		return nil, false
	}
	var out []setting
	for _, sec := range c.Sections {
		for _, o := range sec.Options {
			out = append(out, newSetting(sec.Name, "", o.Key, o.Value))
		}
		for _, sub := range sec.Subsections {
			for _, o := range sub.Options {
				out = append(out, newSetting(sec.Name, sub.Name, o.Key, o.Value))
			}
		}
	}
	return out, true
}

// includes lists the files a config includes (include.path and
// includeIf.*.path; the condition is not evaluated: any may apply).
func includes(settings []setting) []string {
	var out []string
	for _, s := range settings {
		if (s.section == "include" || s.section == "includeif") && s.key == "path" && s.value != "" {
			out = append(out, s.value)
		}
	}
	return out
}

// lastValue is the last value of section.key without subsection, or "".
func lastValue(settings []setting, section, key string) string {
	v := ""
	for _, s := range settings {
		if s.section == section && s.subsection == "" && s.key == key {
			v = s.value
		}
	}
	return v
}

// unsafeChanges lists the settings that differ between before and after
// (added, removed or changed, as names) and may name a program or change
// what git reads; an empty list means the change may stand.
func unsafeChanges(before, after []setting) []string {
	count := map[setting]int{}
	shown := map[setting]string{}
	for _, s := range before {
		count[s.same()]++
		shown[s.same()] = s.name()
	}
	for _, s := range after {
		count[s.same()]--
		shown[s.same()] = s.name()
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
// (where a branch pushes, a remote's URL, who commits) and never names a
// program, a file of settings or hooks: what `git remote add`, `git push
// -u`, `git branch -u`, `git submodule add` and `git init` write. Every
// other key (core.hooksPath, core.fsmonitor, core.pager, core.editor,
// core.sshCommand, alias.*, filter.*, diff.*, merge.*.driver,
// credential.*, include.*, gpg.program, remote.*.uploadpack,
// submodule.*.update, protocol.*, url.*.insteadOf, ...) may not change
// without the user.
func safeSetting(s setting) bool {
	switch s.section {
	case "branch", "extensions", "lfs", "gc", "index", "rerere", "advice", "color", "column", "status":
		return true
	case "user":
		return s.key == "name" || s.key == "email"
	case "remote":
		return s.subsection != "" && slices.Contains([]string{"url", "pushurl", "fetch", "push", "tagopt", "prune",
			"prunetags", "mirror", "skipdefaultupdate", "promisor", "partialclonefilter"}, s.key)
	case "submodule":
		return s.subsection != "" && slices.Contains([]string{"url", "active", "branch", "ignore", "shallow",
			"fetchrecursesubmodules"}, s.key)
	case "core":
		return s.subsection == "" && slices.Contains([]string{"repositoryformatversion", "filemode", "bare",
			"logallrefupdates", "ignorecase", "precomposeunicode", "symlinks", "autocrlf", "eol", "safecrlf",
			"sparsecheckout", "sparsecheckoutcone", "worktree", "untrackedcache", "splitindex", "commitgraph",
			"multipackindex", "abbrev", "quotepath", "checkstat", "trustctime"}, s.key)
	case "pull":
		return s.key == "rebase" || s.key == "ff"
	case "push":
		return s.key == "default" || s.key == "autosetupremote" || s.key == "followtags"
	case "init":
		return s.key == "defaultbranch"
	case "fetch":
		return s.key == "prune" || s.key == "prunetags" || s.key == "writecommitgraph" || s.key == "recursesubmodules"
	}
	return false
}

// withoutUnsafe re-encodes data keeping only safe settings: what a
// repository a command created may keep of its config.
func withoutUnsafe(data []byte) ([]byte, []string, bool) {
	c := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(c); err != nil {
		return nil, nil, false
	}
	var dropped []string
	keep := func(sec, sub string, opts gitconfig.Options) gitconfig.Options {
		var out gitconfig.Options
		for _, o := range opts {
			s := newSetting(sec, sub, o.Key, o.Value)
			if safeSetting(s) {
				out = append(out, o)
			} else if !slices.Contains(dropped, s.name()) {
				dropped = append(dropped, s.name())
			}
		}
		return out
	}
	for _, sec := range c.Sections {
		sec.Options = keep(sec.Name, "", sec.Options)
		for _, sub := range sec.Subsections {
			sub.Options = keep(sec.Name, sub.Name, sub.Options)
		}
	}
	if len(dropped) == 0 {
		return data, nil, true
	}
	var b bytes.Buffer
	if err := gitconfig.NewEncoder(&b).Encode(c); err != nil {
		return nil, nil, false
	}
	slices.Sort(dropped)
	return b.Bytes(), dropped, true
}

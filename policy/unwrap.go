package policy

import (
	"strconv"
	"strings"
)

// wrappers run the command that follows their own flags and operands;
// deny and ask rules look through them, so "sudo rm -rf x" or
// "bash -c 'rm -rf x'" still meets a deny rule for "rm -rf *".
var wrappers = map[string]bool{
	"command": true, "builtin": true, "exec": true, "nohup": true, "time": true, "sudo": true, "doas": true,
	"nice": true, "ionice": true, "stdbuf": true, "setsid": true, "unbuffer": true, "xargs": true, "env": true,
	"timeout": true, "watch": true, "strace": true, "ltrace": true, "chrt": true, "taskset": true, "flock": true,
}

var shells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true}

// maxUnwrap bounds nested wrappers and shells.
const maxUnwrap = 4

// variants returns the commands deny and ask rules are matched against:
// the command itself, what its wrappers run, and the simple commands of
// a `bash -c STRING` or `eval STRING` it carries.
func (p *Policy) variants(words []Word, depth int) [][]Word {
	out := [][]Word{words}
	if depth >= maxUnwrap || len(words) < 2 || !words[0].Literal() {
		return out
	}
	name := baseName(words[0].Value)
	switch {
	case wrappers[name]:
		rest := words[1:]
		for len(rest) > 0 && rest[0].Known && skippable(rest[0].Value) {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			out = append(out, p.variants(rest, depth+1)...)
		}
	case name == "eval":
		out = append(out, p.inner(joinWords(words[1:]), depth)...)
	case shells[name]:
		for i, w := range words[1:] {
			if w.Known && strings.HasPrefix(w.Value, "-") && strings.Contains(w.Value, "c") && !strings.HasPrefix(w.Value, "--") {
				if i+2 < len(words) {
					out = append(out, p.inner(words[i+2], depth)...)
				}
				break
			}
		}
	}
	return out
}

// inner splits a command string a shell or eval would run.
func (p *Policy) inner(w Word, depth int) [][]Word {
	if !w.Known {
		return nil
	}
	sc, err := Split(w.Value, ShellEnv{Dir: p.root, Home: p.home, Vars: p.vars, DirExists: isDir})
	if err != nil {
		return nil
	}
	var out [][]Word
	for _, c := range sc.Commands {
		if len(c.Words) > 0 && c.Decl == "" {
			out = append(out, p.variants(c.Words, depth+1)...)
		}
	}
	return out
}

// skippable reports a wrapper's own flag, option value or operand: -n,
// 10, 5s, VAR=value.
func skippable(v string) bool {
	if strings.HasPrefix(v, "-") || strings.Contains(v, "=") {
		return true
	}
	if _, err := strconv.ParseFloat(strings.TrimRight(v, "smhd"), 64); err == nil {
		return true
	}
	return strings.HasPrefix(v, "0x")
}

func joinWords(ws []Word) Word {
	out := Word{Known: true}
	var parts []string
	for _, w := range ws {
		parts = append(parts, w.Value)
		out.Known = out.Known && w.Known
	}
	out.Value = strings.Join(parts, " ")
	return out
}

func baseName(v string) string {
	if i := strings.LastIndexAny(v, `/\`); i >= 0 {
		return v[i+1:]
	}
	return v
}

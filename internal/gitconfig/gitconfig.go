// Package gitconfig reads and writes git's configuration files as git
// itself parses them (its config.c): sections and subsections (quoted,
// or the old [section.sub]), keys with or without a value, quotes,
// escapes, continuation lines and comments. It is godwit's one reader of
// git config, for the policy (aliases, includes, hooks paths, remotes)
// and gitguard (what a command changed, what a new repository keeps),
// its one list of the files git reads (Files) and its one finder of a
// repository's git folders (FindRepo).
//
// Guarantee: what git would refuse (a bad config line, an unknown
// escape, an unclosed quote) is an error, never "no settings", so a
// caller judging safety can treat the file as unknown.
//
// Of godwit's packages it imports only internal/regfile.
package gitconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/godwit/godwit/internal/regfile"
)

// A Setting is one key of a config file, in the file's order. Section
// and Key are as written (git ignores their case); Subsection is as
// written when quoted, lower case in the old [section.sub] form.
type Setting struct {
	Section, Subsection, Key, Value string
	// NoValue: the key stands alone (`bare`), which git reads as true.
	NoValue bool
}

// Name is section.key or section.subsection.key, as written.
func (s Setting) Name() string {
	if s.Subsection == "" {
		return s.Section + "." + s.Key
	}
	return s.Section + "." + s.Subsection + "." + s.Key
}

// Is reports whether s is section.key (any subsection), ignoring case.
func (s Setting) Is(section, key string) bool {
	return strings.EqualFold(s.Section, section) && strings.EqualFold(s.Key, key)
}

// MaxSize bounds the file ReadFile reads.
const MaxSize = 1 << 20

// ReadFile parses the file at name. A file that does not exist has no
// settings; one that cannot be read, is over MaxSize or does not parse
// is an error.
func ReadFile(name string) ([]Setting, error) {
	data, err := readSmall(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// readSmall reads a regular file of at most MaxSize bytes (git's
// folders are found and read outside any sandbox: a .git, commondir or
// config that is a FIFO would hold godwit in open(2) until a writer
// came, one linked to /dev/zero would never end). The open does not
// wait; what is not a regular file is an error.
func readSmall(name string) ([]byte, error) {
	data, err := regfile.Read(name, MaxSize)
	if err != nil {
		return nil, fmt.Errorf("gitconfig: %w", err)
	}
	return data, nil
}

// parser walks the text a byte at a time, as git does.
type parser struct {
	data []byte
	pos  int
	line int
}

// next is the next byte with \r\n read as \n; at the end, '\n' and eof.
func (p *parser) next() (c byte, eof bool) {
	if p.pos >= len(p.data) {
		return '\n', true
	}
	c = p.data[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.data) && p.data[p.pos] == '\n' {
		c = '\n'
		p.pos++
	}
	if c == '\n' {
		p.line++
	}
	return c, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' } // git's isspace
func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isKey(c byte) bool   { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }

// Parse reads the settings of a config file's text.
func Parse(data []byte) ([]Setting, error) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, errors.New("a NUL byte") // git cuts a value at it; nothing writes one
	}
	p := &parser{data: bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), line: 1}
	var out []Setting
	var section, sub string
	comment := false
	for {
		line := p.line
		c, eof := p.next()
		switch {
		case c == '\n' && eof:
			return out, nil
		case c == '\n':
			comment = false
		case comment || isSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			var ok bool
			if section, sub, ok = p.header(); !ok {
				return nil, fmt.Errorf("bad config line %d", line)
			}
		case !isAlpha(c):
			return nil, fmt.Errorf("bad config line %d", line)
		default:
			s, ok := p.entry(c)
			if !ok {
				return nil, fmt.Errorf("bad config line %d", line)
			}
			s.Section, s.Subsection = section, sub
			out = append(out, s)
		}
	}
}

// header reads [section], [section "subsection"] or [section.sub]
// after its '['.
func (p *parser) header() (section, sub string, ok bool) {
	var name []byte
	for {
		c, eof := p.next()
		switch {
		case eof:
			return "", "", false
		case c == ']':
			section, sub, dot := strings.Cut(string(name), ".")
			return section, strings.ToLower(sub), section != "" && (sub != "" || !dot)
		case isSpace(c):
			return p.quotedSub(string(name), c)
		case !isKey(c) && c != '.':
			return "", "", false
		}
		name = append(name, c)
	}
}

// quotedSub reads ` "subsection"]` after a section's name.
func (p *parser) quotedSub(name string, c byte) (section, sub string, ok bool) {
	for isSpace(c) {
		if c == '\n' {
			return "", "", false
		}
		c, _ = p.next()
	}
	if c != '"' {
		return "", "", false
	}
	var b []byte
	for {
		c, _ = p.next()
		if c == '\n' {
			return "", "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c, _ = p.next(); c == '\n' {
				return "", "", false
			}
		}
		b = append(b, c)
	}
	if c, _ = p.next(); c != ']' {
		return "", "", false
	}
	section, old, _ := strings.Cut(name, ".")
	if old != "" {
		b = append([]byte(strings.ToLower(old)+"."), b...) // [a.b "c"] is a, "b.c" to git
	}
	return section, string(b), section != ""
}

// entry reads a key whose first letter is c, and its value.
func (p *parser) entry(c byte) (Setting, bool) {
	key := []byte{c}
	var eof bool
	for {
		if c, eof = p.next(); eof || !isKey(c) {
			break
		}
		key = append(key, c)
	}
	for c == ' ' || c == '\t' {
		c, _ = p.next()
	}
	if c == '\n' {
		return Setting{Key: string(key), NoValue: true}, true
	}
	if c != '=' {
		return Setting{}, false
	}
	v, ok := p.value()
	return Setting{Key: string(key), Value: v}, ok
}

// value reads a value to the end of its line: quotes group, spaces
// outside them fold to one where something follows, # and ; outside them
// start a comment, a backslash escapes \ " n t b or joins the next line.
func (p *parser) value() (string, bool) {
	var b []byte
	quote, comment, space := false, false, 0
	for {
		c, _ := p.next()
		switch {
		case c == '\n':
			return string(b), !quote
		case comment:
		case isSpace(c) && !quote:
			if len(b) > 0 {
				space++
			}
		case !quote && (c == ';' || c == '#'):
			comment = true
		default:
			for ; space > 0; space-- {
				b = append(b, ' ')
			}
			switch c {
			case '"':
				quote = !quote
			case '\\':
				c, _ = p.next()
				switch c {
				case '\n':
				case 't':
					b = append(b, '\t')
				case 'b':
					b = append(b, '\b')
				case 'n':
					b = append(b, '\n')
				case '\\', '"':
					b = append(b, c)
				default:
					return "", false
				}
			default:
				b = append(b, c)
			}
		}
	}
}

// Format writes settings as a config file git reads back the same: a
// header each time the section or subsection changes.
func Format(settings []Setting) []byte {
	var b bytes.Buffer
	for i, s := range settings {
		if i == 0 || !strings.EqualFold(s.Section, settings[i-1].Section) || s.Subsection != settings[i-1].Subsection {
			if s.Subsection == "" {
				fmt.Fprintf(&b, "[%s]\n", s.Section)
			} else {
				fmt.Fprintf(&b, "[%s \"%s\"]\n", s.Section, strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s.Subsection))
			}
		}
		if s.NoValue {
			fmt.Fprintf(&b, "\t%s\n", s.Key)
			continue
		}
		v := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`).Replace(s.Value)
		if strings.ContainsAny(v, "#;") || strings.HasPrefix(v, " ") || strings.HasSuffix(v, " ") {
			v = `"` + v + `"`
		}
		fmt.Fprintf(&b, "\t%s = %s\n", s.Key, v)
	}
	return b.Bytes()
}

// Includes are the files settings include (include.path, and
// includeIf.*.path whatever its condition: any may apply), made
// absolute as git does: ~/ is home (skipped without one), a relative
// path is relative to the folder of file, the including file.
func Includes(settings []Setting, file, home string) []string {
	var out []string
	for _, s := range settings {
		if !s.Is("include", "path") && !s.Is("includeif", "path") || s.Value == "" {
			continue
		}
		v := s.Value
		switch {
		case v == "~" || strings.HasPrefix(v, "~/"):
			if home == "" {
				continue
			}
			v = filepath.Join(home, v[1:])
		case !filepath.IsAbs(v):
			v = filepath.Join(filepath.Dir(file), v)
		}
		out = append(out, v)
	}
	return out
}

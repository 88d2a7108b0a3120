package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/regfile"
)

// loadEnvFiles loads the user's $GODWIT_HOME/.env into the process
// environment, never overriding a variable already set, and keeps the
// provider keys of ./.env (usually a repository's) in f.ProjectKey.
//
// A project's .env comes with the repository, so it cannot change how
// godwit or its commands run: only its provider keys (*_API_KEY) are
// read, every other name is ignored in one warning, and its keys stay
// out of the environment (wiring uses one only for a provider the user
// named). Problems are warnings; the lines that parse still load.
//
// It is a parser of our own, not godotenv: godotenv expands $VAR in
// values (a key or password holding $ would change) and refuses a whole
// file for one bad line.
func loadEnvFiles(f *Factory) {
	var files []envFile
	project := filepath.Join(f.Workdir, ".env")
	if home, err := f.Home(); err == nil {
		user := filepath.Join(home, ".env")
		files = append(files, envFile{path: user})
		if user == project {
			project = "" // started in GODWIT_HOME: it is the user's file
		}
	}
	if project != "" {
		files = append(files, envFile{path: project, project: true})
	}
	f.projectKeys = map[string]string{}
	if err := loadDotenv(files, os.LookupEnv, os.Setenv, f.projectKeys); err != nil {
		f.Logger.Warn(err.Error())
	}
}

// envFile is one .env file to load. A project's file is written by
// whoever wrote the repository.
type envFile struct {
	path    string
	project bool
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// providerKey reports whether a project's .env may set name: a provider's
// API key. Its endpoint may not be set there (a cloned repository could
// route the user's keys to its own server), nor godwit's own variables.
func providerKey(name string) bool {
	u := strings.ToUpper(name)
	return strings.HasSuffix(u, "_API_KEY") && !strings.HasPrefix(u, "GODWIT_")
}

// loadDotenv loads files in order; a variable already set (by the
// environment or an earlier file) is kept. From a project's file only
// provider keys are read, into project, not set; the others are named in
// one error per file. Missing files are skipped.
func loadDotenv(files []envFile, lookup func(string) (string, bool), set func(k, v string) error, project map[string]string) error {
	var errs []error
	for _, f := range files {
		data, err := readEnvFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vars, err := parseDotenv(f.path, string(data))
		if err != nil {
			errs = append(errs, err)
		}
		var ignored []string
		for _, v := range vars {
			if f.project && !providerKey(v.name) {
				if !slices.Contains(ignored, v.name) {
					ignored = append(ignored, v.name)
				}
				continue
			}
			if f.project {
				if _, ok := project[v.name]; !ok {
					project[v.name] = v.value
				}
				continue
			}
			if _, ok := lookup(v.name); ok {
				continue
			}
			if err := set(v.name, v.value); err != nil {
				errs = append(errs, fmt.Errorf("%s: set %s: %w", f.path, v.name, err))
			}
		}
		if len(ignored) > 0 {
			errs = append(errs, fmt.Errorf("%s: ignored %s: from a project's .env godwit reads only provider keys (*_API_KEY), so the repository cannot change how godwit or its commands run; export what you need yourself, or put it in $GODWIT_HOME/.env",
				f.path, strings.Join(ignored, ", ")))
		}
	}
	return errors.Join(errs...)
}

// maxEnvFile bounds a .env file read: far more than any list of keys.
const maxEnvFile = 1 << 20

// readEnvFile reads a .env file: a repository's is read before
// anything else, and one linked to /dev/zero filled memory until godwit
// died, a FIFO (or a link to /dev/tty) kept it waiting in open(2), past
// SIGTERM.
func readEnvFile(path string) ([]byte, error) {
	data, err := regfile.Read(path, maxEnvFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; not read", err)
	}
	return data, err
}

type envVar struct{ name, value string }

// parseDotenv reads KEY=VALUE lines: blank lines and # comments skipped,
// an optional "export " prefix, values unquoted (an inline comment
// starts at " #"), 'single-quoted' (literal) or "double-quoted" (with \n,
// \t, \", \\ escapes); a quoted value may span lines. There is no
// variable expansion. Bad lines are reported and skipped.
func parseDotenv(path, text string) ([]envVar, error) {
	lines := strings.Split(strings.TrimPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "\uFEFF"), "\n")
	var out []envVar
	var errs []error
	for i := 0; i < len(lines); i++ {
		n := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !envName().MatchString(name) {
			errs = append(errs, fmt.Errorf("%s:%d: not a NAME=value line; fix it or comment it out with #", path, n))
			continue
		}
		value = strings.TrimLeft(value, " \t")
		if q := value[:min(1, len(value))]; q == `"` || q == "'" {
			// Collect lines until the closing quote.
			body := value[1:]
			for {
				if end := closingQuote(body, q[0]); end >= 0 {
					rest := strings.TrimSpace(body[end+1:])
					if rest != "" && !strings.HasPrefix(rest, "#") {
						errs = append(errs, fmt.Errorf("%s:%d: text after the closing quote of %s", path, n, name))
					}
					body = body[:end]
					break
				}
				if i+1 >= len(lines) {
					errs = append(errs, fmt.Errorf("%s:%d: the quote of %s is never closed", path, n, name))
					body = ""
					break
				}
				i++
				body += "\n" + lines[i]
			}
			if q == `"` {
				body = unescape(body)
			}
			out = append(out, envVar{name, body})
			continue
		}
		if j := strings.Index(value, " #"); j >= 0 {
			value = value[:j]
		}
		out = append(out, envVar{name, strings.TrimSpace(value)})
	}
	return out, errors.Join(errs...)
}

// closingQuote finds the quote q ending s; inside double quotes a
// backslash escapes the next byte.
func closingQuote(s string, q byte) int {
	for i := 0; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q:
			return i
		}
	}
	return -1
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		default: // \" \\ \$ and anything else: the byte itself
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// LoadEnvFiles loads ./.env (the directory godwit started in), then
// $GODWIT_HOME/.env, into the process environment, never overriding a
// variable already set: the real environment wins, then the project's
// file, then the user's. Problems are logged as warnings; the lines that
// parse still load. Call it once at start, before any command reads the
// environment.
func LoadEnvFiles(f *Factory) {
	files := []envFile{{path: filepath.Join(f.Workdir, ".env"), project: true}}
	if home, err := f.Home(); err == nil {
		if p := filepath.Join(home, ".env"); p == files[0].path {
			files[0].project = false // started in GODWIT_HOME: it is the user's file
		} else {
			files = append(files, envFile{path: p})
		}
	}
	_, err := loadDotenv(files, os.LookupEnv, os.Setenv)
	if err != nil {
		f.Logger.Warn("godwit: .env: " + err.Error())
	}
}

// envFile is one .env file to load. A project's file is written by
// whoever wrote the repository, so it may not set what would send the
// user's keys elsewhere or change godwit's own settings.
type envFile struct {
	path    string
	project bool
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// refusedInProject reports whether a project's .env may not set name:
// endpoints, proxies and CA files (a cloned repository could route the
// user's API keys to its own server) and godwit's own variables.
func refusedInProject(name string) bool {
	u := strings.ToUpper(name)
	switch u {
	case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR":
		return true
	}
	return strings.HasPrefix(u, "GODWIT_") || strings.HasSuffix(u, "_BASE_URL")
}

// loadDotenv loads files in order; a variable already set (by the
// environment or an earlier file) is kept. It returns the names it set.
// Missing files are skipped.
func loadDotenv(files []envFile, lookup func(string) (string, bool), set func(k, v string) error) ([]string, error) {
	var loaded []string
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f.path)
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
		for _, v := range vars {
			if f.project && refusedInProject(v.name) {
				errs = append(errs, fmt.Errorf("%s: %s is ignored: a project's .env may not set endpoints, proxies or GODWIT_ variables; export it or put it in $GODWIT_HOME/.env", f.path, v.name))
				continue
			}
			if _, ok := lookup(v.name); ok {
				continue
			}
			if err := set(v.name, v.value); err != nil {
				errs = append(errs, fmt.Errorf("%s: set %s: %w", f.path, v.name, err))
				continue
			}
			loaded = append(loaded, v.name)
		}
	}
	return loaded, errors.Join(errs...)
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

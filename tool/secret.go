package tool

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Secret files: reading them asks even in read-only mode, since their
// content would go to the model provider. Matched against the base name,
// case-insensitively; add more with ask rules.
var secretNames = []string{
	".env", ".env.*", "*.env", ".envrc",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx", "*.ppk",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	".netrc", "_netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".htpasswd", ".vault-token",
	"credentials", "credentials.json", "credentials.db", "*.tfvars",
	"secrets.yaml", "secrets.yml", "secrets.json", "secret.yaml", "secret.yml",
}

// secretPaths are matched against the end of the path. A repository's
// git config holds credentials often enough (a token in a remote's URL,
// the Authorization header CI checkouts leave in http.extraheader).
var secretPaths = []string{".aws/credentials", ".docker/config.json", ".kube/config", ".ssh/*", ".gnupg/*", ".config/gh/hosts.yml",
	".git/config", ".git/modules/**/config"}

// notSecret are templates and public halves that match secretNames but
// hold nothing secret.
var notSecret = []string{"*.example", "*.sample", "*.template", "*.dist", "*.defaults", "*.pub", "known_hosts*", "*.tfvars.example"}

// IsSecret reports whether a path names a secrets file.
func IsSecret(p string) bool {
	p = strings.ToLower(filepath.ToSlash(p))
	base := path.Base(p)
	for _, pat := range notSecret {
		if ok, _ := path.Match(pat, base); ok {
			return false
		}
	}
	for _, pat := range secretNames {
		if ok, _ := path.Match(pat, base); ok {
			return true
		}
	}
	for _, pat := range secretPaths {
		if ok, _ := doublestar.Match("**/"+pat, p); ok {
			return true
		}
		if ok, _ := doublestar.Match(pat, p); ok {
			return true
		}
	}
	return false
}

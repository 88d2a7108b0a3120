package sandbox

import (
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/gitconfig"
)

// The copy of .git/config commands see keeps no credential however the
// file spells it, and keeps every other setting.
func TestCleanGitConfig(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"remote url", "[remote \"origin\"]\n\turl = https://x-access-token:SECRET@github.com/o/r.git\n"},
		{"user only", "[remote \"origin\"]\n\turl = https://SECRET@github.com/o/r.git\n"},
		{"extraheader", "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic SECRET\n"},
		{"on the header's line", "[http] extraheader = AUTHORIZATION: basic SECRET\n"},
		{"continued", "[http]\n\textraHeader = AUTHORIZATION: \\\nbasic SECRET\n"},
		{"quoted", "[http]\n\textraheader = \"AUTHORIZATION: basic SECRET\"\n"},
		{"url section", "[url \"https://u:SECRET@github.com/\"]\n\tinsteadOf = https://github.com/\n"},
		{"other scheme", "[remote \"o\"]\n\turl = ftp://u:SECRET@host/r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "[core]\n\tbare = false\n" + tc.in
			out := cleanGitConfig([]byte(in))
			if strings.Contains(string(out), "SECRET") {
				t.Errorf("the copy keeps the credential:\n%s", out)
			}
			got, err := gitconfig.Parse(out)
			if err != nil || len(got) == 0 || !got[0].Is("core", "bare") || got[0].Value != "false" {
				t.Errorf("the copy lost core.bare or does not parse (%v):\n%s", err, out)
			}
		})
	}
	if out := cleanGitConfig([]byte("[core\n\tbare = SECRET\n")); len(out) != 0 {
		t.Errorf("a file git refuses gave %q", out)
	}
}

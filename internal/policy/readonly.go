package policy

import (
	"strings"
	"sync"
)

// The read-only list: what runs unasked in every mode, always confined
// (tool.ConfineReadOnly). The bar: with the options its table allows
// (getopt.go), the program can neither change a file nor start another.
// Left out on purpose: what compiles or runs the project's code (go
// test, make, npm), what writes or runs what its arguments say (sed,
// awk, xargs, env CMD, eval), less and more (they start an editor),
// read (it assigns any variable). What a read-only command reads is
// still checked (commandItem).

type operandKind uint8

const (
	opsNone         operandKind = iota // operands are not file names
	opsPaths                           // operands are files read
	opsPatternPaths                    // the first operand is a pattern (unless an option gave it), the rest files
)

// program is a read-only program: its option table, what its operands
// are, and any check of its own.
type program struct {
	g        getopt
	operands operandKind
	// maxOps bounds operands (uniq IN OUT writes OUT); -1 is no bound.
	maxOps int
	// after, when set, checks what the table cannot: operands (date),
	// option values (grep -d recurse). It may set why and asks.
	after func(p parsed, r *roResult)
	// custom replaces the table (git, find, shell builtins).
	custom func(c SimpleCommand) roResult
	// lists: it walks folders and prints names, not contents (tree, du,
	// fd); only the links it follows out of the workspace matter.
	lists bool
}

// roResult is what the read-only check found about one command.
type roResult struct {
	// why says why the command is not read-only; "" when it is.
	why string
	// paths are the words it reads as files or folders; names the words
	// that should merely not name a secret.
	paths, names []Word
	// eff are the effects of the options used (recursion, hidden files).
	eff effect
	// asks are reads that need approval even though nothing is written:
	// "prints the environment, whose values may hold keys".
	asks []string
	// search marks a program that reads folders recursively by itself
	// (rg, ag); skipsHidden that it passes over hidden files unless told
	// otherwise.
	search, skipsHidden bool
	// lists marks a walk of folders that prints names only (find, ls -R,
	// tree, du, fd).
	lists bool
	// history: it prints file contents from git's objects, whose paths
	// cannot be listed here; index: from the work tree or the index of
	// the repository at dir (its tracked paths are checked against path
	// rules); tree limits those to the paths given.
	history bool
	index   string
	tree    []Word
	// histFiles are the files a git read limited to named files prints
	// from the history: their former names are screened too.
	histFiles []histFile
}

func notRO(why string) roResult { return roResult{why: why} }

func prog(ops operandKind, maxOps int, spec string) program {
	return program{g: parseSpec(spec), operands: ops, maxOps: maxOps}
}

const (
	help    = " help version"
	sumOpts = "b binary c!n check!n ignore-missing quiet status strict t text w warn z zero tag untagged" + help
)

// envDump is the reason an environment dump asks.
const envDump = "prints the environment, whose values may hold keys and tokens"

var programs = sync.OnceValue(func() map[string]program {
	m := map[string]program{
		// Readers.
		"cat":  prog(opsPaths, -1, "A show-all b number-nonblank e E show-ends n number s squeeze-blank t T show-tabs u v show-nonprinting"+help),
		"head": prog(opsPaths, -1, "# c: bytes= n: lines= q quiet silent v verbose z zero-terminated"+help),
		"tail": prog(opsPaths, -1, "# c: bytes= f follow=? F n: lines= max-unchanged-stats= pid= q quiet silent retry s: sleep-interval= v verbose z zero-terminated"+help),
		"wc":   prog(opsPaths, -1, "c bytes m chars l lines files0-from=!n L max-line-length w words total="+help),
		"ls": prog(opsPaths, -1, "a all A almost-all author b escape block-size= B ignore-backups c C color=? d directory D dired f F classify=? "+
			"file-type format= full-time g group-directories-first G no-group h human-readable si H dereference-command-line "+
			"dereference-command-line-symlink-to-dir hide= hyperlink=? indicator-style= i inode I: ignore= k kibibytes l L+L dereference+L "+
			"m n numeric-uid-gid N literal o p q hide-control-chars show-control-chars Q quote-name quoting-style= r reverse R+r recursive+r "+
			"s size S sort= time= time-style= t T: tabsize= u U v w: width= x X Z context zero 1"+help),
		"stat": prog(opsPaths, -1, "L dereference f file-system cached= c: format= printf= t terse"+help),
		"diff": prog(opsPaths, -1, "normal q brief s report-identical-files c C: context=? u U: unified=? e ed n rcs y side-by-side W: width= "+
			"left-column suppress-common-lines p show-c-function F: show-function-line= label= t expand-tabs T initial-tab tabsize= "+
			"suppress-blank-empty l!x paginate!x r+r+L recursive+r+L no-dereference N new-file unidirectional-new-file ignore-file-name-case "+
			"no-ignore-file-name-case x: exclude= X:@ exclude-from=@ S: starting-file= from-file=@ to-file=@ i ignore-case E "+
			"ignore-tab-expansion Z ignore-trailing-space b ignore-space-change w ignore-all-space B ignore-blank-lines I: "+
			"ignore-matching-lines= a text strip-trailing-cr D: ifdef= old-group-format= new-group-format= unchanged-group-format= "+
			"changed-group-format= line-format= old-line-format= new-line-format= unchanged-line-format= d minimal horizon-lines= "+
			"speed-large-files color=? palette= help v version"),
		"cmp":      prog(opsPaths, -1, "b print-bytes i: ignore-initial= l verbose n: bytes= s quiet silent help v version"),
		"nl":       prog(opsPaths, -1, "b: body-numbering= d: section-delimiter= f: footer-numbering= h: header-numbering= i: line-increment= l: join-blank-lines= n: number-format= p no-renumber s: number-separator= v: starting-line-number= w: number-width="+help),
		"tac":      prog(opsPaths, -1, "b before r regex s: separator="+help),
		"rev":      prog(opsPaths, -1, "0 zero h help V version"),
		"fold":     prog(opsPaths, -1, "# b bytes s spaces w: width="+help),
		"expand":   prog(opsPaths, -1, "# i initial t: tabs="+help),
		"unexpand": prog(opsPaths, -1, "# a all first-only t: tabs="+help),
		"paste":    prog(opsPaths, -1, "d: delimiters= s serial z zero-terminated"+help),
		"join":     prog(opsPaths, -1, "a: e: i ignore-case j: o: t: v: 1: 2: check-order nocheck-order header z zero-terminated"+help),
		"comm":     prog(opsPaths, -1, "1 2 3 check-order nocheck-order output-delimiter= total z zero-terminated"+help),
		"strings":  prog(opsPaths, -1, "# a all d data f print-file-name n: bytes= t: radix= o e: encoding= T: target= w include-all-whitespace s: output-separator= U: unicode= h help v V version"),
		"od": prog(opsPaths, -1, "# A: address-radix= j: skip-bytes= N: read-bytes= S:: strings=? t: format= v output-duplicates w:: width=? "+
			"endian= a b c d f i l o s x traditional"+help),
		"hexdump": prog(opsPaths, -1, "b c C d e: f:@ L:: n: o s: v x one-byte-octal one-byte-char canonical two-bytes-decimal format= "+
			"format-file=@ color=? length= two-bytes-octal skip= no-squeezing two-bytes-hex h help V version"),
		"cut": prog(opsPaths, -1, "b: bytes= c: characters= d: delimiter= f: fields= n complement s only-delimited output-delimiter= z zero-terminated"+help),
		"column": prog(opsPaths, -1, "J json n: table-name= O: table-order= N: table-columns= l: table-columns-limit= E: table-noextreme= "+
			"d table-noheadings m table-maxout e table-header-repeat H: table-hide= R: table-right= T: table-truncate= W: table-wrap= "+
			"r: tree= i: tree-id= p: tree-parent= c: output-width= o: output-separator= s: separator= t table x fillrows L keep-empty-lines h help V version"),
		"tr":        prog(opsNone, -1, "c C complement d delete s squeeze-repeats t truncate-set1"+help),
		"md5sum":    prog(opsPaths, -1, sumOpts),
		"sha1sum":   prog(opsPaths, -1, sumOpts),
		"sha224sum": prog(opsPaths, -1, sumOpts),
		"sha256sum": prog(opsPaths, -1, sumOpts),
		"sha384sum": prog(opsPaths, -1, sumOpts),
		"sha512sum": prog(opsPaths, -1, sumOpts),
		"b2sum":     prog(opsPaths, -1, "l: length= "+sumOpts),
		"cksum":     prog(opsPaths, -1, "a: algorithm= base64 debug l: length= raw "+sumOpts),
		"du": prog(opsPaths, -1, "0 null a all apparent-size B: block-size= b bytes c total D dereference-args d: max-depth= files0-from=!n H h "+
			"human-readable inodes k L+L dereference+L l count-links m P no-dereference S separate-dirs si s summarize t: threshold= time=? "+
			"time-style= X:@ exclude-from=@ exclude= x one-file-system"+help),
		"df": prog(opsPaths, -1, "a all B: block-size= h human-readable H si i inodes k l local no-sync output=? P portability sync total t: type= T print-type x: exclude-type= v"+help),
		// file -p resets access times (a write); -z and -Z run decompressors.
		"file": prog(opsPaths, -1, "b brief C!w compile!w c checking-printout d e: exclude= exclude-quiet= E f:!n files-from=!n F: separator= h no-dereference "+
			"i mime I mime-type mime-encoding k keep-going l list L dereference m:@ magic-file=@ N no-pad n no-buffer p!w preserve-date!w "+
			"P: parameter= r raw s special-files S no-sandbox z!x uncompress!x Z!x uncompress-noreport!x 0 print0 extension apple v version help"),
		// tree -o writes; -R with -H writes an index into every folder.
		"tree": prog(opsPaths, -1, "a d l+L f x L: P: I: ignore-case matchdirs prune noreport D s h si u g p F q N Q r t c U v C n A S J X H:!w T: R!w o:!w "+
			"fromfile!n charset= filelimit= timefmt= du dirsfirst filesfirst gitignore info sort= inodes device metafirst"+help),
		"sort": prog(opsPaths, -1, "b ignore-leading-blanks d dictionary-order f ignore-case g general-numeric-sort i ignore-nonprinting M month-sort "+
			"h human-numeric-sort n numeric-sort R random-sort random-source=@ r reverse sort= V version-sort batch-size= c check=? C "+
			"compress-program=!x debug files0-from=!n k: key= m merge o:!w output=!w s stable S: buffer-size= t: field-separator= "+
			"T:!w temporary-directory=!w parallel= u unique z zero-terminated"+help),
		// uniq IN OUT writes OUT.
		"uniq": prog(opsPaths, 1, "c count d repeated D all-repeated=? f: skip-fields= group=? i ignore-case s: skip-chars= u unique z zero-terminated w: check-chars="+help),
		"grep": grepProg(),
		"rg": {g: parseSpec("A: after-context= auto-hybrid-regex B: before-context= binary block-buffered b byte-offset s case-sensitive color= colors= column " +
			"C: context= context-separator= c count count-matches crlf debug dfa-size-limit= E: encoding= engine= field-context-separator= " +
			"field-match-separator= f:@+p file=@+p files l files-with-matches files-without-match F fixed-strings L+L follow+L generate= g: glob= " +
			"glob-case-insensitive h help heading hidden+h hostname-bin=!x hyperlink-format= iglob= i ignore-case ignore-file=@ " +
			"ignore-file-case-insensitive include-zero v invert-match json line-buffered n line-number x line-regexp M: max-columns= " +
			"max-columns-preview m: max-count= d: max-depth= maxdepth= max-filesize= mmap U multiline multiline-dotall no-config I no-filename " +
			"no-heading no-ignore+h no-ignore-dot+h no-ignore-exclude+h no-ignore-files+h no-ignore-global+h no-ignore-messages no-ignore-parent+h " +
			"no-ignore-vcs+h N no-line-number no-messages no-pcre2-unicode no-require-git+h no-unicode 0 null null-data one-file-system o only-matching " +
			"passthru passthrough path-separator= P pcre2 pcre2-version pre=!x pre-glob= p pretty q quiet regex-size-limit= e:+p regexp=+p " +
			"r: replace= z!x search-zip!x S smart-case sort= sortr= sort-files stats stop-on-nonmatch a text j: threads= trace trim t: type= " +
			"type-add= type-clear= type-list T: type-not= u+h unrestricted+h V version vimgrep H with-filename w word-regexp " +
			"no-binary no-block-buffered no-byte-offset no-column no-context-separator no-crlf no-encoding no-follow no-glob-case-insensitive " +
			"no-hidden no-ignore-file-case-insensitive no-include-zero no-invert-match no-json no-line-buffered no-max-columns-preview " +
			"no-multiline no-multiline-dotall no-one-file-system no-pcre2 no-pre no-search-zip no-sort-files no-stats no-text no-trim " +
			"no-auto-hybrid-regex no-fixed-strings no-mmap no-ignore-case"),
			operands: opsPatternPaths, maxOps: -1, after: searcher(true)},
		"ag": {g: parseSpec("A: after= B: before= C:: context=? c count color nocolor column D debug depth= f+L follow+L F fixed-strings literal " +
			"G: file-search-regex= g: H heading noheading hidden+h i ignore-case ignore= ignore-dir= l files-with-matches L files-without-matches " +
			"m: max-count= n norecurse p:@ path-to-ignore=@ pager=!x nopager print0 0 Q s case-sensitive S smart-case search-binary silent " +
			"t all-text u+h unrestricted+h U+h skip-vcs-ignores+h v invert-match V version w word-regexp z search-zip one-device h help " +
			"r recurse a all-types workers= vimgrep"),
			operands: opsPatternPaths, maxOps: -1, after: searcher(true)},
		// fd lists names; -x, -X and -l run programs.
		"fd": prog(opsPatternPaths, -1, "H hidden+h I no-ignore+h u+h unrestricted+h no-ignore-vcs no-ignore-parent s case-sensitive i ignore-case "+
			"g glob regex F fixed-strings and= a absolute-path l!x list-details!x L+L follow+L p full-path 0 print0 d: max-depth= min-depth= "+
			"exact-depth= E: exclude= prune t: type= e: extension= S: size= changed-within= changed-before= o: owner= format= x:!x exec=!x "+
			"X:!x exec-batch=!x batch-size= ignore-file=@ c: color= j: threads= max-results= 1 q quiet show-errors base-directory=@ "+
			"path-separator= search-path=@ strip-cwd-prefix=? one-file-system h help V version max-buffer-time= hyperlink=? ignore-vcs "+
			"no-hidden no-follow no-global-ignore-file no-require-git"),
		"jq":   {custom: jqRO},
		"find": {custom: findRO},

		// Facts about the system.
		"basename": prog(opsNone, -1, "a multiple s: suffix= z zero"+help),
		"dirname":  prog(opsNone, -1, "z zero"+help),
		"realpath": prog(opsNone, -1, "e canonicalize-existing m canonicalize-missing L logical P physical q quiet relative-to= relative-base= s strip no-symlinks z zero"+help),
		"readlink": prog(opsNone, -1, "f canonicalize e canonicalize-existing m canonicalize-missing n no-newline q quiet s silent v verbose z zero"+help),
		"uname":    prog(opsNone, 0, "a all s kernel-name n nodename r kernel-release v kernel-version m machine p processor i hardware-platform o operating-system"+help),
		"id":       prog(opsNone, -1, "a Z context g group G groups n name r real u user z zero"+help),
		"whoami":   prog(opsNone, 0, help),
		"nproc":    prog(opsNone, 0, "all ignore="+help),
		"arch":     prog(opsNone, 0, help),
		"uptime":   prog(opsNone, 0, "p pretty h help s since V version"),
		"locale":   prog(opsNone, -1, "a all-locales m charmaps c category-name k keyword-name v verbose help usage V version"),
		"sleep":    prog(opsNone, -1, help),
		"seq":      prog(opsNone, -1, "# f: format= s: separator= w equal-width"+help),
		"which":    prog(opsNone, -1, "a s"),
		// date with an operand other than +FORMAT, or -s, sets the clock.
		"date": {g: parseSpec("d: date= debug f:@ file=@ I:: iso-8601=? R rfc-email rfc-3339= r:@ reference=@ s:!s set=!s u utc universal" + help),
			operands: opsNone, maxOps: 1, after: func(p parsed, r *roResult) {
				for _, o := range p.operands {
					if !o.Literal() || !strings.HasPrefix(o.Value, "+") {
						r.why = "date " + o.Value + " sets the clock"
					}
				}
			}},
		// hostname NAME, -F and -b set the host name.
		"hostname": prog(opsNone, 0, "a alias A all-fqdns b!s boot!s d domain f fqdn long F:!s file=!s i ip-address I all-ip-addresses s short y yp nis V version h help"),
		"env":      {custom: envRO},
		"printenv": {custom: func(SimpleCommand) roResult { return roResult{asks: []string{envDump}} }},
		"ps":       {custom: psRO},

		"command": {custom: commandRO},
		"git":     {custom: gitRO},
		"go":      {custom: goRO},
	}
	m["egrep"], m["fgrep"] = m["grep"], m["grep"]
	for _, name := range []string{"du", "tree", "fd"} {
		x := m[name]
		x.lists = true
		m[name] = x
	}
	ls := m["ls"]
	ls.after = func(p parsed, r *roResult) {
		if p.eff&effRecurse != 0 {
			r.lists = true // ls -R walks; -L follows links as it goes
		}
	}
	m["ls"] = ls
	for _, name := range []string{":", "true", "false", "echo", "pwd", "test", "[", "cd", "pushd", "popd", "dirs",
		"exit", "return", "break", "continue", "shift", "type"} {
		m[name] = program{custom: func(SimpleCommand) roResult { return roResult{} }}
	}
	m["printf"] = program{custom: printfRO}
	m["wait"] = builtin("n f p:!s")      // wait -p VAR assigns VAR
	m["jobs"] = builtin("l n p r s x!x") // jobs -x CMD runs CMD
	m["unset"] = program{custom: unsetRO}
	m["set"] = program{custom: setRO}
	return m
})

// builtin is a shell builtin parsed with bash's internal getopt: options
// come first, no long options.
func builtin(spec string) program {
	g := parseSpec(spec)
	g.stop = true
	return program{g: g, operands: opsNone, maxOps: -1}
}

func grepProg() program {
	p := prog(opsPatternPaths, -1, "# E extended-regexp F fixed-strings G basic-regexp P perl-regexp e:+p regexp=+p f:@+p file=@+p i y ignore-case "+
		"no-ignore-case w word-regexp x line-regexp z null-data s no-messages v invert-match V version help m: max-count= b byte-offset "+
		"n line-number line-buffered H with-filename h no-filename label= o only-matching q quiet silent binary-files= a text I "+
		"d: directories= D: devices= r+r recursive+r R+r+L dereference-recursive+r+L include= exclude= exclude-from=@ exclude-dir= "+
		"L files-without-match l files-with-matches c count T initial-tab Z null B: before-context= A: after-context= C: context= "+
		"group-separator= no-group-separator color=? colour=? U binary u unix-byte-offsets")
	p.after = func(pa parsed, r *roResult) {
		// -d ACTION takes any unique abbreviation of read, skip, recurse.
		for _, u := range pa.used {
			if u.opt.short == 'd' || u.opt.long == "directories" {
				if v := u.value.Value; !u.value.Known || (len(v) >= 2 && strings.HasPrefix("recurse", v)) {
					r.eff |= effRecurse
				}
			}
		}
	}
	return p
}

// searcher marks a program that searches folders recursively by itself.
func searcher(skipsHidden bool) func(parsed, *roResult) {
	return func(_ parsed, r *roResult) {
		r.search, r.skipsHidden = true, skipsHidden
	}
}

// checkReadOnly reports whether c is read-only and what it reads.
func checkReadOnly(c SimpleCommand) roResult {
	if c.Func || len(c.Words) == 0 || c.Decl != "" {
		// A function's body is checked command by command; assignments
		// and declarations are judged by the variables they set.
		return roResult{}
	}
	name := c.Words[0]
	switch {
	case !name.Literal():
		return notRO("the program is computed at run time")
	case strings.ContainsRune(name.Value, '/'):
		return notRO("it runs a program by path")
	case len(c.Assigns) > 0:
		return notRO("it sets " + c.Assigns[0] + " for the program")
	}
	pr, ok := programs()[name.Value]
	if !ok {
		return notRO("it is not a known read-only command")
	}
	if pr.custom != nil {
		return pr.custom(c)
	}
	return pr.check(c.Words[1:], c.Dir)
}

func (pr program) check(args []Word, dir string) roResult {
	p := pr.g.parse(args, dir)
	if p.why != "" {
		return notRO(p.why)
	}
	r := roResult{eff: p.eff, lists: pr.lists}
	for _, u := range p.used {
		switch {
		case !u.has:
		case u.opt.eff&effPath != 0:
			r.paths = append(r.paths, u.value)
		default:
			r.names = append(r.names, u.value)
		}
	}
	ops := p.operands
	if pr.maxOps >= 0 && len(ops) > pr.maxOps {
		return notRO("it takes an output file operand")
	}
	switch pr.operands {
	case opsNone:
	case opsPatternPaths:
		if p.eff&effPattern == 0 && len(ops) > 0 {
			r.names = append(r.names, ops[0])
			ops = ops[1:]
		}
		fallthrough
	case opsPaths:
		r.paths = append(r.paths, ops...)
	}
	if pr.after != nil {
		pr.after(p, &r)
	}
	return r
}

// commandRO: only `command -v NAME` and `command -V NAME` (lookups);
// `command NAME` runs NAME.
func commandRO(c SimpleCommand) roResult {
	args := c.Words[1:]
	if len(args) > 0 && args[0].Literal() && (args[0].Value == "-v" || args[0].Value == "-V") {
		return roResult{}
	}
	return notRO("command runs the program it names")
}

// printfRO: printf -v VAR assigns any variable (HOME, PATH), which
// changes what later commands run; printf takes no other option.
func printfRO(c SimpleCommand) roResult {
	args := c.Words[1:]
	if len(args) == 0 {
		return roResult{}
	}
	a := args[0]
	switch {
	case mayBeOption(a, c.Dir):
		return notRO("its first argument is computed at run time and could be -v, which assigns a variable")
	case a.Value != "--" && strings.HasPrefix(a.Value, "-"):
		return notRO("printf " + a.Value + " assigns a variable")
	}
	return roResult{}
}

// unsetRO: unsetting PATH, GIT_PAGER and the like changes what later
// commands run (an unset PATH searches the current folder).
func unsetRO(c SimpleCommand) roResult {
	for _, a := range c.Words[1:] {
		switch {
		case !a.Literal():
			return notRO("it unsets a variable named at run time")
		case strings.HasPrefix(a.Value, "-"):
		case dangerousVars().MatchString(a.Value):
			return notRO("it unsets " + a.Value + ", which changes what later commands run")
		}
	}
	return roResult{}
}

// setRO: set alone prints every variable; set with options changes the
// shell's behaviour, which the analysis does not depend on.
func setRO(c SimpleCommand) roResult {
	if len(c.Words) == 1 {
		return roResult{asks: []string{envDump}}
	}
	return roResult{}
}

// envRO: env alone prints the environment; with anything else it sets
// variables or runs a command.
func envRO(c SimpleCommand) roResult {
	for _, a := range c.Words[1:] {
		if !a.Literal() || !(a.Value == "-0" || a.Value == "--null") {
			return notRO("env runs a command or changes the environment")
		}
	}
	return roResult{asks: []string{envDump}}
}

// psRO: ps e (BSD syntax) prints every process's environment.
func psRO(c SimpleCommand) roResult {
	for _, a := range c.Words[1:] {
		if !a.Literal() {
			return notRO("an argument is computed at run time (" + a.Value + ")")
		}
		if !strings.HasPrefix(a.Value, "-") && strings.ContainsRune(a.Value, 'e') {
			return roResult{asks: []string{"ps " + a.Value + " prints the processes' environment, whose values may hold keys"}}
		}
	}
	return roResult{}
}

// goRO: go version, go env (not -w or -u), go doc, go help. Everything
// else compiles or runs code, or downloads it.
func goRO(c SimpleCommand) roResult {
	args := c.Words[1:]
	for _, a := range args {
		if !a.Literal() {
			return notRO("an argument is computed at run time")
		}
	}
	if len(args) == 0 {
		return roResult{}
	}
	switch args[0].Value {
	case "version":
		var r roResult
		for _, a := range args[1:] {
			if !strings.HasPrefix(a.Value, "-") {
				r.paths = append(r.paths, a) // go version -m FILE
			}
		}
		return r
	case "doc", "help":
		return roResult{}
	case "env":
		for _, a := range args[1:] {
			if a.Value == "-w" || a.Value == "-u" {
				return notRO("go env " + a.Value + " changes the Go configuration")
			}
		}
		return roResult{}
	}
	return notRO("go " + args[0].Value + " builds, runs or downloads code")
}

// jqArity is what jq's options take: the number of words after them,
// and which of those is a file.
var jqArity = map[string][2]int{
	"--arg": {2, -1}, "--argjson": {2, -1}, "--slurpfile": {2, 1}, "--rawfile": {2, 1},
	"--indent": {1, -1}, "-L": {1, -1}, "--library-path": {1, -1},
}

var jqFlags = nameSet("--null-input --raw-input --slurp --compact-output --raw-output --raw-output0 --join-output " +
	"--ascii-output --sort-keys --color-output --monochrome-output --tab --unbuffered --stream " +
	"--stream-errors --seq --exit-status --help --version --build-configuration --binary")

// jqEnv finds jq's ways to read the environment ($ENV, env) and to load
// modules from files.
var jqEnv = lazyRE(`\$ENV\b|\$__prog_args\b|(^|[^A-Za-z0-9_$.])env\b|\b(import|include|input_filename)\b`)

// jqRO: jq reads its files and prints what its filter says; the filter
// can print the environment ($ENV, env) and load modules.
func jqRO(c SimpleCommand) roResult {
	var r roResult
	args := c.Words[1:]
	filter, fromFile, asArgs := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if !a.Literal() {
			if !filter || mayBeOption(a, c.Dir) {
				return notRO("an argument is computed at run time (" + v + ")")
			}
		}
		switch {
		case v == "--args" || v == "--jsonargs":
			asArgs = true
			continue
		case jqFlags.has(v):
			continue
		case v == "-f" || v == "--from-file":
			fromFile = true
			if i+1 < len(args) {
				i++
				r.paths = append(r.paths, args[i])
			}
			continue
		case strings.HasPrefix(v, "--"):
			ar, ok := jqArity[v]
			if !ok {
				return notRO("it uses " + v + ", an option godwit does not know for jq")
			}
			for k := 0; k < ar[0] && i+1 < len(args); k++ {
				i++
				if k == ar[1] {
					r.paths = append(r.paths, args[i])
				}
			}
			continue
		case len(v) > 1 && v[0] == '-':
			if ar, ok := jqArity[v]; ok {
				i += ar[0]
				continue
			}
			for _, ch := range v[1:] {
				if !strings.ContainsRune("nRscrjaSCMeh0V", ch) {
					return notRO("it uses -" + string(ch) + ", an option godwit does not know for jq")
				}
			}
			continue
		}
		switch {
		case !filter && !fromFile:
			filter = true
			if !a.Known || jqEnv().MatchString(v) {
				r.asks = append(r.asks, "its jq filter may print the environment or read other files")
			}
		case !asArgs:
			r.paths = append(r.paths, a)
		}
	}
	if fromFile {
		r.asks = append(r.asks, "it runs a jq program from a file, which may print the environment")
	}
	return r
}

// findPred is one of find's expression words: how many words it takes
// and whether they are files it reads.
type findPred struct {
	n    int
	path bool
	eff  effect
}

var findPreds = sync.OnceValue(func() map[string]findPred {
	m := map[string]findPred{}
	for _, p := range strings.Fields("-daystart -depth -d -follow -ignore_readdir_race -mount -noignore_readdir_race -noleaf -xdev -warn -nowarn " +
		"-empty -executable -false -true -readable -writable -nogroup -nouser -print -print0 -ls -prune -quit -a -and -o -or -not -help --help -version --version") {
		m[p] = findPred{}
	}
	for _, p := range strings.Fields("-maxdepth -mindepth -amin -atime -cmin -ctime -fstype -gid -group -ilname -iname -inum -ipath -iregex " +
		"-iwholename -links -lname -mmin -mtime -name -path -perm -regex -regextype -size -type -uid -used -user -wholename -xtype -context -printf") {
		m[p] = findPred{n: 1}
	}
	for _, p := range strings.Fields("-anewer -cnewer -newer -samefile") {
		m[p] = findPred{n: 1, path: true}
	}
	for _, p := range strings.Fields("-exec -execdir -ok -okdir") {
		m[p] = findPred{eff: effRuns}
	}
	for _, p := range strings.Fields("-delete -fls -fprint -fprint0 -fprintf") {
		m[p] = findPred{eff: effWrites}
	}
	m["-files0-from"] = findPred{n: 1, eff: effNamesFile}
	return m
})

var findNewer = lazyRE(`^-newer[aBcm]([aBcmt])$`)

// findRO parses find's command line: options, starting points, then an
// expression of predicates, each taking a fixed number of words. An
// unknown predicate is not read-only.
func findRO(c SimpleCommand) roResult {
	r := roResult{lists: true}
	args := c.Words[1:]
	i := 0
	for ; i < len(args); i++ {
		v := args[i].Value
		if !args[i].Literal() {
			break
		}
		switch {
		case v == "-H" || v == "-P":
		case v == "-L":
			r.eff |= effFollow
		case v == "-D":
			i++
		case strings.HasPrefix(v, "-O"):
		default:
			goto points
		}
	}
points:
	for ; i < len(args); i++ {
		a := args[i]
		if mayBeOption(a, c.Dir) {
			return notRO("an argument is computed at run time (" + a.Value + ") and could be -exec or -delete")
		}
		if strings.HasPrefix(a.Value, "-") || a.Value == "(" || a.Value == "!" {
			break
		}
		r.paths = append(r.paths, a)
	}
	for ; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if mayBeOption(a, c.Dir) {
			return notRO("an argument is computed at run time (" + v + ") and could be -exec or -delete")
		}
		switch v {
		case "(", ")", "!", ",":
			continue
		}
		pr, ok := findPreds()[v]
		if m := findNewer().FindStringSubmatch(v); m != nil {
			pr, ok = findPred{n: 1, path: m[1] != "t"}, true
		}
		if v == "-follow" {
			r.eff |= effFollow
		}
		switch {
		case !ok:
			return notRO("it uses " + v + ", which godwit does not know for find")
		case pr.eff != 0:
			return notRO("it uses " + v + ", which " + pr.eff.reason())
		}
		for k := 0; k < pr.n && i+1 < len(args); k++ {
			i++
			if mayBeOption(args[i], c.Dir) {
				return notRO("the value of " + v + " is computed at run time (" + args[i].Value + ") and could split into -exec or -delete")
			}
			if pr.path {
				r.paths = append(r.paths, args[i])
			} else {
				r.names = append(r.names, args[i])
			}
		}
	}
	return r
}

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
)

// The docs' own rules (docs/architecture.md#the-docs-and-their-tests): every
// relative link resolves, every ```sh block runs as written, every ebb line
// of a ```console block parses against the command tree, every ```yaml
// block holding a whole DAG runs on the local world.

const repoRoot = "../.."

// docFile is one Markdown file of the docs, split into what the tests read.
type docFile struct {
	path   string // relative to the repository root
	text   string
	blocks []fence
}

// fence is one fenced code block.
type fence struct {
	info string // the info string's first word: sh, console, yaml, ...
	line int    // of its opening fence, from 1
	body string
}

// docFiles reads README.md and every .md under docs/.
func docFiles(t *testing.T) []docFile {
	t.Helper()
	return readDocs(t, "README.md")
}

// allReadmes reads what docFiles does and every other README.md of the
// repository (sim/, scripts/minicluster/, ...): their links and their
// prose are held to the same rules, their commands are not run.
func allReadmes(t *testing.T) []docFile {
	t.Helper()
	var extra []string
	err := filepath.WalkDir(repoRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "README.md" && rel != "README.md" {
			extra = append(extra, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return readDocs(t, append([]string{"README.md"}, extra...)...)
}

func readDocs(t *testing.T, paths ...string) []docFile {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repoRoot, p)
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []docFile
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(repoRoot, p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, docFile{path: p, text: string(b), blocks: fences(string(b))})
	}
	return out
}

// fences splits Markdown into its fenced code blocks.
func fences(text string) []fence {
	var out []fence
	var cur *fence
	var body []string
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			info := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			cur = &fence{line: i + 1}
			if len(info) > 0 {
				cur.info = info[0]
			}
			body = nil
		case cur != nil && trimmed == "```":
			cur.body = strings.Join(body, "\n")
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, l)
		}
	}
	return out
}

// prose is text with its fenced blocks and inline code removed, where
// links are read.
func prose(text string) string {
	return regexp.MustCompile("`[^`\n]*`").ReplaceAllString(outsideFences(text), "")
}

// outsideFences is text with its fenced blocks blanked (lines kept, so
// line numbers hold).
func outsideFences(text string) string {
	var keep []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			keep = append(keep, "")
			continue
		}
		if in {
			keep = append(keep, "")
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// anchors are the GitHub heading ids of a Markdown text.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range strings.Split(outsideFences(text), "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		s := slug(h)
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	// Explicit anchors: <a id="..."></a> or name=.
	for _, m := range regexp.MustCompile(`<a (?:id|name)="([^"]+)"`).FindAllStringSubmatch(text, -1) {
		out[m[1]] = true
	}
	return out
}

// slug is GitHub's id for a heading: lower case, punctuation other than
// '-' and '_' dropped, spaces to '-'.
func slug(h string) string {
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// Every relative link of README.md and docs/ names a file that exists and,
// with a #fragment, a heading there.
func TestDocsLinksResolve(t *testing.T) {
	files := allReadmes(t)
	texts := map[string]string{}
	for _, f := range files {
		texts[f.path] = f.text
	}
	for _, f := range files {
		for i, l := range strings.Split(prose(f.text), "\n") {
			for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := f.path
				if file != "" {
					dest = filepath.Clean(filepath.Join(filepath.Dir(f.path), file))
					if _, err := os.Stat(filepath.Join(repoRoot, dest)); err != nil {
						t.Errorf("%s:%d: link %s: %s does not exist", f.path, i+1, target, dest)
						continue
					}
				}
				if frag == "" {
					continue
				}
				text, ok := texts[dest]
				if !ok {
					b, err := os.ReadFile(filepath.Join(repoRoot, dest))
					if err != nil || !strings.HasSuffix(dest, ".md") {
						t.Errorf("%s:%d: link %s: an anchor into %s, which is not Markdown", f.path, i+1, target, dest)
						continue
					}
					text = string(b)
				}
				if !anchors(text)[frag] {
					t.Errorf("%s:%d: link %s: %s has no heading #%s", f.path, i+1, target, dest, frag)
				}
			}
		}
	}
}

// The pages `ebb` points to from its errors exist, anchor included.
func TestDocHintsResolve(t *testing.T) {
	for _, ref := range []string{
		docsRef("getting-started.md#run-a-dag-on-yarn"), docsRef("operators.md#kerberos"), docsRef("dags.md"),
		docsRef("dags.md#outputs-and-the-commit"), docsRef("reference/config.md"),
	} {
		file, frag, _ := strings.Cut(ref, "#")
		b, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Errorf("ebb points to %s: %v", ref, err)
			continue
		}
		if frag != "" && !anchors(string(b))[frag] {
			t.Errorf("ebb points to %s: %s has no such heading", ref, file)
		}
	}
}

// words splits a shell line into words: quotes group, $VAR stays as written.
func words(line string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	has := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, has = r, true
		case r == ' ' || r == '\t':
			if has || cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
			has = false
		default:
			cur.WriteRune(r)
		}
	}
	if has || cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// ebbLines are a block's ebb command lines, each cut at a pipe, a
// redirection, a comment or a && and without a "$ " prompt, as words after
// "ebb" (a "go run ./cmd/ebb" counts as "ebb").
func ebbLines(body string) [][]string {
	var out [][]string
	for _, l := range strings.Split(strings.ReplaceAll(body, "\\\n", " "), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
		for _, cut := range []string{" | ", " > ", " 2>", " &&", " #", " ;"} {
			if i := strings.Index(l, cut); i >= 0 {
				l = l[:i]
			}
		}
		w := words(l)
		switch {
		case len(w) > 0 && w[0] == "ebb":
			out = append(out, w[1:])
		case len(w) > 2 && w[0] == "go" && w[1] == "run" && w[2] == "./cmd/ebb":
			out = append(out, w[3:])
		}
	}
	return out
}

// Every ebb line in README.md's and docs/'s ```console and ```sh blocks
// names a command that exists with flags it has, and arguments it takes.
func TestDocsCommandsParse(t *testing.T) {
	for _, f := range docFiles(t) {
		for _, b := range f.blocks {
			if b.info != "console" && b.info != "sh" {
				continue
			}
			for _, args := range ebbLines(b.body) {
				if err := parseCommand(args); err != nil {
					t.Errorf("%s:%d (block): ebb %s: %v", f.path, b.line, strings.Join(args, " "), err)
				}
			}
		}
	}
}

// parseCommand checks one command line against a fresh command tree
// without running it.
func parseCommand(args []string) error {
	root := newRoot()
	root.InitDefaultHelpCmd()
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if c.HasSubCommands() && !c.Runnable() && len(args) > 0 {
		return fmt.Errorf("%q is not a command (its subcommands: %v)", c.CommandPath(), c.Commands()[0].Name())
	}
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	if c.Args != nil {
		return c.Args(c, c.Flags().Args())
	}
	return nil
}

// sandbox is a directory that looks like the repository's root for a docs
// command: every top-level entry linked, but examples/ copied (a DAG's
// output is relative to its file) and ../shared linked beside it.
func sandbox(t *testing.T) (dir, bin string) {
	t.Helper()
	top := t.TempDir()
	dir = filepath.Join(top, "ebb")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "examples", "ebb-output", "ebb-sim-plots", ".git":
			continue
		}
		if err := os.Symlink(filepath.Join(abs, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(abs, "examples"), dir).CombinedOutput(); err != nil {
		t.Fatalf("copying examples: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(abs, "..", "shared")); err == nil {
		if err := os.Symlink(filepath.Join(abs, "..", "shared"), filepath.Join(top, "shared")); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Dir(ebbBin)
}

// Every ```sh block of docs/ runs as written, from a copy of the
// repository's root with this tree's ebb on PATH, and exits 0.
func TestDocsShellBlocksRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every sh block of docs/")
	}
	for _, f := range docFiles(t) {
		for _, b := range f.blocks {
			if b.info != "sh" {
				continue
			}
			t.Run(fmt.Sprintf("%s:%d", f.path, b.line), func(t *testing.T) {
				dir, bin := sandbox(t)
				cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+b.body)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "HOME="+t.TempDir())
				out, err := runLogged(t, cmd)
				if err != nil {
					t.Fatalf("%s:%d: the block failed: %v\n--- block\n%s\n--- output\n%s", f.path, b.line, err, b.body, out)
				}
			})
		}
	}
}

// Every ```yaml block of docs/ that holds a whole DAG (it has vertices:)
// runs on the local world and succeeds.
func TestDocsDAGsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every DAG of docs/")
	}
	n := 0
	for _, f := range docFiles(t) {
		for _, b := range f.blocks {
			if b.info != "yaml" || !regexp.MustCompile(`(?m)^vertices:`).MatchString(b.body) {
				continue
			}
			n++
			t.Run(fmt.Sprintf("%s:%d", f.path, b.line), func(t *testing.T) {
				dir, bin := sandbox(t)
				spec := filepath.Join(dir, "doc-dag.yaml")
				if err := os.WriteFile(spec, []byte(b.body), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(filepath.Join(bin, "ebb"), "local", "run", spec, "--output", filepath.Join(t.TempDir(), "out"))
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "HOME="+t.TempDir())
				if out, err := runLogged(t, cmd); err != nil {
					t.Fatalf("%s:%d: the DAG failed: %v\n%s", f.path, b.line, err, out)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("docs/ hold no runnable DAG: dags.md must show one")
	}
}

// runLogged runs cmd with its output in a file, not a pipe: a worker
// process a local AM leaves behind for a moment would hold a pipe open and
// the wait with it. A command still running after docsCommandDeadline is
// killed and fails the test, saying so.
func runLogged(t *testing.T, cmd *exec.Cmd) ([]byte, error) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(docsCommandDeadline):
		_ = cmd.Process.Kill()
		if werr := <-done; werr != nil {
			t.Logf("the killed command: %v", werr)
		}
		err = fmt.Errorf("still running after %v: killed", docsCommandDeadline)
	}
	out, rerr := os.ReadFile(f.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return out, err
}

// docsCommandDeadline bounds one docs block: they are meant to finish in
// seconds, and the bound is far above that so a loaded machine does not
// fail them.
const docsCommandDeadline = 5 * time.Minute

// The README stays a front page, and no page tells how a feature was
// developed (git keeps that): no issue numbers, rounds, sessions or
// flakes in README.md or docs/.
func TestDocsAreNotANotebook(t *testing.T) {
	const maxREADME = 20000
	history := regexp.MustCompile(`(?i)\b(issue|issues) #?\d+|\b(first|second|third|fourth|this|last|earlier|next) round\b|\b(this|last|earlier|previous) session\b|\bflak(e|y)\b`)
	for _, f := range allReadmes(t) {
		if f.path == "README.md" && len(f.text) > maxREADME {
			t.Errorf("README.md is %d bytes, more than %d: move detail under docs/", len(f.text), maxREADME)
		}
		for i, l := range strings.Split(f.text, "\n") {
			if m := history.FindString(l); m != "" {
				t.Errorf("%s:%d tells history (%q): say what ebb does, not how it came to", f.path, i+1, m)
			}
		}
	}
}

package image

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// dockerfile is the repository's Dockerfile, its instructions one a line.
func dockerfile(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// find is the one instruction matching re, with its groups.
func find(t *testing.T, lines []string, re string) []string {
	t.Helper()
	r := regexp.MustCompile(re)
	var m []string
	for _, l := range lines {
		if g := r.FindStringSubmatch(l); g != nil {
			if m != nil {
				t.Fatalf("Dockerfile: more than one line matches %s", re)
			}
			m = g
		}
	}
	if m == nil {
		t.Fatalf("Dockerfile: no line matches %s", re)
	}
	return m
}

// TestDockerfileImageRunsInAnEmptyRoot builds the binary as the
// Dockerfile's build stage does (its own go build line, run here), checks
// that the final stage is scratch holding only that binary at the path the
// ENTRYPOINT and PATH name, run as a numeric non-root USER, that the
// binary is static (no ELF interpreter: scratch has no libc), and runs
// `ebb version` chrooted into a directory holding nothing but it and
// /tmp, as that user. Run as root (CI); elsewhere it skips the chroot,
// unless CI=true, where it fails.
func TestDockerfileImageRunsInAnEmptyRoot(t *testing.T) {
	lines := dockerfile(t)
	build := find(t, lines, `^RUN CGO_ENABLED=0 go build -ldflags "(.*)" -o (\S+) (\./cmd/ebb)$`)
	if build[2] != "/out/ebb" {
		t.Fatalf("the build writes %s; the COPY below takes /out/ebb", build[2])
	}
	find(t, lines, `^FROM scratch$`)
	bin := find(t, lines, `^COPY --from=build /out/ebb (/\S+)$`)[1]
	if ep := find(t, lines, `^ENTRYPOINT \["(\S+)"\]$`)[1]; ep != bin {
		t.Errorf("ENTRYPOINT %s, the binary is at %s", ep, bin)
	}
	if path := find(t, lines, `^ENV PATH=(\S+)$`)[1]; path != filepath.Dir(bin) {
		t.Errorf("PATH %s does not hold %s (pods run the command \"ebb\")", path, bin)
	}
	user := find(t, lines, `^USER (\d+):(\d+)$`)
	uid, _ := strconv.Atoi(user[1])
	gid, _ := strconv.Atoi(user[2])
	if uid == 0 || gid == 0 {
		t.Errorf("USER %s:%s is root", user[1], user[2])
	}

	root := t.TempDir()
	out := filepath.Join(root, bin)
	ldflags := strings.ReplaceAll(build[1], "${VERSION}", "image-test")
	cmd := exec.Command("go", "build", "-ldflags", ldflags, "-o", out, build[3])
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build as the Dockerfile does: %v\n%s", err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary asks for an ELF interpreter: it is not static, and scratch has no libc")
		}
	}
	_ = f.Close() // read only
	if err := os.Mkdir(filepath.Join(root, "tmp"), 0o1777); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("chroot needs root, and CI runs as root")
		}
		t.Skip("chroot needs root")
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(bin, "version")
	run.Env = []string{"PATH=" + filepath.Dir(bin)}
	run.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	run.Dir = "/"
	b, err := run.CombinedOutput()
	if err != nil || strings.TrimSpace(string(b)) != "ebb image-test" {
		t.Errorf("ebb version in the empty root as %d:%d: %v, printed %q; want \"ebb image-test\"", uid, gid, err, b)
	}
}
